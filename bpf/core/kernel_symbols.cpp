#include "bpf/core/kernel_symbols.h"

#include "bpf/core/setup_times.h"
#include "bpf/core/vmlinux_btf.h"
#include "common/text.h"
#include "sys/sys.h"

#include <bpf/btf.h>
#include <linux/btf.h>
#include <string_view>

namespace initbench {

// "ffffffff81000000 T name\t[module]": a text symbol of that name.
bool function_in_kallsyms(const std::string& name) {
    SetupStep step("kallsyms");
    auto text = read_file("/proc/kallsyms", 64 << 20);
    if (!text)
        return false;
    for (auto line : split_lines(text.value())) {
        auto f = split_words(line);
        if (f.size() >= 3 && (f[1] == "T" || f[1] == "t") && f[2] == name)
            return true;
    }
    return false;
}

bool function_in_btf(const std::string& name, std::string& error) {
    const struct btf* btf = vmlinux_btf(error);
    if (!btf)
        return false;
    SetupStep step("check");
    return btf__find_by_name_kind(btf, name.c_str(), BTF_KIND_FUNC) > 0;
}

} // namespace initbench
