#include "init/commands.h"

#include "common/external_load.h"
#include "common/perf_events.h"
#include "common/record_types.h"
#include "common/text.h"
#include "bpf/perf/perf_counters.h"
#include "sys/child.h"
#include "sys/modules.h"

#include <algorithm>
#include <csignal>
#include <fcntl.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace initbench {
namespace {

constexpr const char* kOutputPath = "/tmp/initbench-command.out";
constexpr size_t kOutputTail = 2048; // bytes of the last run's output kept in the record
constexpr const char* kPath = "PATH=" INITBENCH_GUEST_PATH;

// Every run's counts of every event, for the record: per-run values, mean and spread.
class RunSeries {
public:
    explicit RunSeries(const std::vector<PerfEventSpec>& events)
        : events_(events), per_event_(events.size()) {}

    void add(const std::vector<CounterValue>& values, double elapsed_s) {
        elapsed_.push_back(elapsed_s);
        for (size_t i = 0; i < values.size() && i < per_event_.size(); ++i) {
            Event& e = per_event_[i];
            const CounterValue& v = values[i];
            if (v.open_errno) {
                e.open_errno = v.open_errno;
                e.values.push_back(nullptr);
                continue;
            }
            e.opened = true;
            e.values.push_back(v.total.counted ? nlohmann::json(v.total.value)
                                               : nlohmann::json(nullptr));
            if (!v.total.counted)
                continue;
            e.counted.push_back(double(v.total.value));
            e.running_pct.push_back(v.total.running_pct);
            e.per_cpu_sum.resize(std::max(e.per_cpu_sum.size(), v.per_cpu.size()));
            for (size_t c = 0; c < v.per_cpu.size(); ++c)
                e.per_cpu_sum[c] += double(v.per_cpu[c].value);
        }
    }

    nlohmann::json elapsed_json() const {
        nlohmann::json j = stats_json(run_stats(elapsed_));
        j["values"] = elapsed_;
        j["unit"] = "s";
        return j;
    }

    nlohmann::json counters_json() const {
        const RunStats elapsed = run_stats(elapsed_);
        std::vector<EventMean> means;
        for (size_t i = 0; i < events_.size(); ++i) {
            const auto& c = per_event_[i].counted;
            means.push_back(
                {&events_[i], c.empty() ? std::nullopt : std::optional<double>(run_stats(c).mean)});
        }
        const auto derived = derive_metrics(means, elapsed.mean);
        nlohmann::json out = nlohmann::json::array();
        for (size_t i = 0; i < events_.size(); ++i) {
            const Event& e = per_event_[i];
            if (!e.opened) {
                out.push_back(unsupported_counter_json(events_[i], e.open_errno));
                continue;
            }
            nlohmann::json c = counter_json(events_[i], derived[i]);
            c["values"] = e.values;
            c["counted_runs"] = e.counted.size();
            if (e.counted.empty()) {
                c["reason"] = kNotCounted;
            } else {
                c.update(stats_json(run_stats(e.counted)));
                c["running_pct"] = run_stats(e.running_pct).mean;
            }
            if (!e.per_cpu_sum.empty()) {
                nlohmann::json per_cpu = nlohmann::json::array();
                for (double sum : e.per_cpu_sum)
                    per_cpu.push_back(sum / double(std::max<size_t>(e.counted.size(), 1)));
                c["per_cpu_mean"] = std::move(per_cpu);
            }
            out.push_back(std::move(c));
        }
        return out;
    }

private:
    struct Event {
        bool opened = false;
        int open_errno = 0;
        nlohmann::json values = nlohmann::json::array(); // per run: count or null
        std::vector<double> counted, running_pct, per_cpu_sum;
    };

    static nlohmann::json stats_json(const RunStats& s) {
        nlohmann::json j{{"mean", s.mean}};
        if (s.n >= 2) {
            j["stddev"] = s.stddev;
            j["rel_stderr_pct"] = s.rel_stderr_pct;
        }
        return j;
    }

    const std::vector<PerfEventSpec>& events_;
    std::vector<Event> per_event_;
    std::vector<double> elapsed_;
};

// What every kind of measured item shares: the events, where they count, pinning.
struct Plan {
    std::vector<PerfEventSpec> events;
    bool system = false;
    std::vector<unsigned> cpus; // counted system-wide
    std::optional<cpu_set_t> pin;
    nlohmann::json pin_json = nullptr;
    uint64_t repeat = 1;

