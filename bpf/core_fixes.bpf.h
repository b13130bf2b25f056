/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels mdk supports (Debian's 6.1 and 6.12)
 * that a BPF program has to handle lives here, as CO-RE checks: a struct
 * flavour per rename (___o/___x) tested with bpf_core_field_exists(), each
 * with the upstream commit that made the change.
 */
#ifndef MDK_CORE_FIXES_BPF_H
#define MDK_CORE_FIXES_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_core_read.h>

#endif /* MDK_CORE_FIXES_BPF_H */
