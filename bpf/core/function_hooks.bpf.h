/* SPDX-License-Identifier: GPL-2.0 */
/* A kernel function hooked the way the loader chooses (bpf/core/attach.h's FunctionHook): a pair
 * of programs that run the same handler, fentry (or fexit) where the kernel has it, and its
 * kprobe (or kretprobe) twin elsewhere; only the chosen pair loads. The fentry target is set
 * by the loader (bpf_program__set_attach_target), hence the placeholder.
 *   ENTRY_HOOKS(from, on_from) defines fentry_from and kprobe_from;
 *   EXIT_HOOKS(exit, on_exit) defines fexit_exit and kretprobe_exit. */
#pragma once

#define ENTRY_HOOKS(name, handler)                                                          \
    SEC("fentry/placeholder")                                                               \
    int BPF_PROG(fentry_##name) { return handler(); }                                       \
    SEC("kprobe")                                                                           \
    int BPF_KPROBE(kprobe_##name) { return handler(); }

#define EXIT_HOOKS(name, handler)                                                           \
    SEC("fexit/placeholder")                                                                \
    int BPF_PROG(fexit_##name) { return handler(); }                                        \
    SEC("kretprobe")                                                                        \
    int BPF_KRETPROBE(kretprobe_##name) { return handler(); }