    CounterTarget target(pid_t pid, bool inherit, bool on_exec) const {
        CounterTarget t;
        if (system) {
            t.cpus = cpus;
        } else {
            t.pid = pid, t.inherit = inherit, t.enable_on_exec = on_exec;
        }
        return t;
    }
    nlohmann::json record(const char* kind) const {
        return {{"type", "command"},
                {"kind", kind},
                {"repeat", repeat},
                {"pin", pin_json},
                {"scope", system ? "system" : "task"}};
    }
};

// The command's own descendants that outlived it: its process group is killed and reaped
// (only it: a background payload is a child of the init too); anything still unreaped after
// a second is left to the next reap.
void reap_strays(pid_t pgid) {
    ::kill(-pgid, SIGKILL);
    const double deadline = monotonic_seconds() + 1;
    int status;
    while (monotonic_seconds() < deadline) {
        pid_t pid = ::waitpid(-pgid, &status, WNOHANG);
        if (pid < 0 && errno == ECHILD)
            return;
        if (pid <= 0)
            ::usleep(1000);
    }
}

// The record's metrics: the elapsed time's and each counter's mean over the runs.
void add_metrics(nlohmann::json& rec, const RecordType& type) {
    RecordBuilder b(type, rec);
    b.metric("elapsed_s.mean", rec["elapsed_s"].value("mean", nlohmann::json()));
    add_counter_metrics(b, rec["counters"], "counters.*.mean", "mean");
}

struct CommandRun {
    double elapsed_s = 0;
    int status = 0;
    int exec_errno = 0;
    std::vector<CounterValue> values;
};

class CommandRunner {
public:
    CommandRunner(const Plan& plan, std::vector<std::string> argv, std::string path)
        : plan_(plan), argv_(std::move(argv)), path_(std::move(path)) {
        for (auto& a : argv_)
            cargv_.push_back(a.data());
        cargv_.push_back(nullptr);
    }

