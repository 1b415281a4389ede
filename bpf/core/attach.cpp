#include "bpf/core/attach.h"

#include "bpf/core/kernel_symbols.h"

#include <cerrno>
#include <cstring>

namespace initbench {

const char* mechanism_name(Mechanism m) {
    return m == Mechanism::fentry ? "fentry/fexit" : "kprobe/kretprobe";
}

// The first function missing from BTF (or kallsyms), or "" when all are there.
static std::string first_missing(const std::vector<std::string>& functions, bool btf, std::string& btf_error) {
    for (const auto& f : functions)
        if (btf ? !function_in_btf(f, btf_error) : !function_in_kallsyms(f))
            return f;
    return {};
}

std::optional<Mechanism> attach_functions(const std::vector<std::string>& functions, const std::string& mode,
                                          const std::function<bool(Mechanism, std::string&)>& try_load,
                                          std::string& reason) {
    std::string fentry_why;
    if (mode == "kprobe") {
        fentry_why = "not tried (mode kprobe)";
    } else {
        std::string btf_error;
        std::string missing = first_missing(functions, true, btf_error);
        if (!btf_error.empty())
            fentry_why = btf_error;
        else if (!missing.empty())
            fentry_why = missing + " not in BTF";
        else if (try_load(Mechanism::fentry, fentry_why))
            return Mechanism::fentry;
    }
    if (mode == "fentry") {
        reason = "fentry: " + fentry_why + "; kprobe: not tried (mode fentry)";
        return std::nullopt;
    }
    std::string unused;
    std::string missing = first_missing(functions, false, unused);
    if (!missing.empty()) {
        reason = missing + " not found in BTF or kallsyms (absent, inlined or static in this kernel)";
        if (fentry_why.find("not in BTF") == std::string::npos)
            reason = "fentry: " + fentry_why + "; kprobe: " + missing + " not in kallsyms";
        return std::nullopt;
    }
    std::string kprobe_why;
    if (try_load(Mechanism::kprobe, kprobe_why)) {
        reason = mode == "kprobe" ? "" : "fentry unavailable: " + fentry_why;
        return Mechanism::kprobe;
    }
    reason = "fentry: " + fentry_why + "; kprobe: " + kprobe_why;
    return std::nullopt;
}

void select_hooks(const std::vector<FunctionHook>& hooks, Mechanism m) {
    const bool fentry = m == Mechanism::fentry;
    for (const auto& h : hooks) {
        bpf_program__set_autoload(h.fentry, fentry);
        bpf_program__set_autoload(h.kprobe, !fentry);
        if (fentry)
            bpf_program__set_attach_target(h.fentry, 0, h.function.c_str());
    }
}

bool attach_kprobes(const std::vector<FunctionHook>& hooks, std::string& why) {
    for (const auto& h : hooks) {
        *h.kprobe_link = bpf_program__attach_kprobe(h.kprobe, h.retprobe, h.function.c_str());
        if (!*h.kprobe_link) {
            why = std::string(h.retprobe ? "kretprobe " : "kprobe ") + h.function + ": " + std::strerror(errno);
            return false;
        }
    }
    return true;
}

} // namespace initbench
