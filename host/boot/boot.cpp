#include "host/boot/boot.h"

#include "host/base/host_load.h"
#include "host/base/process.h"
#include "host/boot/boot_stages.h"
#include "host/boot/delay_loop.h"
#include "host/boot/tftp_root.h"
#include "host/results/environment.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sys/utsname.h>
#include <unistd.h>

namespace initbench {
namespace {

namespace fs = std::filesystem;

// A guest that printed nothing in this long under KVM never started (README, "--accel auto": on some
// hosts /dev/kvm opens but guests hang in the firmware).
constexpr double kKvmFirstOutputDeadline = 15;

std::string last_line(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
        text.pop_back();
    auto nl = text.rfind('\n');
    return nl == std::string::npos ? text : text.substr(nl + 1);
}

std::string host_release() {
    utsname u{};
    ::uname(&u);
    return u.release;
}

} // namespace

std::string host_arch() {
    utsname u{};
    ::uname(&u);
    return u.machine;
}

namespace {

fs::path kvm_verdict_file(const std::string& cache_dir) {
    return fs::path(cache_dir) / ("kvm-broken-" + host_release());
}

// Watches the stream for the end record so the runner knows when output is complete.
class EndWatcher {
public:
    bool saw_end(std::string_view chunk) {
        for (char c : chunk) {
            if (c == '\n') {
                if (line_.find("IB1 ") != std::string::npos && line_.find("\"type\":\"end\"") != std::string::npos)
                    seen_ = true;
                line_.clear();
            } else if (line_.size() < 1 << 20) {
                line_.push_back(c);
            }
        }
        return seen_;
    }

private:
    std::string line_;
    bool seen_ = false;
};

Bootloader bootloader_of(FirmwarePath path) {
    return path == FirmwarePath::none ? Bootloader::none : path == FirmwarePath::uboot ? Bootloader::uboot : Bootloader::ipxe;
}

struct Attempt {
    std::vector<std::string> argv;
    ChildOutcome child;
    LogParser parser;
    std::optional<double> others_busy_cpus; // other work on the host meanwhile (host_load.h)
    std::unique_ptr<TftpRoot> tftp;         // a firmware boot's, removed with the attempt
    BootStages stages{Bootloader::none};
};

// A firmware boot's TFTP root, laid out for this attempt's command line (its lpj= is known
// only now); false, with the child's outcome saying why, when it cannot be.
bool lay_out(const BootSpec& spec, BootSpec& booted, Attempt& a) {
    auto root = lay_out_tftp_root(spec);
    if (!root) {
        a.child.end = ChildOutcome::End::spawn_failed;
        a.child.error = "the TFTP root: " + root.error().message();
        return false;
    }
    a.tftp = std::move(root.value());
    booted.firmware.tftp_dir = a.tftp->tftp_dir;
    booted.firmware.sercon_file = a.tftp->sercon_file;
    a.stages = BootStages(bootloader_of(spec.firmware.path));
    return true;
}

void attempt(const RunOptions& o, const BootSpec& spec, double first_output_deadline, Attempt& a,
             std::ofstream* log) {
    BootSpec booted = spec;
    if (spec.firmware.path != FirmwarePath::none && !lay_out(spec, booted, a))
        return;
    a.argv = qemu_argv(booted);
    EndWatcher end;
    ChildRun run;
    run.argv = a.argv;
    run.timeout_s = o.timeout_s;
    run.first_output_deadline_s = first_output_deadline;
    const auto started = std::chrono::steady_clock::now();
    run.on_output = [&](std::string_view bytes) {
        a.parser.feed(bytes);
        a.stages.feed(bytes, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        if (log)
            log->write(bytes.data(), static_cast<std::streamsize>(bytes.size())).flush();
        if (o.echo)
            (void)!::write(2, bytes.data(), bytes.size());
        return end.saw_end(bytes);
    };
    const auto load = mark_host_load();
    a.child = run_child(run);
    a.parser.finish();
    if (const auto after = mark_host_load(); load && after && a.child.cpu_s >= 0)
        if (auto others = others_busy_cpus(load.value(), after.value(), a.child.cpu_s))
            a.others_busy_cpus = others.value();
}

// --accel auto: whether KVM is worth a boot here; when not, `note` says why TCG runs.
bool kvm_worth_trying(const RunOptions& o, std::string& note) {
    std::string why;
    if (o.boot.arch != host_arch())
        // Not tried: KVM runs guests of the host's own architecture only, and a QEMU that
        // refused it must not leave a verdict against this host's KVM.
        note = "tcg: an " + o.boot.arch + " guest on an " + host_arch() + " host";
    else if (!kvm_device_usable(why))
        note = "tcg: " + why;
    else if (!o.cache_dir.empty() && fs::exists(kvm_verdict_file(o.cache_dir)))
        note = "tcg: KVM did not run a guest on this host before (" + kvm_verdict_file(o.cache_dir).string() + ")";
    else
        return true;
    return false;
}

// host.boot of a firmware boot: the firmware files and their packages, the bootloader's
// commands, the files served and how long each stage took.
nlohmann::json firmware_boot_facts(const BootSpec& spec, const Attempt& a) {
    nlohmann::json b = {{"firmware", firmware_facts(spec.firmware)},
                        {"stages", a.stages.facts(a.child.wall_s > 0 ? a.child.wall_s : -1)}};
    if (a.tftp) {
        b["bootloader"] = {{"name", spec.firmware.path == FirmwarePath::uboot ? "U-Boot" : "iPXE"},
                           {"script", a.tftp->script.name},
                           {"commands", a.tftp->script.commands}};
        b["tftp"] = a.tftp->facts();
    }
    return b;
}

// The results document's "host": what was booted, how, and how long it took.
nlohmann::json host_facts(const RunOptions& o, const BootSpec& spec, const Attempt& a,
                          const std::string& accel_note, const DelayLoop& delay) {
    const auto& c = a.child;
    nlohmann::json host = {
        {"qemu_argv", a.argv},
        {"accel", spec.accel == Accel::kvm ? "kvm" : "tcg"},
        {"clock", spec.icount ? "icount" : "wall"},
        {"kernel", file_facts(o.boot.kernel)}, // the file given, even when its vmlinux booted
        {"image", file_facts(spec.image)},
        {"arch", spec.arch},
        {"cpus", spec.cpus},
        {"memory_mb", spec.memory_mb},
        {"host_kernel", host_release()},
        {"host_cpus", allowed_host_cpus()},
        {"others_busy_cpus", a.others_busy_cpus ? nlohmann::json(*a.others_busy_cpus) : nlohmann::json()},
        {"wall",
         {{"total_s", c.wall_s},
          {"first_output_s", c.first_output_s},
          {"end_record_s", c.complete_s},
          {"end_record_to_exit_s", c.complete_s >= 0 ? c.wall_s - c.complete_s : -1}}}};
    if (!o.kernel_boot.protocol.empty())
        host["boot"] = o.kernel_boot.facts();
    if (spec.firmware.path != FirmwarePath::none)
        host["boot"].update(firmware_boot_facts(spec, a));
    if (!o.machine.is_null())
        host["machine"] = o.machine;
    if (!accel_note.empty())
        host["accel_note"] = accel_note;
    if (spec.accel == Accel::tcg && !delay.facts.is_null())
        host["delay_loop"] = delay.facts;
    if (!c.stderr_text.empty())
        host["qemu_stderr"] = c.stderr_text;
    return host;
}

} // namespace

RunResult boot_and_collect(const RunOptions& o) {
    BootSpec spec = o.boot;
    if (!o.kernel_boot.boot_path.empty())
        spec.kernel = o.kernel_boot.boot_path;
    std::string accel_note;
    std::optional<std::ofstream> log;
    if (!o.log_path.empty())
        log.emplace(o.log_path, std::ios::binary | std::ios::trunc);

    const bool try_kvm = o.accel == AccelChoice::kvm || (o.accel == AccelChoice::auto_ && kvm_worth_trying(o, accel_note));

    // Worked out once; given to TCG's boots only (KVM's CPUs calibrate quickly).
    const DelayLoop delay = tcg_delay_loop(o.boot, o.kernel_config);
    auto a = std::make_unique<Attempt>();
    if (try_kvm) {
        spec.accel = Accel::kvm;
        attempt(o, spec, o.accel == AccelChoice::auto_ ? kKvmFirstOutputDeadline : 0, *a, log ? &*log : nullptr);
        // KVM failed if the guest printed nothing: it hung, or QEMU died before the kernel
        // started (-cpu host aborts on some hosts). Output means the kernel ran: its
        // failures are the kernel's, not KVM's.
        const auto& c = a->child;
        bool hung = c.end == ChildOutcome::End::no_output;
        bool died = c.first_output_s < 0 && c.end == ChildOutcome::End::exited && (c.exit_code != 0 || c.term_signal);
        if (o.accel == AccelChoice::auto_ && (hung || died)) {
            std::string why = hung ? "printed nothing in 15 s" : "QEMU failed: " + last_line(c.stderr_text);
            accel_note = "tcg: KVM guest " + why + "; fell back to TCG";
            if (!o.cache_dir.empty()) {
                fs::create_directories(o.cache_dir);
                std::ofstream(kvm_verdict_file(o.cache_dir)) << accel_note << "\n";
            }
            if (log)
                log.emplace(o.log_path, std::ios::binary | std::ios::trunc);
            a = std::make_unique<Attempt>();
            spec.accel = Accel::tcg;
            spec.lpj = delay.lpj;
            attempt(o, spec, 0, *a, log ? &*log : nullptr);
        }
    } else {
        spec.accel = Accel::tcg;
        spec.lpj = delay.lpj;
        attempt(o, spec, 0, *a, log ? &*log : nullptr);
    }

    RunResult r;
    r.log = a->parser.result();
    r.child = a->child;
    r.host = host_facts(o, spec, *a, accel_note, delay);
    if (spec.firmware.path != FirmwarePath::none) {
        r.stopped_at = a->stages.where_it_stopped();
        r.before_kernel = !a->stages.kernel_started();
    }
    r.environment = run_environment(qemu_binary(spec.arch), o.kernel_config);
    return r;
}

} // namespace initbench
