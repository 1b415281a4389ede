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

std::string lava_job_yaml(const LavaJobSpec& spec) {
    if (spec.kernel_url.empty() || spec.image_url.empty())
        throw std::invalid_argument("--kernel and --image URLs are required");
    const bool arm = spec.arch == "aarch64";
    const bool qemu = spec.device_type == "qemu";
    const std::string console = !spec.console.empty() ? spec.console : arm ? "ttyAMA0" : "ttyS0";
    std::string cmdline = "console=" + console + ",115200 initbench.format=lava";
    if (qemu)
        cmdline += " panic=-1"; // a panicking guest ends the job instead of hanging it
    for (const auto& p : spec.params) {
        check_param(p);
        cmdline += " " + p;
    }

    using Style = YamlWriter::Style;
    YamlWriter y;
    auto text = [&](std::string_view key, std::string_view value) {
        y.scalar(key);
        y.quoted(value);
    };
    auto word = [&](std::string_view key, std::string_view value) {
        y.scalar(key);
        y.scalar(value);
    };
    auto minutes = [&](std::string_view key, unsigned n) {
        y.scalar(key);
        y.begin_map(Style::flow);
        y.scalar("minutes");
        y.scalar(n);
        y.end_map();
    };
    y.begin_map();
    text("device_type", spec.device_type);
    text("job_name", "initbench " + spec.arch);
    word("priority", "medium");
    word("visibility", "public");
    y.scalar("timeouts");
    y.begin_map();
    minutes("job", spec.timeout_minutes);
    minutes("action", spec.timeout_minutes);
    minutes("connection", 2);
    y.end_map();
    if (qemu) {
        y.scalar("context");
        y.begin_map();
        word("arch", arm ? "arm64" : "amd64");
        y.end_map();
    }
    y.scalar("actions");
    y.begin_seq();

    y.begin_map();
    y.scalar("deploy");
    y.begin_map();
    minutes("timeout", 5);
    if (qemu) {
        word("to", "tmpfs");
        word("os", "oe");
        y.scalar("images");
        y.begin_map();
        y.scalar("kernel");
        y.begin_map();
        text("image_arg", "-kernel {kernel} -append \"" + cmdline + "\"");
        text("url", spec.kernel_url);
        y.end_map();
        y.scalar("ramdisk");
        y.begin_map();
        text("image_arg", "-initrd {ramdisk}");
        text("url", spec.image_url);
        y.end_map();
        y.end_map();
    } else {
        // A board: the kernel and the image over TFTP, booted by the bootloader.
        word("to", "tftp");
        word("os", "oe");
        y.scalar("kernel");
        y.begin_map();
        text("url", spec.kernel_url);
        if (!spec.kernel_type.empty())
            text("type", spec.kernel_type);
        y.end_map();
        y.scalar("ramdisk");
        y.begin_map();
        text("url", spec.image_url);
        word("compression", "none");
        y.end_map();
    }
    y.end_map();
    y.end_map();

    y.begin_map();
    y.scalar("boot");
    y.begin_map();
    minutes("timeout", 5);
    if (qemu) {
        word("method", "qemu");
        word("media", "tmpfs");
    } else {
        text("method", spec.boot_method.empty() ? "u-boot" : spec.boot_method);
        word("commands", "ramdisk");
        text("kernel_args", cmdline);
    }
    // The kernel's own line at the hand-over to /init: the image has no shell prompt.
    y.scalar("prompts");
    y.begin_seq(Style::flow);
    y.quoted("Run /init as init process");
    y.end_seq();
    y.end_map();
    y.end_map();

    y.begin_map();
    y.scalar("test");
    y.begin_map();
    minutes("timeout", spec.timeout_minutes);
    y.scalar("monitors");
    y.begin_seq();
    y.begin_map();
    word("name", "initbench");
    text("start", kLavaStart);
    text("end", kLavaEnd);
    text("pattern", lava_monitor_pattern());
    y.scalar("fixupdict");
    y.begin_map(Style::flow);
    for (const char* r : {"pass", "fail", "skip"})
        word(r, r);
    y.end_map();
    y.end_map();
    y.end_seq();
    y.end_map();
    y.end_map();

    y.end_seq();
    y.end_map();
    return "# Generated by `initbench lava-job`: boots the initbench image and reads its results.\n" + y.finish();
}

void add_lava_job_command(CLI::App& app) {
    auto spec = std::make_shared<LavaJobSpec>();
    auto* cmd = app.add_subcommand("lava-job", "Write a LAVA job that boots the initbench image and reads its results");
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
