#include "host/base/output_file.h"

#include <cerrno>
#include <cstdio>
#include <unistd.h>

namespace initbench {

namespace {
Status write_whole(const std::filesystem::path& path, std::string_view text) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f)
        return errno_error("cannot write " + path.string());
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const int write_errno = errno;
    if (std::fclose(f) != 0 || !written)
        return Error{"cannot write " + path.string(), written ? errno : write_errno};
    return ok();
}
} // namespace

Status write_output_file(const std::filesystem::path& path, std::string_view text) {
    namespace fs = std::filesystem;
    std::error_code ec;
    // A device, a pipe or a link (--out /dev/stdout) is written through as it is: a rename
    // would replace it with a file.
    if (auto st = fs::symlink_status(path, ec); !ec && fs::exists(st) && !fs::is_regular_file(st))
        return write_whole(path, text);
    const fs::path tmp = path.string() + ".tmp";
    if (auto s = write_whole(tmp, text); !s) {
        fs::remove(tmp, ec);
        return s;
    }
    fs::rename(tmp, path, ec);
    if (ec) {
        std::error_code ignored;
        fs::remove(tmp, ignored);
        return Error{"cannot write " + path.string() + ": " + ec.message()};
    }
    return ok();
}

Status output_writable(const std::filesystem::path& path) {
    // What exists and is not a regular file is written through (/dev/stdout): it must take writes.
    std::error_code ec;
    if (auto st = std::filesystem::status(path, ec); !ec && std::filesystem::exists(st) &&
                                                      !std::filesystem::is_regular_file(st))
        return ::access(path.c_str(), W_OK) == 0 ? ok() : errno_error("cannot write " + path.string());
    const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return errno_error("cannot write " + path.string() + ": directory " + dir.string());
    return ok();
}

} // namespace initbench
