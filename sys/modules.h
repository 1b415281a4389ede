// Kernel modules as /proc/modules and /sys/module show them: for init's module commands
// (initbench.module), which load one and record what the kernel made of it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace initbench {

// The names /proc/modules lists.
std::vector<std::string> loaded_modules();
// The name the kernel gave the module just loaded from `path`: the one /proc/modules did not
// list `before`; else the file's name as the kernel would make it (dashes to underscores).
std::string new_module_name(const std::vector<std::string>& before, const std::string& path);
// The parameters as the kernel took them: the readable files under /sys/module/NAME/parameters
// (at most 32), trimmed.
std::map<std::string, std::string> module_parameters(const std::string& name);

} // namespace initbench
