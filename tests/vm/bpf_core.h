/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MDK_TESTS_BPF_CORE_H
#define MDK_TESTS_BPF_CORE_H

/* What tests/vm/bpf_core.bpf.c saw of the target process. */
struct bpf_core_seen {
	__u32 pid;
	__u32 vmas;
	__u64 vma_bytes;
	__u64 total_vm_pages;
	char comm[16];
};

#endif /* MDK_TESTS_BPF_CORE_H */
