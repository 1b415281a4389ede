#include "init/bringup.h"

#include <fcntl.h>
#include <functional>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>

namespace initbench {

bool BringupReport::fatal() const {
    for (const auto& f : failures)
        if (f.essential)
            return true;
    return false;
}

static Status mount_fs(const char* type, const char* target, const char* data = nullptr) {
    ::mkdir(target, 0755);
    if (::mount(type, target, type, MS_NOSUID | MS_NODEV | MS_NOEXEC, data) != 0 && errno != EBUSY)
        return errno_error(std::string("mount ") + type + " on " + target);
    return ok();
}

// The kernel opens /dev/console for PID 1 only if it exists in the initramfs; make sure
// fds 0-2 are the console either way.
static Status console_fds() {
    if (::fcntl(0, F_GETFD) >= 0 && ::fcntl(1, F_GETFD) >= 0 && ::fcntl(2, F_GETFD) >= 0)
        return ok();
    int fd = ::open("/dev/console", O_RDWR | O_NOCTTY);
    if (fd < 0)
        return errno_error("open /dev/console");
    for (int i = 0; i < 3; i++)
        if (fd != i)
            ::dup2(fd, i);
    if (fd > 2)
        ::close(fd);
    return ok();
}

// BPF maps are charged to RLIMIT_MEMLOCK before 5.11.
static Status raise_memlock() {
    rlimit lim{RLIM_INFINITY, RLIM_INFINITY};
    if (::setrlimit(RLIMIT_MEMLOCK, &lim) != 0)
        return errno_error("setrlimit RLIMIT_MEMLOCK");
    return ok();
}

static Status loopback_up() {
    Fd sock(::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    if (!sock.valid())
        return errno_error("socket AF_INET");
    ifreq req{};
    std::strncpy(req.ifr_name, "lo", IFNAMSIZ - 1);
    if (::ioctl(sock.get(), SIOCGIFFLAGS, &req) != 0)
        return errno_error("SIOCGIFFLAGS lo");
    req.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (::ioctl(sock.get(), SIOCSIFFLAGS, &req) != 0)
        return errno_error("SIOCSIFFLAGS lo");
    return ok();
}

BringupReport bring_up() {
    struct Step {
        const char* name;
        bool essential;
        std::function<Status()> run;
    };
    const Step steps[] = {
        {"proc", true, [] { return mount_fs("proc", "/proc"); }},
        {"sysfs", true, [] { return mount_fs("sysfs", "/sys"); }},
        {"devtmpfs", true,
         [] {
             ::mkdir("/dev", 0755);
             if (::mount("devtmpfs", "/dev", "devtmpfs", MS_NOSUID, "mode=0755") != 0 && errno != EBUSY)
                 return Status(errno_error("mount devtmpfs on /dev"));
             return ok();
         }},
        {"console", true, console_fds},
        {"tmpfs", false, [] { return mount_fs("tmpfs", "/tmp", "mode=1777"); }},
        {"debugfs", false, [] { return mount_fs("debugfs", "/sys/kernel/debug"); }},
        {"tracefs", false, [] { return mount_fs("tracefs", "/sys/kernel/tracing"); }},
        {"bpffs", false, [] { return mount_fs("bpf", "/sys/fs/bpf"); }},
        {"cgroup2", false, [] { return mount_fs("cgroup2", "/sys/fs/cgroup"); }},
        {"memlock", false, raise_memlock},
        {"loopback", false, loopback_up},
    };
    BringupReport report;
    for (const auto& step : steps) {
        Status s = step.run();
        if (!s) {
            report.failures.push_back({step.name, step.essential, s.error()});
            if (step.essential)
                break;
        }
    }
    return report;
}

} // namespace initbench
