#include "init/watchdog.h"

#include <chrono>
#include <fcntl.h>
#include <linux/watchdog.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace initbench {

Watchdog::Watchdog(double timeout_s, std::function<void()> on_expiry)
    : on_expiry_(std::move(on_expiry)) {
    hw_fd_ = ::open("/dev/watchdog", O_WRONLY | O_CLOEXEC);
    if (hw_fd_ >= 0) {
        // The hardware fires later than ours, so the software path gets to write its record.
        int secs = static_cast<int>(timeout_s) + 30;
        ::ioctl(hw_fd_, WDIOC_SETTIMEOUT, &secs);
    }
    thread_ = std::thread([this, timeout_s] { loop(timeout_s); });
}

Watchdog::~Watchdog() {
    {
        std::lock_guard lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable())
        thread_.join();
    if (hw_fd_ >= 0) {
        (void)!::write(hw_fd_, "V", 1); // magic close: disarm
        ::close(hw_fd_);
    }
}

void Watchdog::loop(double timeout_s) {
    using clock = std::chrono::steady_clock;
    auto deadline = clock::now() + std::chrono::duration_cast<clock::duration>(
                                       std::chrono::duration<double>(timeout_s));
    std::unique_lock lock(mu_);
    while (!stop_) {
        if (hw_fd_ >= 0)
            ::ioctl(hw_fd_, WDIOC_KEEPALIVE, 0);
        auto next = std::min(deadline, clock::now() + std::chrono::seconds(5));
        cv_.wait_until(lock, next, [this] { return stop_; });
        if (!stop_ && clock::now() >= deadline) {
            lock.unlock();
            on_expiry_(); // does not return: it ends the machine
            return;
        }
    }
}

} // namespace initbench
