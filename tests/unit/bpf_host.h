// The BPF-side macros a probe's *.bpf.h uses, for compiling its plain C logic on the host:
// a map definition becomes a struct of unused pointers, and a section name nothing. A test
// includes this, declares its own bpf_map_lookup_elem (and what else the header calls), then
// includes the .bpf.h.
#pragma once

#ifndef __always_inline
#define __always_inline inline
#endif
#define SEC(name)
#define __uint(name, val) int (*name)[val]
#define __type(name, val) val *name
