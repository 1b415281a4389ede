// Ends a run that cannot finish: after the timeout it calls the expiry action (which
// writes the timeout record and ends the machine). Where /dev/watchdog exists it is armed
// too, so a PID 1 that is itself stuck still gets the board reset.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace initbench {

class Watchdog {
public:
    Watchdog(double timeout_s, std::function<void()> on_expiry);
    ~Watchdog(); // disarms
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

private:
    void loop(double timeout_s);

    std::function<void()> on_expiry_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    int hw_fd_ = -1;
    std::thread thread_;
};

} // namespace initbench
