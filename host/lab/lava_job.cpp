#include "host/lab/lava_job.h"

#include "common/summary.h"
#include "host/image/image_paths.h"
#include "host/image/settings_check.h"
#include "host/lab/yaml_writer.h"
#include "host/results/results.h"

#include <CLI/CLI.hpp>
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

void add_lava_job_command(CLI::App& app) {
    auto spec = std::make_shared<LavaJobSpec>();
    auto* cmd = app.add_subcommand("lava-job", "Write a LAVA job that boots the initbench image and reads its results");
    cmd->footer(R"(Exit codes:
  0  job written
  2  bad command line, or initbench.* parameters the init would refuse (checked against the image))");
    cmd->add_option("--kernel", spec->kernel_url, "Kernel URL (http://, file://)")->required();
    cmd->add_option("--image", spec->image_url, "initbench image URL")->required();
    cmd->add_option("--device-type", spec->device_type, "LAVA device type (qemu, or a board's)")->capture_default_str();
    cmd->add_option("--arch", spec->arch, "Guest architecture")
        ->check(CLI::IsMember({"x86_64", "aarch64"}))
        ->capture_default_str();
    cmd->add_option("--console", spec->console, "Serial console device (default ttyS0 or ttyAMA0)");
    cmd->add_option("--boot-method", spec->boot_method, "A board's boot method (default u-boot)");
    cmd->add_option("--kernel-type", spec->kernel_type, "A board's kernel type for u-boot (image, zimage, uimage)");
    cmd->add_option("--timeout", spec->timeout_minutes, "Job and test timeout in minutes")->capture_default_str();
    cmd->add_option("--check-image", spec->check_image,
                    "A local copy of the image, to check the initbench.* parameters against (default: the one "
                    "built or installed)")
        ->check(CLI::ExistingFile);
    cmd->add_option("params", spec->params, "Kernel parameters after --, e.g. initbench.profile=NAME");
    cmd->callback([spec] {
        const std::string image = spec->check_image.empty() ? default_image(spec->arch, "initbench") : spec->check_image;
        if (image.empty())
            std::cerr << "initbench lava-job: the parameters are not checked: no local image (--check-image)\n";
        else if (!settings_accepted("lava-job", image, spec->params))
            throw CLI::RuntimeError(kExitUsage);
        std::cout << lava_job_yaml(*spec);
    });
}

} // namespace initbench
