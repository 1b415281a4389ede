#include "host/lab/lava_job.h"

#include "common/summary.h"
#include "host/image/image_paths.h"
#include "host/image/settings_check.h"
#include "host/lab/yaml_writer.h"
#include "host/results/results.h"

#include <iostream>
#include <stdexcept>

namespace initbench {
namespace {

// Kernel parameters pass through QEMU's -append inside a double-quoted string.
void check_param(const std::string& p) {
    if (p.find_first_of("\"'\\\n") != std::string::npos)
        throw std::invalid_argument("kernel parameter with a quote or backslash: " + p);
    // A job's kernel command line is one YAML string that LAVA appends as it is: a value
    // with spaces would arrive as several parameters.
    if (p.find_first_of(" \t") != std::string::npos)
        throw std::invalid_argument("kernel parameter with a space: " + p +
                                    " (put such a value in an experiment file: initbench pack --config)");
}

} // namespace

std::string lava_monitor_pattern() {
    // LAVA's monitor tries the pattern on the console as it arrives (pexpect): without the
    // line's end in it, a line read in two pieces matched its first, and LAVA recorded
    // "units=for" for fork_exit_wait_s (or a measurement cut short). The end is a CR or an LF:
    // through LAVA's pty a line ends "\r\r\n".
    return "initbench-case: (?P<test_case_id>[a-z0-9._-]+) result=(?P<result>pass|fail|skip)"
           "( measurement=(?P<measurement>[0-9.eE+-]+))?( units=(?P<units>[a-z0-9._-]+))?(?=[\\r\\n])";
}

namespace {

// The kernel's command line: the console, LAVA's output format, and the user's parameters.
std::string job_cmdline(const LavaJobSpec& spec, bool qemu) {
    const std::string console = !spec.console.empty() ? spec.console
                                : spec.arch == "aarch64" ? "ttyAMA0" : "ttyS0";
    std::string cmdline = "console=" + console + ",115200 initbench.format=lava";
    if (qemu)
        cmdline += " panic=-1"; // a panicking guest ends the job instead of hanging it
    for (const auto& p : spec.params) {
        check_param(p);
        cmdline += " " + p;
    }
    return cmdline;
}

// A LAVA job's YAML, written a section at a time.
class LavaYaml {
public:
    using Style = YamlWriter::Style;

    LavaYaml(const LavaJobSpec& spec, std::string cmdline)
        : spec_(spec), qemu_(spec.device_type == "qemu"), cmdline_(std::move(cmdline)) {}

    std::string job() {
        y_.begin_map();
        text("device_type", spec_.device_type);
        text("job_name", "initbench " + spec_.arch);
        word("priority", "medium");
        word("visibility", "public");
        y_.scalar("timeouts");
        y_.begin_map();
        minutes("job", spec_.timeout_minutes);
        minutes("action", spec_.timeout_minutes);
        minutes("connection", 2);
        y_.end_map();
        if (qemu_) {
            y_.scalar("context");
            y_.begin_map();
            word("arch", spec_.arch == "aarch64" ? "arm64" : "amd64");
            y_.end_map();
        }
        y_.scalar("actions");
        y_.begin_seq();
        action("deploy", 5, [this] { deploy(); });
        action("boot", 5, [this] { boot(); });
        action("test", spec_.timeout_minutes, [this] { test(); });
        y_.end_seq();
        y_.end_map();
        return y_.finish();
    }

private:
    void text(std::string_view key, std::string_view value) {
        y_.scalar(key);
        y_.quoted(value);
    }
    void word(std::string_view key, std::string_view value) {
        y_.scalar(key);
        y_.scalar(value);
    }
    void minutes(std::string_view key, unsigned n) {
        y_.scalar(key);
        y_.begin_map(Style::flow);
        y_.scalar("minutes");
        y_.scalar(n);
        y_.end_map();
    }
    // {name: {timeout: {minutes: N}, ...what body writes}} as an item of `actions`.
    template <typename Body> void action(std::string_view name, unsigned timeout_minutes, Body body) {
        y_.begin_map();
        y_.scalar(name);
        y_.begin_map();
        minutes("timeout", timeout_minutes);
        body();
        y_.end_map();
        y_.end_map();
    }
    void image(std::string_view key, std::string_view image_arg, std::string_view url) {
        y_.scalar(key);
        y_.begin_map();
        text("image_arg", image_arg);
        text("url", url);
        y_.end_map();
    }

    void deploy() {
        if (qemu_) {
            word("to", "tmpfs");
            word("os", "oe");
            y_.scalar("images");
            y_.begin_map();
            image("kernel", "-kernel {kernel} -append \"" + cmdline_ + "\"", spec_.kernel_url);
            image("ramdisk", "-initrd {ramdisk}", spec_.image_url);
            y_.end_map();
            return;
        }
        // A board: the kernel and the image over TFTP, booted by the bootloader.
        word("to", "tftp");
        word("os", "oe");
        y_.scalar("kernel");
        y_.begin_map();
        text("url", spec_.kernel_url);
        if (!spec_.kernel_type.empty())
            text("type", spec_.kernel_type);
        y_.end_map();
        y_.scalar("ramdisk");
        y_.begin_map();
        text("url", spec_.image_url);
        word("compression", "none");
        y_.end_map();
    }

    void boot() {
        if (qemu_) {
            word("method", "qemu");
            word("media", "tmpfs");
        } else {
            text("method", spec_.boot_method.empty() ? "u-boot" : spec_.boot_method);
            word("commands", "ramdisk");
            text("kernel_args", cmdline_);
        }
        // The kernel's own line at the hand-over to /init: the image has no shell prompt.
        y_.scalar("prompts");
        y_.begin_seq(Style::flow);
        y_.quoted("Run /init as init process");
        y_.end_seq();
    }

    void test() {
        y_.scalar("monitors");
        y_.begin_seq();
        y_.begin_map();
        word("name", "initbench");
        text("start", kLavaStart);
        text("end", kLavaEnd);
        text("pattern", lava_monitor_pattern());
        y_.scalar("fixupdict");
        y_.begin_map(Style::flow);
        for (const char* r : {"pass", "fail", "skip"})
            word(r, r);
        y_.end_map();
        y_.end_map();
        y_.end_seq();
    }

    const LavaJobSpec& spec_;
    const bool qemu_;
    const std::string cmdline_;
    YamlWriter y_;
};

} // namespace

std::string lava_job_yaml(const LavaJobSpec& spec) {
    if (spec.kernel_url.empty() || spec.image_url.empty())
        throw std::invalid_argument("--kernel and --image URLs are required");
    const bool qemu = spec.device_type == "qemu";
    LavaYaml job(spec, job_cmdline(spec, qemu));
    return "# Generated by `initbench lava-job`: boots the initbench image and reads its results.\n" + job.job();
}

} // namespace initbench
