#pragma once

#include <string>

namespace initbench {

// The image for `arch` next to this program: in the build tree (build/initbench-ARCH.cpio.gz
// beside build/host/) or installed (PREFIX/share/initbench/). "" if there is none.
std::string default_image(const std::string& arch, const char* argv0);

} // namespace initbench
