#include "bpf/perf/perf_counters.h"

#include "common/text.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace initbench {
namespace {

int perf_event_open(const PerfEventSpec& spec, const CounterTarget& target, pid_t pid, int cpu) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = spec.type;
    attr.config = spec.config;
    attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    attr.disabled = 1;
    attr.inherit = target.inherit ? 1 : 0;
    attr.enable_on_exec = target.enable_on_exec ? 1 : 0;
    attr.exclude_user = spec.exclude_user ? 1 : 0;
    attr.exclude_kernel = spec.exclude_kernel ? 1 : 0;
    return static_cast<int>(
        ::syscall(SYS_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

std::optional<PerfReading> read_counter(const Fd& fd) {
    uint64_t buf[3];
    if (::read(fd.get(), buf, sizeof buf) != static_cast<ssize_t>(sizeof buf))
        return std::nullopt;
    return PerfReading{buf[0], buf[1], buf[2]};
}

nlohmann::json count_json(const ScaledCount& c) {
    return c.counted ? nlohmann::json(c.value) : nlohmann::json(nullptr);
}

} // namespace

std::string errno_text(int err) {
    return std::string(std::strerror(err)) + " (errno " + std::to_string(err) + ")";
}

CounterSet CounterSet::open(const std::vector<PerfEventSpec>& events, const CounterTarget& target) {
    CounterSet set;
    set.system_ = !target.cpus.empty();
    for (const auto& spec : events) {
        Counter c;
        c.spec = &spec;
        if (set.system_) {
            for (unsigned cpu : target.cpus) {
                Fd fd(perf_event_open(spec, target, -1, static_cast<int>(cpu)));
                if (!fd.valid()) {
                    c.open_errno = errno;
                    c.fds.clear();
                    break;
                }
                c.fds.push_back(std::move(fd));
            }
        } else {
            Fd fd(perf_event_open(spec, target, target.pid, -1));
            if (fd.valid())
                c.fds.push_back(std::move(fd));
            else
                c.open_errno = errno;
        }
        set.counters_.push_back(std::move(c));
    }
    return set;
}

void CounterSet::enable() {
    for (auto& c : counters_)
        for (auto& fd : c.fds)
            ::ioctl(fd.get(), PERF_EVENT_IOC_ENABLE, 0);
}

void CounterSet::disable() {
    for (auto& c : counters_)
        for (auto& fd : c.fds)
            ::ioctl(fd.get(), PERF_EVENT_IOC_DISABLE, 0);
}

std::vector<CounterValue> CounterSet::read() const {
    std::vector<CounterValue> out;
    for (const auto& c : counters_) {
        CounterValue v;
        v.spec = c.spec;
        v.open_errno = c.open_errno;
        std::vector<PerfReading> readings;
        for (const auto& fd : c.fds) {
            // An unreadable counter stays "not counted" rather than becoming a 0.
            auto r = read_counter(fd).value_or(PerfReading{});
            readings.push_back(r);
            if (system_)
                v.per_cpu.push_back(scale_reading(r));
        }
        if (!c.fds.empty())
            v.total = scale_reading(sum_readings(readings));
        out.push_back(std::move(v));
    }
    return out;
}

bool CounterSet::any_open() const {
    for (const auto& c : counters_)
        if (!c.fds.empty())
            return true;
    return false;
}

int CounterSet::first_errno() const {
    return counters_.empty() ? 0 : counters_.front().open_errno;
}

nlohmann::json unsupported_counter_json(const PerfEventSpec& spec, int err) {
    return {{"event", spec.name},
            {"supported", false},
            {"errno", err},
            {"reason", "not supported: " + errno_text(err)}};
}

nlohmann::json counter_json(const PerfEventSpec& spec,
                            const std::optional<DerivedMetric>& derived) {
    nlohmann::json c{
        {"event", spec.name}, {"supported", true}, {"unit", spec.is_clock() ? "ns" : ""}};
    if (derived)
        c["derived"] = {{"value", derived->value}, {"unit", derived->unit}};
    return c;
}

nlohmann::json counters_json(const std::vector<CounterValue>& values, double elapsed_s) {
    std::vector<EventMean> means;
    for (const auto& v : values)
        means.push_back({v.spec, v.total.counted ? std::optional<double>(double(v.total.value))
                                                 : std::nullopt});
    const auto derived = derive_metrics(means, elapsed_s);
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < values.size(); ++i) {
        const CounterValue& v = values[i];
        if (v.open_errno) {
            out.push_back(unsupported_counter_json(*v.spec, v.open_errno));
            continue;
        }
        nlohmann::json c = counter_json(*v.spec, derived[i]);
        c["counted"] = v.total.counted;
        if (!v.total.counted) {
            c["reason"] = kNotCounted;
        } else {
            c["value"] = v.total.value;
            c["running_pct"] = v.total.running_pct;
        }
        if (!v.per_cpu.empty()) {
            nlohmann::json per_cpu = nlohmann::json::array();
            for (const auto& p : v.per_cpu)
                per_cpu.push_back(count_json(p));
            c["per_cpu"] = std::move(per_cpu);
        }
        out.push_back(std::move(c));
    }
    return out;
}

void add_counter_metrics(RecordBuilder& b, const nlohmann::json& counters, MetricName value_metric,
                         const char* value_key) {
    for (const auto& c : counters) {
        if (!c.value("supported", false))
            continue;
        const std::string event = c.value("event", ""), unit = c.value("unit", "");
        b.metric(value_metric, c.value(value_key, nlohmann::json()), {event}, unit);
        if (const auto d = c.find("derived"); d != c.end() && d->is_object()) {
            const std::string derived_unit = d->value("unit", "");
            b.metric("counters.*.derived.value", d->value("value", nlohmann::json()), {event},
                     derived_unit, derived_better(derived_unit));
        }
    }
}

std::vector<PerfEventSpec> configured_events(const Config& config) {
    return expand_perf_items(config.list("perf"));
}

std::vector<unsigned> online_cpu_list() {
    auto text = read_file("/sys/devices/system/cpu/online");
    if (text)
        if (auto cpus = parse_cpu_list(trim(text.value())))
            return *cpus;
    std::vector<unsigned> cpus;
    const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
    for (long i = 0; i < std::max(n, 1L); ++i)
        cpus.push_back(static_cast<unsigned>(i));
    return cpus;
}

} // namespace initbench
