// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF side of tests/vm/bpf_core: an iter/task_vma program that walks the
 * VMAs of one process and reads kernel structures through CO-RE relocations
 * (task_struct, vm_area_struct, mm_struct), leaving what it saw in globals
 * for userspace to compare with /proc.
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "bpf_core.h"

const volatile __u32 targ_tgid = 0;

struct bpf_core_seen seen = {};

SEC("iter/task_vma")
int walk_vmas(struct bpf_iter__task_vma *ctx)
{
	struct task_struct *task = ctx->task;
	struct vm_area_struct *vma = ctx->vma;

	if (!task || !vma || BPF_CORE_READ(task, tgid) != targ_tgid)
		return 0;
	seen.pid = BPF_CORE_READ(task, pid);
	seen.vmas++;
	seen.vma_bytes +=
		BPF_CORE_READ(vma, vm_end) - BPF_CORE_READ(vma, vm_start);
	seen.total_vm_pages = BPF_CORE_READ(vma, vm_mm, total_vm);
	BPF_CORE_READ_STR_INTO(&seen.comm, task, comm);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
