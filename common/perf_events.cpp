#include "common/perf_events.h"

#include "common/statistics.h"
#include "common/text.h"

#include <algorithm>
#include <cmath>
#include <linux/perf_event.h>

namespace initbench {
namespace {

struct NamedEvent {
    std::string_view name;
    uint32_t type;
    uint64_t config;
};

// perf's own names (tools/perf/util/parse-events.c), canonical first, then its aliases.
constexpr NamedEvent kNamedEvents[] = {
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
    {"cgroup-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CGROUP_SWITCHES},
    {"dummy", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
};

struct Alias {
    std::string_view alias, name;
};
constexpr Alias kAliases[] = {
    {"cs", "context-switches"},
    {"migrations", "cpu-migrations"},
    {"faults", "page-faults"},
    {"cpu-cycles", "cycles"},
    {"branch-instructions", "branches"},
    {"idle-cycles-frontend", "stalled-cycles-frontend"},
    {"idle-cycles-backend", "stalled-cycles-backend"},
};

constexpr std::string_view kCaches[] = {"L1-dcache", "L1-icache", "LLC", "dTLB",
                                        "iTLB",      "branch",    "node"}; // PERF_COUNT_HW_CACHE_*
struct CacheOp {
    std::string_view access, miss;
};
constexpr CacheOp kCacheOps[] = {{"loads", "load-misses"},
                                 {"stores", "store-misses"},
                                 {"prefetches", "prefetch-misses"}}; // PERF_COUNT_HW_CACHE_OP_*

bool same_text(std::string_view a, std::string_view b) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                              [&](char x, char y) { return lower(x) == lower(y); });
}

bool parse_cache_event(std::string_view text, PerfEventSpec& out) {
    for (size_t cache = 0; cache < std::size(kCaches); ++cache) {
        const std::string_view c = kCaches[cache];
        if (text.size() <= c.size() + 1 || !same_text(text.substr(0, c.size()), c) ||
            text[c.size()] != '-')
            continue;
        const std::string_view rest = text.substr(c.size() + 1);
        for (size_t op = 0; op < std::size(kCacheOps); ++op) {
            for (int miss = 0; miss < 2; ++miss) {
                const std::string_view suffix = miss ? kCacheOps[op].miss : kCacheOps[op].access;
                if (!same_text(rest, suffix))
                    continue;
                out.type = PERF_TYPE_HW_CACHE;
                out.config = cache | (op << 8) | (uint64_t(miss) << 16);
                out.base = std::string(c) + "-" + std::string(suffix);
                return true;
            }
        }
    }
    return false;
}

bool parse_raw_event(std::string_view text, PerfEventSpec& out) {
    if (text.size() < 2 || text.size() > 17 || text[0] != 'r')
        return false;
    uint64_t v = 0;
    for (char c : text.substr(1)) {
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return false;
        v = v << 4 | uint64_t(d);
    }
    out.type = PERF_TYPE_RAW;
    out.config = v;
    out.base = std::string(text);
    return true;
}

const PerfEventSpec* find_event(const std::vector<EventMean>& events, std::string_view base,
                                std::string_view modifiers, double& mean) {
    for (const auto& e : events)
        if (e.spec && e.mean && e.spec->base == base && e.spec->modifiers == modifiers) {
            mean = *e.mean;
            return e.spec;
        }
    return nullptr;
}

} // namespace

bool PerfEventSpec::is_clock() const {
    return type == PERF_TYPE_SOFTWARE &&
           (config == PERF_COUNT_SW_TASK_CLOCK || config == PERF_COUNT_SW_CPU_CLOCK);
}

const std::vector<std::string_view>& default_perf_events() {
    static const std::vector<std::string_view> names = {
        "task-clock", "context-switches", "cpu-migrations", "page-faults",
        "cycles",     "instructions",     "branches",       "branch-misses"};
    return names;
}

std::string parse_perf_event(std::string_view text, PerfEventSpec& out) {
    PerfEventSpec spec;
    std::string_view base = text;
    if (size_t colon = text.find(':'); colon != std::string_view::npos) {
        spec.modifiers = std::string(text.substr(colon + 1));
        base = text.substr(0, colon);
        if (spec.modifiers == "u")
            spec.exclude_kernel = true;
        else if (spec.modifiers == "k")
            spec.exclude_user = true;
        else
            return "unknown modifier ':" + spec.modifiers + "' (known: :u, :k)";
    }
    for (const auto& a : kAliases)
        if (same_text(base, a.alias))
            base = a.name;
    bool found = false;
    for (const auto& e : kNamedEvents)
        if (same_text(base, e.name)) {
            spec.type = e.type, spec.config = e.config, spec.base = std::string(e.name);
            found = true;
        }
    if (!found && !parse_cache_event(base, spec) && !parse_raw_event(base, spec))
        return "unknown perf event (a perf stat name such as task-clock, cycles, "
               "L1-dcache-load-misses, or a raw rNNNN)";
    spec.name = spec.modifiers.empty() ? spec.base : spec.base + ":" + spec.modifiers;
    out = std::move(spec);
    return "";
}

std::string check_perf_item(std::string_view item) {
    if (item == "default")
        return "";
    PerfEventSpec ignored;
    return parse_perf_event(item, ignored);
}

std::vector<PerfEventSpec> expand_perf_items(const std::vector<std::string>& items) {
    std::vector<PerfEventSpec> out;
    auto add = [&](std::string_view name) {
        PerfEventSpec spec;
        if (!parse_perf_event(name, spec).empty())
            return;
        for (const auto& have : out)
            if (have.name == spec.name)
                return;
        out.push_back(std::move(spec));
    };
    for (const auto& item : items) {
        if (item == "default")
            for (auto name : default_perf_events())
                add(name);
        else
            add(item);
    }
    return out;
}

ScaledCount scale_reading(const PerfReading& r) {
    ScaledCount s;
    if (r.time_running == 0 || r.time_enabled == 0)
        return s;
    s.counted = true;
    s.running_pct = 100.0 * double(r.time_running) / double(r.time_enabled);
    s.value = r.time_running >= r.time_enabled
                  ? r.value
                  : uint64_t(std::llround(double(r.value) * double(r.time_enabled) /
                                          double(r.time_running)));
    return s;
}

PerfReading sum_readings(const std::vector<PerfReading>& per_cpu) {
    PerfReading sum;
    for (const auto& r : per_cpu) {
        sum.value += r.value;
        sum.time_enabled += r.time_enabled;
        sum.time_running += r.time_running;
    }
    return sum;
}

RunStats run_stats(const std::vector<double>& values) {
    RunStats s;
    s.n = values.size();
    if (s.n == 0)
        return s;
    s.mean = arithmetic_mean(values);
    if (s.n < 2)
        return s;
    s.stddev = sample_stddev(values, s.mean);
    if (s.mean != 0)
        s.rel_stderr_pct = 100.0 * s.stddev / std::sqrt(double(s.n)) / std::fabs(s.mean);
    return s;
}

std::string_view derived_better(std::string_view unit) {
    return unit == "insn per cycle" || unit == "GHz" || unit == "CPUs utilized" ? "higher" : "lower";
}

std::vector<std::optional<DerivedMetric>> derive_metrics(const std::vector<EventMean>& events,
                                                         double elapsed_s) {
    std::vector<std::optional<DerivedMetric>> out(events.size());
    for (size_t i = 0; i < events.size(); ++i) {
        const EventMean& e = events[i];
        if (!e.spec || !e.mean)
            continue;
        const std::string& base = e.spec->base;
        const std::string& mods = e.spec->modifiers;
        const double v = *e.mean;
        double other = 0;
        auto ratio = [&](std::string_view of, double factor, std::string unit) {
            if (find_event(events, of, mods, other) && other > 0)
                out[i] = DerivedMetric{factor * v / other, std::move(unit)};
        };
        if (e.spec->is_clock()) {
            if (elapsed_s > 0)
                out[i] = DerivedMetric{v / (elapsed_s * 1e9), "CPUs utilized"};
        } else if (base == "cycles") {
            ratio("task-clock", 1, "GHz");
            if (!out[i])
                ratio("cpu-clock", 1, "GHz");
        } else if (base == "instructions") {
            ratio("cycles", 1, "insn per cycle");
        } else if (base == "branch-misses") {
            ratio("branches", 100, "% of all branches");
        } else if (base == "cache-misses") {
            ratio("cache-references", 100, "% of all cache refs");
        } else if (base == "stalled-cycles-frontend") {
            ratio("cycles", 100, "% frontend cycles idle");
        } else if (base == "stalled-cycles-backend") {
            ratio("cycles", 100, "% backend cycles idle");
        } else if (e.spec->type == PERF_TYPE_HW_CACHE && e.spec->config >> 16 == 1) {
            std::string access = base;
            for (const auto& op : kCacheOps)
                if (access.ends_with(op.miss))
                    access.replace(access.size() - op.miss.size(), op.miss.size(), op.access);
            const std::string cache = base.substr(0, base.rfind('-', base.rfind('-') - 1));
            ratio(access, 100, "% of all " + cache + " accesses");
        } else {
            ratio("task-clock", 1e9, "/sec");
            if (!out[i])
                ratio("cpu-clock", 1e9, "/sec");
        }
    }
    return out;
}

std::optional<std::vector<unsigned>> parse_cpu_list(std::string_view text) {
    constexpr unsigned kMaxCpu = 4095;
    std::vector<unsigned> cpus;
    auto number = [](std::string_view s) -> std::optional<unsigned> {
        if (s.empty() || s.size() > 4 ||
            s.find_first_not_of("0123456789") != std::string_view::npos)
            return std::nullopt;
        unsigned v = 0;
        for (char c : s)
            v = v * 10 + unsigned(c - '0');
        return v <= kMaxCpu ? std::optional<unsigned>(v) : std::nullopt;
    };
    if (text.empty())
        return std::nullopt;
    for (std::string_view item : split_on(text, ',')) {
        const size_t dash = item.find('-');
        auto first = number(item.substr(0, dash));
        auto last = dash == std::string_view::npos ? first : number(item.substr(dash + 1));
        if (!first || !last || *first > *last)
            return std::nullopt;
        for (unsigned c = *first; c <= *last; ++c)
            if (std::find(cpus.begin(), cpus.end(), c) == cpus.end())
                cpus.push_back(c);
    }
    std::sort(cpus.begin(), cpus.end());
    return cpus;
}

std::string check_cpu_list(std::string_view text) {
    return parse_cpu_list(text) ? "" : "not a CPU list (like 0, 2-3 or 0,4-7)";
}

std::string split_command(std::string_view text, std::vector<std::string>& argv) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (char c : text) {
        if (quote) {
            if (c == quote)
                quote = 0;
            else
                word += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            in_word = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word)
                words.push_back(std::move(word));
            word.clear();
            in_word = false;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (quote)
        return std::string("unbalanced ") + quote + " quote";
    if (in_word)
        words.push_back(std::move(word));
    if (words.empty())
        return "empty command";
    argv = std::move(words);
    return "";
}

std::string check_command(std::string_view text) {
    std::vector<std::string> ignored;
    return split_command(text, ignored);
}

} // namespace initbench
