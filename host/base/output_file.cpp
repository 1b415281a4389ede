#include "host/base/output_file.h"

#include <cerrno>
#include <cstdio>
#include <unistd.h>

namespace initbench {

Status write_output_file(const std::filesystem::path& path, std::string_view text) {
    const std::filesystem::path tmp = path.string() + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f)
        return errno_error("cannot write " + tmp.string());
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const int write_errno = errno;
    if (std::fclose(f) != 0 || !written) {
        const int err = written ? errno : write_errno;
        std::filesystem::remove(tmp);
        return Error{"cannot write " + tmp.string(), err};
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp);
        return Error{"cannot write " + path.string() + ": " + ec.message()};
    }
    return ok();
}

Status output_writable(const std::filesystem::path& path) {
    const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return errno_error("cannot write " + path.string() + ": directory " + dir.string());
    return ok();
}

} // namespace initbench
