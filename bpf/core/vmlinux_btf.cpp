#include "bpf/core/vmlinux_btf.h"

#include "bpf/core/setup_times.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <cerrno>
#include <cstring>

// libbpf's own functions, under the names the linker's --wrap gives them.
extern "C" struct btf* __real_btf__load_vmlinux_btf(void);
extern "C" void __real_btf__free(struct btf* btf);

namespace initbench {
namespace {

struct btf* shared = nullptr;
int shared_errno = 0; // the parse failed with this; 0: not tried, or succeeded

struct btf* load_shared() {
    if (shared || shared_errno)
        return shared;
    SetupStep step("btf");
    shared = __real_btf__load_vmlinux_btf();
    if (!shared)
        shared_errno = errno ? errno : ENOENT;
    return shared;
}

} // namespace

const struct btf* vmlinux_btf(std::string& error) {
    if (const struct btf* b = load_shared())
        return b;
    error = std::string("no kernel BTF: ") + std::strerror(shared_errno);
    return nullptr;
}

void release_vmlinux_btf() {
    __real_btf__free(shared);
    shared = nullptr;
    shared_errno = 0;
}

} // namespace initbench

// libbpf (and the probes) get the shared copy; libbpf frees what it loaded after each
// object's load, which must not free this one.
extern "C" struct btf* __wrap_btf__load_vmlinux_btf(void) {
    struct btf* b = initbench::load_shared();
    if (!b)
        errno = initbench::shared_errno;
    return b;
}

extern "C" void __wrap_btf__free(struct btf* btf) {
    if (btf && btf == initbench::shared)
        return;
    __real_btf__free(btf);
}
