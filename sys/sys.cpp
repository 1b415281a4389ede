#include "sys/sys.h"

#include <fcntl.h>
#include <time.h>

namespace initbench {

Result<Fd> open_fd(const std::string& path, int flags, mode_t mode) {
    int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
    if (fd < 0)
        return errno_error("open " + path);
    return Fd(fd);
}

Result<std::string> read_file(const std::string& path, size_t limit) {
    auto fd = open_fd(path, O_RDONLY);
    if (!fd)
        return fd.error();
    std::string out;
    char buf[4096];
    while (out.size() < limit) {
        ssize_t n = ::read(fd.value().get(), buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return errno_error("read " + path);
        }
        if (n == 0)
            break;
        out.append(buf, static_cast<size_t>(n));
    }
    if (out.size() > limit)
        out.resize(limit);
    return out;
}

Status write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        ssize_t n = ::write(fd, data.data(), data.size());
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return errno_error("write");
        }
        data.remove_prefix(static_cast<size_t>(n));
    }
    return ok();
}

Status write_file(const std::string& path, std::string_view data) {
    auto fd = open_fd(path, O_WRONLY);
    if (!fd)
        return fd.error();
    if (auto s = write_all(fd.value().get(), data); !s)
        return Error{"write " + path, s.error().err};
    return ok();
}

static double clock_seconds(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double monotonic_seconds() { return clock_seconds(CLOCK_MONOTONIC); }
double boottime_seconds() { return clock_seconds(CLOCK_BOOTTIME); }

} // namespace initbench
