// The installed version of a Debian package, read from dpkg's status file, so that a
// results document names the exact firmware build that ran.
#pragma once

#include <string>

namespace initbench {

// The version dpkg has installed of `package`, "" when it is not installed (or there is no
// dpkg). `status_path` is dpkg's status file; tests give another.
std::string installed_version(const std::string& package,
                              const std::string& status_path = "/var/lib/dpkg/status");

} // namespace initbench