    Result<CommandRun> run_once() {
        int go[2], report[2];
        if (::pipe2(go, O_CLOEXEC) != 0 || ::pipe2(report, O_CLOEXEC) != 0)
            return errno_error("pipe2");
        Fd go_read(go[0]), go_write(go[1]), report_read(report[0]), report_write(report[1]);
        // Everything the child needs is made before fork: init has threads, so the child
        // may only make async-signal-safe calls.
        const int out_fd = ::open(kOutputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        Fd output(out_fd >= 0 ? out_fd : ::open("/dev/null", O_WRONLY | O_CLOEXEC));
        Fd null_in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
        const pid_t pid = ::fork();
        if (pid < 0)
            return errno_error("fork");
        if (pid == 0)
            exec_child(go_read.get(), go_write.get(), report_write.get(), null_in.get(),
                       output.get());
        go_read.reset();
        report_write.reset();
        ::setpgid(pid, pid);

        CommandRun run;
        CounterSet counters = CounterSet::open(plan_.events, plan_.target(pid, true, true));
        if (plan_.system)
            counters.enable();
        const double t0 = monotonic_seconds();
        go_write.reset(); // the child execs now; task counters start at its exec
        run.exec_errno = exec_errno(report_read.get());
        while (::waitpid(pid, &run.status, 0) < 0 && errno == EINTR) {
        }
        run.elapsed_s = monotonic_seconds() - t0;
        if (plan_.system)
            counters.disable();
        reap_strays(pid); // inherited counts fold in as these tasks exit
        run.values = counters.read();
        return run;
    }

private:
    [[noreturn]] void exec_child(int go, int go_write, int report, int in, int out) {
        ::close(go_write); // or the wait for the go below never ends
        enter_child({.pgid = 0, .in = in, .out = out, .err = out, .die_with_parent = true});
        if (plan_.pin)
            ::sched_setaffinity(0, sizeof(cpu_set_t), &*plan_.pin);
        char c;
        while (::read(go, &c, 1) < 0 && errno == EINTR) {
        }
        static const char* const env[] = {kPath, "HOME=/root", "TERM=linux", nullptr};
        ::execve(path_.c_str(), cargv_.data(), const_cast<char* const*>(env));
        exec_failed(report);
    }

    const Plan& plan_;
    std::vector<std::string> argv_;
    std::vector<char*> cargv_;
    std::string path_;
};

std::string output_tail() {
    std::string text = read_file(kOutputPath, 1 << 20).value_or("");
    return text.size() > kOutputTail ? text.substr(text.size() - kOutputTail) : text;
}

bool run_command(const Plan& plan, const std::string& text, Console& console) {
    std::vector<std::string> argv;
    split_command(text, argv); // the key's check already refused a bad one
    const std::string path = resolve_program(argv[0]);
    if (path.empty()) {
        console.error("cmd", "'" + argv[0] + "' not found in " + std::string(kPath + 5), "cmd");
        return false;
    }
    CommandRunner runner(plan, argv, path);
    RunSeries series(plan.events);
    nlohmann::json runs = nlohmann::json::array();
    unsigned failed = 0;
    std::string first_failure;
    for (uint64_t i = 0; i < plan.repeat; ++i) {
        auto run = runner.run_once();
        if (!run) {
            console.error("cmd", run.error().message(), "cmd");
            return false;
        }
        if (run.value().exec_errno) {
            console.error(
                "cmd", "cannot execute " + path + ": " + errno_text(run.value().exec_errno), "cmd");
            return false;
        }
        const int status = run.value().status;
        series.add(run.value().values, run.value().elapsed_s);
        nlohmann::json r{{"elapsed_s", run.value().elapsed_s}};
        const bool signaled = WIFSIGNALED(status);
        const int code = signaled ? WTERMSIG(status) : WEXITSTATUS(status);
        r[signaled ? "signal" : "exit"] = code;
        if (status != 0 && failed++ == 0)
            first_failure = (signaled ? "signal " : "exit status ") + std::to_string(code);
        runs.push_back(std::move(r));
    }
    if (failed)
        console.warning("cmd", "the command failed in " + std::to_string(failed) + " of " +
                                   std::to_string(plan.repeat) + " runs; first: " + first_failure);
    nlohmann::json rec = plan.record("exec");
    rec["command"] = text;
    rec["argv"] = argv;
    rec["path"] = path;
    rec["runs"] = std::move(runs);
    rec["elapsed_s"] = series.elapsed_json();
    rec["counters"] = series.counters_json();
    add_metrics(rec, declared_type("command", "exec"));
    rec["output"] = output_tail();
    console.emit(std::move(rec));
    return true;
}

bool run_module(const Plan& plan, const std::string& path, const std::string& params,
                Console& console) {
    auto file = open_fd(path, O_RDONLY);
    if (!file) {
        std::string why = file.error().message();
        if (path.rfind("/payload/", 0) == 0 && ::access(path.c_str(), F_OK) != 0)
            why += ": it is not in the image (initbench pack --add FILE.ko:" + path + ")";
        console.error("module", why, "module");
        return false;
    }
    const std::vector<std::string> before = loaded_modules();
    RunSeries series(plan.events);
    nlohmann::json runs = nlohmann::json::array();
    nlohmann::json params_read = nullptr;
    std::string name;
    unsigned failed = 0;
    int first_errno = 0;
    bool ok = true;
    for (uint64_t i = 0; i < plan.repeat; ++i) {
        cpu_set_t saved;
        if (plan.pin) {
            ::sched_getaffinity(0, sizeof saved, &saved);
            ::sched_setaffinity(0, sizeof(cpu_set_t), &*plan.pin);
        }
        // The module's init runs in this thread, inside finit_module: count this thread.
        CounterSet counters = CounterSet::open(plan.events, plan.target(0, false, false));
        counters.enable();
        const double t0 = monotonic_seconds();
        const long rc = ::syscall(SYS_finit_module, file.value().get(), params.c_str(), 0);
        const int err = rc == 0 ? 0 : errno;
        const double elapsed = monotonic_seconds() - t0;
        counters.disable();
        if (plan.pin)
            ::sched_setaffinity(0, sizeof saved, &saved);
        series.add(counters.read(), elapsed);

        nlohmann::json r{{"elapsed_s", elapsed}, {"loaded", rc == 0}};
        if (rc != 0) {
            r["errno"] = err;
            r["error"] = std::strerror(err);
            if (failed++ == 0)
                first_errno = err;
            runs.push_back(std::move(r));
            continue;
        }
        if (name.empty())
            name = new_module_name(before, path);
        if (params_read.is_null())
            params_read = module_parameters(name);
        const double u0 = monotonic_seconds();
        const bool unloaded = ::syscall(SYS_delete_module, name.c_str(), O_NONBLOCK) == 0;
        const int unload_errno = unloaded ? 0 : errno;
        r["unloaded"] = unloaded;
        r["unload_s"] = monotonic_seconds() - u0;
        runs.push_back(std::move(r));
        if (!unloaded) {
            console.error("module",
                          "cannot unload " + name + ": " + errno_text(unload_errno) +
                              "; no further repeats",
                          "module");
            ok = false;
            break;
        }
    }
    if (failed)
        console.warning("module", "finit_module failed in " + std::to_string(failed) + " of " +
                                      std::to_string(runs.size()) +
                                      " runs; first: " + errno_text(first_errno));
    nlohmann::json rec = plan.record("module");
    rec["module"] = path;
    rec["params"] = params;
    rec["module_name"] = name.empty() ? nlohmann::json(nullptr) : nlohmann::json(name);
    rec["params_read"] = params_read;
    rec["runs"] = std::move(runs);
    rec["elapsed_s"] = series.elapsed_json();
    rec["counters"] = series.counters_json();
    add_metrics(rec, declared_type("command", "module"));
    console.emit(std::move(rec));
    return ok;
}

// The shared plan, or an error record and nothing.
std::optional<Plan> make_plan(const Config& config, Console& console) {
    Plan plan;
    plan.events = configured_events(config);
    if (plan.events.empty()) // like `perf stat CMD`: its default set
        plan.events = expand_perf_items({"default"});
    plan.system = config.str("perf.scope") == "system";
    const std::vector<unsigned> online = online_cpu_list();
    if (plan.system)
        plan.cpus = online;
    plan.repeat = config.uint("repeat");
    if (const std::string pin = config.str("pin"); !pin.empty()) {
        const auto cpus = parse_cpu_list(pin).value_or(std::vector<unsigned>{});
        cpu_set_t set;
        CPU_ZERO(&set);
        for (unsigned cpu : cpus) {
            if (std::find(online.begin(), online.end(), cpu) == online.end()) {
                console.error("pin", "CPU " + std::to_string(cpu) + " is not online", "pin");
                return std::nullopt;
            }
            CPU_SET(cpu, &set);
        }
        plan.pin = set;
        plan.pin_json = cpus;
    }
    return plan;
}

void drain_kernel_events(KmsgWatcher& kmsg, Console& console, const char* kind) {
    for (const auto& ev : kmsg.drain()) {
        nlohmann::json r = ev.to_json();
        r["type"] = "kernel";
        r["command"] = kind;
        console.emit(std::move(r));
    }
}

} // namespace

const char* command_path_env() {
    return kPath;
}

std::string resolve_program(const std::string& name) {
    if (name.find('/') != std::string::npos)
        return name;
    std::string_view dirs = kPath + 5;
    while (!dirs.empty()) {
        const size_t colon = std::min(dirs.find(':'), dirs.size());
        std::string path = std::string(dirs.substr(0, colon)) + "/" + name;
        if (::access(path.c_str(), X_OK) == 0)
            return path;
        dirs.remove_prefix(std::min(colon + 1, dirs.size()));
    }
    return {};
}

bool run_commands(const Config& config, Console& console, KmsgWatcher& kmsg,
                  ExperimentTimes& times) {
    const std::string module = config.str("module"), params = config.str("module.params");
    if (module.empty() && !params.empty()) {
        console.error("module.params", "module parameters without initbench.module",
                      "module.params");
        return false;
    }
    auto plan = make_plan(config, console);
    if (!plan)
        return false;
    bool ok = true;
    times.first_phase_start = monotonic_seconds();
    if (!module.empty()) {
        ok = run_module(*plan, module, params, console) && ok;
        drain_kernel_events(kmsg, console, "module");
    }
    if (const std::string cmd = config.str("cmd"); !cmd.empty()) {
        ok = run_command(*plan, cmd, console) && ok;
        drain_kernel_events(kmsg, console, "exec");
    }
    times.last_phase_end = monotonic_seconds();
    return ok;
}

} // namespace initbench
