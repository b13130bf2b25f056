/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few kernel types and helpers that the kernel-free parts of kmod/
 * (cmm_mp_pamt.c, cmm_mp_owner.c) use, for building them in userspace in the unit tests.
 * Types match the kernel's (u64 is unsigned long long there too), so
 * format strings are checked the same way.
 */
#ifndef MDK_KSHIM_H
#define MDK_KSHIM_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef unsigned long long u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;

#define U64_MAX UINT64_MAX
#define BIT_ULL(n) (1ULL << (n))

#endif /* MDK_KSHIM_H */
