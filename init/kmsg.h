// Kernel warnings, oopses, BUGs and OOM kills during a run are results too: a thread reads
// /dev/kmsg from the run's start and keeps such events until the runner collects them for
// the phase they happened in.
#pragma once

#include "sys/sys.h"

#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace initbench {

struct KmsgEvent {
    std::string kind;                 // one of kKernelEventKinds (common/kernel_events.h)
    double time_s = 0;                // kernel timestamp
    std::string line;                 // the message that triggered it
    std::vector<std::string> context; // a few lines after it
    nlohmann::json to_json() const;
};

// Which kind of event a kernel message is (classify_kernel_line), or "" for an ordinary one.
std::string_view classify_kernel_message(std::string_view msg);

class KmsgWatcher {
public:
    KmsgWatcher(); // starts reading at the end of the buffer; no thread if /dev/kmsg is absent
    ~KmsgWatcher();
    KmsgWatcher(const KmsgWatcher&) = delete;
    KmsgWatcher& operator=(const KmsgWatcher&) = delete;
    bool active() const { return kmsg_.valid(); }
    const std::string& open_error() const { return open_error_; } // why not active: "open /dev/kmsg: ..."
    std::vector<KmsgEvent> drain();

private:
    void loop();
    void take(std::string_view raw);

    Fd kmsg_;
    std::string open_error_;
    Fd stop_;
    std::mutex mu_;
    std::vector<KmsgEvent> events_;
    std::thread thread_;
};

} // namespace initbench
