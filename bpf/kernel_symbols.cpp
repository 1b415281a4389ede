#include "bpf/kernel_symbols.h"

#include "common/text.h"
#include "init/sys.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <cstring>
#include <linux/btf.h>
#include <string_view>

namespace initbench {

// "ffffffff81000000 T name\t[module]": a text symbol of that name.
static bool in_kallsyms(const std::string& name) {
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

FunctionAvailability find_kernel_function(const std::string& name) {
    FunctionAvailability a;
    struct btf* btf = btf__load_vmlinux_btf();
    if (long err = libbpf_get_error(btf); err) {
        a.btf_error = std::string("no kernel BTF: ") + std::strerror(static_cast<int>(-err));
    } else {
        a.in_btf = btf__find_by_name_kind(btf, name.c_str(), BTF_KIND_FUNC) > 0;
        btf__free(btf);
    }
    a.in_kallsyms = in_kallsyms(name);
    return a;
}

} // namespace initbench
