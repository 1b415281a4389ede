// Errors as values, for PID 1 and the host alike: a failing step becomes an Error naming
// the step (and errno, for a system call), never an exception escaping into the kernel's
// hands.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>
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

} // namespace initbench
