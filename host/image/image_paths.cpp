#include "host/image/image_paths.h"

#include <filesystem>
#include <unistd.h>

namespace initbench {

std::string default_image(const std::string& arch, const char* argv0) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        exe = fs::absolute(argv0);
    const std::string name = "initbench-" + arch + ".cpio.gz";
    for (const fs::path& dir : {exe.parent_path().parent_path(), exe.parent_path().parent_path() / "share/initbench"})
        if (fs::exists(dir / name))
            return (dir / name).string();
    return {};
}

} // namespace initbench
