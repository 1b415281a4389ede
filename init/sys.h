// Errors as values and RAII kernel handles for PID 1: a failing system call becomes an
// Error naming the call and errno, never an exception escaping into the kernel's hands.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <unistd.h>
#include <utility>
#include <variant>

namespace initbench {

struct Error {
    std::string what; // the call or step that failed, e.g. "mount /proc"
    int err = 0;      // errno, 0 when not a system call
    std::string message() const {
        return err ? what + ": " + std::strerror(err) : what;
    }
};

inline Error errno_error(std::string what) { return Error{std::move(what), errno}; }

template <typename T>
class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::move(value)) {}
    Result(Error e) : v_(std::move(e)) {}
    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<0>(v_); }
    const T& value() const { return std::get<0>(v_); }
    const Error& error() const { return std::get<1>(v_); }
    T value_or(T other) const { return ok() ? value() : std::move(other); }

private:
    std::variant<T, Error> v_;
};

struct Unit {};
using Status = Result<Unit>;
inline Status ok() { return Unit{}; }

#define IB_TRY(expr)                                                                             \
    do {                                                                                         \
        auto&& ib_try_result_ = (expr);                                                          \
        if (!ib_try_result_.ok())                                                                \
            return ib_try_result_.error();                                                       \
    } while (0)

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
Status write_file(const std::string& path, std::string_view data);
Status write_all(int fd, std::string_view data);
double monotonic_seconds();
double boottime_seconds();

} // namespace initbench
