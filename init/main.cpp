// initbench's PID 1. main() owns the one rule of PID 1 — never return, never let an
// exception escape — and turns every failure into an error record, the end record and the
// configured end of the machine.
#include "bpf/core/libbpf_log.h"
#include "common/machine.h"
#include "init/bringup.h"
#include "init/console.h"
#include "init/ending.h"
#include "init/experiment.h"
#include "init/identity.h"
#include "init/kmsg.h"
#include "init/settings.h"
#include "init/watchdog.h"
#include "initbench_build.h"

#include <cmath>
#include <csignal>
#include <sys/klog.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include <utility>
#include <vector>

#ifndef INITBENCH_VERSION
#define INITBENCH_VERSION "unknown"
#endif

namespace initbench {
namespace {

struct Run {
    Console console;
    double start_mono = monotonic_seconds();
    double start_boot = boottime_seconds();
    EndAction end = EndAction::poweroff;
    std::string status = "ok";
    ExperimentTimes times;
    double experiment_end = 0; // monotonic seconds: run_experiment returned, its probes detached
    // Monotonic seconds when each start-up step ended, for overhead.startup.
    std::vector<std::pair<const char*, double>> marks;
    void mark(const char* step) { marks.emplace_back(step, monotonic_seconds()); }
};

void emit_header(Run& run, const nlohmann::json& config_json) {
    run.console.emit({{"type", "header"},
                      {"run_id", random_run_id()},
                      {"initbench", INITBENCH_VERSION},
                      {"initbench_commit", INITBENCH_BUILD_COMMIT},
                      {"arch", INITBENCH_ARCH},
                      {"kernel", kernel_identity(run.start_boot)},
                      {"consoles", run.console.names()},
                      {"config", config_json}});
}

void finish(Run& run) {
    double now = monotonic_seconds();
    nlohmann::json overhead{{"run_s", now - run.start_mono}};
    if (run.times.first_phase_start > 0) {
        overhead["init_to_first_phase_s"] = run.times.first_phase_start - run.start_mono;
        overhead["probe_setup_s"] = run.times.probe_setup_s;
        if (!run.times.probe_setup.is_null())
            overhead["probe_setup"] = run.times.probe_setup;
        if (!run.times.probe_cost.is_null())
            overhead["probe_cost"] = run.times.probe_cost;
        // init_to_first_phase_s step by step: each mark's time since the one before.
        nlohmann::json startup = nlohmann::json::object();
        double last = run.start_mono;
        auto step = [&](const std::string& name, double t) {
            if (t > 0) {
                startup[name + "_s"] = std::round((t - last) * 1e6) / 1e6;
                last = t;
            }
        };
        for (const auto& [name, t] : run.marks)
            step(name, t);
        step("plan", run.times.probes_start);
        step("probes", run.times.probes_start + run.times.probe_setup_s);
        step("to_first_phase", run.times.first_phase_start);
        overhead["startup"] = startup;
    }
    // After the last phase, step by step: the summary, then the probes' detach and the
    // loads' and background's clean-up (run_experiment's return), then this record.
    if (run.times.summary_end > 0 && run.experiment_end > 0)
        overhead["ending"] = {{"summary_s", run.times.summary_end - run.times.last_phase_end},
                              {"teardown_s", run.experiment_end - run.times.summary_end},
                              {"to_end_record_s", now - run.experiment_end}};
    run.console.end({{"status", run.status}, {"overhead", overhead},
                     {"console_bytes", run.console.bytes_written()}});
}

void run_init(Run& run) {
    BringupReport bringup = bring_up();
    run.mark("bring_up");
    run.console.open_all();
    install_libbpf_logger();
    run.mark("console");

    std::string cmdline = read_file("/proc/cmdline").value_or("");
    ConfigResult cfg = load_settings(cmdline);
    run.end = end_action_from(cfg.config.str("end"));
    run.console.set_summary_format(cfg.config.str("format"));
    // Kernel chatter on the console can land inside a record line: quieten it before the
    // first record (a refused value keeps the default level); the interesting kernel
    // messages are read from /dev/kmsg and reported as records.
    ::klogctl(8 /* SYSLOG_ACTION_CONSOLE_LEVEL */, nullptr, static_cast<int>(cfg.config.uint("loglevel")));
    run.mark("settings");
    emit_header(run, cfg.config.to_json());
    run.mark("header");

    for (const auto& f : bringup.failures) {
        if (f.essential)
            run.console.error("bring-up " + f.step, f.error.message());
        else
            run.console.warning("bring-up " + f.step, f.error.message());
    }
    if (bringup.fatal()) {
        run.status = "error";
        return;
    }
    if (!cfg.errors.empty()) {
        for (const auto& e : cfg.errors) {
            nlohmann::json r = e.to_json();
            r["type"] = "error";
            r["what"] = "config";
            run.console.emit(std::move(r));
        }
        run.status = "error";
        return;
    }

    // A lab board, or a QEMU sized by hand, may not be the machine the experiment names.
    if (struct sysinfo si {}; ::sysinfo(&si) == 0) {
        const uint64_t memory_mb = uint64_t(si.totalram) * si.mem_unit / (1024 * 1024);
        const auto cpus = static_cast<unsigned>(::sysconf(_SC_NPROCESSORS_ONLN));
        if (std::string why = machine_mismatch(cfg.config, cpus, memory_mb); !why.empty())
            run.console.warning("machine", why);
    }

    Watchdog watchdog(cfg.config.seconds("timeout"), [&run] {
        run.console.error("watchdog", "the run did not finish within initbench.timeout", "timeout");
        run.status = "timeout";
        finish(run);
        end_machine(run.end);
    });
    KmsgWatcher kmsg;
    if (!kmsg.active())
        run.console.warning("kmsg", kmsg.open_error() + ": kernel warnings will not be reported");
    run.mark("watchdog_kmsg");
    if (!run_experiment(cfg.config, run.console, kmsg, run.times))
        run.status = "error";
    run.experiment_end = monotonic_seconds();
}

} // namespace
} // namespace initbench

int main() {
    // Signals are taken synchronously (sigtimedwait) where the runner waits.
    sigset_t all;
    sigfillset(&all);
    ::sigprocmask(SIG_BLOCK, &all, nullptr);

    static initbench::Run run;
    try {
        initbench::run_init(run);
    } catch (const std::exception& e) {
        run.console.error("init", std::string("unexpected exception: ") + e.what());
        run.status = "error";
    } catch (...) {
        run.console.error("init", "unexpected exception");
        run.status = "error";
    }
    initbench::finish(run);
    initbench::end_machine(run.end);
}
