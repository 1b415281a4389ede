// Where a kernel function can be hooked: in BTF (fentry/fexit), in kallsyms (kprobes), or
// not at all — decided before any program is loaded.
#pragma once

#include <string>
#include <unistd.h>

namespace initbench {

// The kernel exposes its own BTF (/sys/kernel/btf/vmlinux): BTF-typed programs and CO-RE
// can work. Inline, so that the header's identity record needs no libbpf.
inline bool kernel_has_btf() { return ::access("/sys/kernel/btf/vmlinux", R_OK) == 0; }

// A BTF FUNC of that name exists: fentry/fexit can be tried. `error` says why BTF could
// not be read, if it could not.
bool function_in_btf(const std::string& name, std::string& error);

// A text symbol of that name exists: kprobes can be tried. Reads all of /proc/kallsyms
// (slow under TCG), so it is asked only when fentry is not possible.
bool function_in_kallsyms(const std::string& name);

} // namespace initbench
