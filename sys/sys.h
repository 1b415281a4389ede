// RAII kernel handles and system-call helpers for PID 1; failures are Errors
// (common/result.h) naming the call and errno.
#pragma once

#include "common/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <unistd.h>
#include <utility>

namespace initbench {

// A move-only file descriptor; -1 is empty.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    Fd& operator=(Fd&& o) noexcept {
        if (this != &o) {
            reset();
            fd_ = std::exchange(o.fd_, -1);
        }
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() { reset(); }
    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    int release() { return std::exchange(fd_, -1); }
    void reset() {
        if (fd_ >= 0)
            ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_ = -1;
};

Result<Fd> open_fd(const std::string& path, int flags, mode_t mode = 0);
Result<std::string> read_file(const std::string& path, size_t limit = 1 << 20);
// However large: the host's documents, logs and archives.
inline Result<std::string> read_whole_file(const std::string& path) { return read_file(path, SIZE_MAX); }
Status write_file(const std::string& path, std::string_view data);
Status write_all(int fd, std::string_view data);
double monotonic_seconds();
double boottime_seconds();

} // namespace initbench
