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
bool function_in_kallsyms(const std::string& name) {
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
    struct btf* btf = btf__load_vmlinux_btf();
    if (long err = libbpf_get_error(btf); err) {
        error = std::string("no kernel BTF: ") + std::strerror(static_cast<int>(-err));
        return false;
    }
    bool found = btf__find_by_name_kind(btf, name.c_str(), BTF_KIND_FUNC) > 0;
    btf__free(btf);
    return found;
}

} // namespace initbench
