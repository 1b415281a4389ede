#include "host/boot/delay_loop.h"

#include "common/text.h"
#include "host/base/kernel_config.h"
#include "sys/sys.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <thread>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace initbench {

namespace fs = std::filesystem;

std::string config_beside_kernel(const std::string& kernel) {
    const fs::path path(kernel);
    const std::string name = path.filename().string();
    const fs::path dir = path.parent_path();
    std::vector<fs::path> candidates;
    // /boot/vmlinuz-6.1.0-57-amd64 -> /boot/config-6.1.0-57-amd64
    for (const char* prefix : {"vmlinuz-", "vmlinux-", "bzImage-"})
        if (name.rfind(prefix, 0) == 0)
            candidates.push_back(dir / ("config-" + name.substr(std::string(prefix).size())));
    // A build tree (or its O= directory): vmlinux at the top, bzImage in arch/ARCH/boot/.
    if (name == "vmlinux")
        candidates.push_back(dir / ".config");
    if (dir.filename() == "boot" && dir.parent_path().parent_path().filename() == "arch")
        candidates.push_back(dir.parent_path().parent_path().parent_path() / ".config");
    for (const auto& c : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(c, ec))
            return c.string();
    }
    return "";
}

std::optional<unsigned> config_hz(std::string_view config_text) {
    const auto config = parse_kernel_config(config_text);
    const auto it = config.find("HZ");
    if (it == config.end())
        return std::nullopt;
    const auto hz = parse_integer<unsigned>(it->second);
    if (!hz || *hz == 0 || *hz > 10000)
        return std::nullopt;
    return hz;
}

unsigned long long tsc_lpj(double tsc_khz, unsigned hz) {
    // As the kernel's get_loops_per_jiffy(), but of whole MHz: the measurement moves by a few
    // kHz from boot to boot, and one host's runs should carry one command line.
    const auto khz = static_cast<unsigned long long>(std::llround(tsc_khz / 1000)) * 1000ULL;
    return khz * 1000ULL / hz;
}

std::optional<double> host_tsc_khz(std::string& why_not) {
#if defined(__x86_64__)
    bool constant = false;
    for (std::string_view line : split_lines(read_whole_file("/proc/cpuinfo").value_or("")))
        if (line.starts_with("flags")) {
            const auto words = split_words(line);
            constant = std::find(words.begin(), words.end(), "constant_tsc") != words.end();
            break;
        }
    if (!constant) {
        why_not = "the host's TSC is not constant (no constant_tsc in /proc/cpuinfo)";
        return std::nullopt;
    }
    // Each TSC read between two clock reads, at the clock's midpoint; of five tries, the one
    // whose clock reads were closest, so that a preemption between them cannot count
    // (microvm's guest keeps time by this figure: tsc_early_khz=).
    auto sample = [](double& ns, unsigned long long& tsc) {
        double narrowest = 1e18;
        for (int i = 0; i < 5; i++) {
            timespec a{}, b{};
            ::clock_gettime(CLOCK_MONOTONIC_RAW, &a);
            const unsigned long long t = __rdtsc();
            ::clock_gettime(CLOCK_MONOTONIC_RAW, &b);
            const double width = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
            if (width < narrowest) {
                narrowest = width;
                tsc = t;
                ns = (a.tv_sec + b.tv_sec) * 0.5e9 + (a.tv_nsec + b.tv_nsec) * 0.5;
            }
        }
    };
    double ns0 = 0, ns1 = 0;
    unsigned long long tsc0 = 0, tsc1 = 0;
    sample(ns0, tsc0);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    sample(ns1, tsc1);
    return static_cast<double>(tsc1 - tsc0) / (ns1 - ns0) * 1e6;
#else
    why_not = "the host is not x86_64: TCG's guest TSC follows another counter";
    return std::nullopt;
#endif
}

DelayLoop tcg_delay_loop(const BootSpec& spec, const std::string& kernel_config) {
    DelayLoop d;
    if (spec.arch != "x86_64" || spec.cpus < 2)
        return d;
    for (const auto& p : spec.params)
        if (p.rfind("lpj=", 0) == 0)
            return d;
    auto without = [&](const std::string& reason) {
        d.facts = {{"lpj", nullptr},
                   {"why", reason + ": each CPU past the first calibrates its delay loop, seconds each under TCG "
                                    "and longer with every CPU online (lpj= on the command line skips it)"}};
        return d;
    };
    const std::string config = kernel_config.empty() ? config_beside_kernel(spec.kernel) : kernel_config;
    if (config.empty())
        return without("no .config beside the kernel to read its HZ from (--kernel-config FILE gives one)");
    const auto text = read_whole_file(config);
    if (!text)
        return without("cannot read the kernel config: " + text.error().message()); // the file and errno
    const auto hz = config_hz(text.value());
    if (!hz)
        return without(config + " sets no CONFIG_HZ");
    std::string why_not;
    // microvm's kernel is told the TSC's frequency (measured when the boot was planned): the
    // delay loop follows that same figure.
    const auto tsc_khz = spec.tsc_khz ? std::optional<double>(*spec.tsc_khz) : host_tsc_khz(why_not);
    if (!tsc_khz)
        return without(why_not);
    d.lpj = tsc_lpj(*tsc_khz, *hz);
    d.facts = {{"lpj", *d.lpj}, {"hz", *hz}, {"hz_from", config}, {"tsc_khz", std::round(*tsc_khz)}};
    return d;
}

} // namespace initbench
