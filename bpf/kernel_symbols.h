// Where a kernel function can be hooked: in BTF (fentry/fexit), in kallsyms (kprobes), or
// not at all — decided before any program is loaded.
#pragma once

#include <string>

namespace initbench {

struct FunctionAvailability {
    bool in_btf = false;      // a BTF FUNC of that name: fentry/fexit can be tried
    bool in_kallsyms = false; // a text symbol: kprobes can be tried
    std::string btf_error;    // why BTF could not be read, if it could not
};

FunctionAvailability find_kernel_function(const std::string& name);

} // namespace initbench
