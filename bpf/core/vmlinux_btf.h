// The kernel's own BTF (/sys/kernel/btf/vmlinux), parsed once per boot and shared by every
// BPF object. libbpf 1.1 parses it again for each object that has CO-RE relocations or
// fentry/fexit/tp_btf programs, and bpf_object_open_opts can only name another file to parse
// (btf_custom_path); under TCG one parse of Debian's 6.1 BTF costs 60-190 ms. The link
// wraps libbpf's btf__load_vmlinux_btf() and btf__free() (bpf/CMakeLists.txt) so that its
// calls get this one copy and never free it.
#pragma once

#include <string>

struct btf;

namespace initbench {

// The shared copy, parsed on first use (timed as the "btf" set-up step); nullptr with
// `error` set when the kernel has none or it cannot be read.
const struct btf* vmlinux_btf(std::string& error);

// Frees the shared copy once the probes are set up (several MB the loads can use). A later
// vmlinux_btf() parses again.
void release_vmlinux_btf();

} // namespace initbench
