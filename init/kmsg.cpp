#include "init/kmsg.h"

#include "common/kernel_events.h"

#include <cstdlib>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>

namespace initbench {

namespace {
constexpr size_t kContextLines = 8;
constexpr size_t kMaxEvents = 64; // a flood of warnings must not eat the guest's memory
} // namespace

std::string_view classify_kernel_message(std::string_view msg) {
    const auto match = classify_kernel_line(msg);
    return match ? match->kind : std::string_view();
}

nlohmann::json KmsgEvent::to_json() const {
    return {{"kind", kind}, {"time_s", time_s}, {"line", line}, {"context", context}};
}

KmsgWatcher::KmsgWatcher() {
    auto fd = open_fd("/dev/kmsg", O_RDONLY | O_NONBLOCK);
    if (!fd) {
        open_error_ = fd.error().message();
        return;
    }
    kmsg_ = std::move(fd.value());
    ::lseek(kmsg_.get(), 0, SEEK_END); // boot messages are not the run's
    stop_ = Fd(::eventfd(0, EFD_CLOEXEC));
    thread_ = std::thread([this] { loop(); });
}

KmsgWatcher::~KmsgWatcher() {
    if (thread_.joinable()) {
        uint64_t one = 1;
        (void)!::write(stop_.get(), &one, sizeof one);
        thread_.join();
    }
}

// A /dev/kmsg record: "prio,seq,usec,flags;message\n" plus " KEY=value" lines.
void KmsgWatcher::take(std::string_view raw) {
    auto semi = raw.find(';');
    if (semi == std::string_view::npos)
        return;
    std::string_view prefix = raw.substr(0, semi);
    std::string_view msg = raw.substr(semi + 1);
    msg = msg.substr(0, msg.find('\n'));
    double ts = 0;
    if (auto c1 = prefix.find(','); c1 != std::string_view::npos)
        if (auto c2 = prefix.find(',', c1 + 1); c2 != std::string_view::npos)
            ts = std::strtod(std::string(prefix.substr(c2 + 1)).c_str(), nullptr) / 1e6;

    std::lock_guard lock(mu_);
    auto kind = classify_kernel_message(msg);
    if (!kind.empty()) {
        if (events_.size() < kMaxEvents)
            events_.push_back({std::string(kind), ts, std::string(msg), {}});
    } else if (!events_.empty() && events_.back().context.size() < kContextLines) {
        events_.back().context.emplace_back(msg);
    }
}

void KmsgWatcher::loop() {
    char buf[8192];
    for (;;) {
        pollfd fds[2] = {{kmsg_.get(), POLLIN, 0}, {stop_.get(), POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0 && errno != EINTR)
            return;
        if (fds[1].revents)
            return;
        for (;;) {
            ssize_t n = ::read(kmsg_.get(), buf, sizeof buf);
            if (n < 0 && errno == EPIPE)
                continue; // overwritten while we slept: skip ahead
            if (n <= 0)
                break;
            take(std::string_view(buf, static_cast<size_t>(n)));
        }
    }
}

std::vector<KmsgEvent> KmsgWatcher::drain() {
    std::lock_guard lock(mu_);
    return std::exchange(events_, {});
}

} // namespace initbench
