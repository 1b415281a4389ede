#include "bpf/attach.h"

#include "bpf/kernel_symbols.h"

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

} // namespace initbench
