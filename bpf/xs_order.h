/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Memory order between userspace and the program, per architecture: the
 * reader's half of the epoch protocol (docs/design.md, "Recipes and the
 * epoch"). The CLI writes a change, then adds one to xs_epoch with release
 * order (xs_epoch_bump()); a packet reads the epoch, then what a recipe is
 * made of. A packet that reads the new epoch must read the change too, so
 * no later load may be satisfied before the epoch load: an acquire.
 *
 * clang 14 and 19 have no BPF load-acquire: __atomic_load_n() with
 * __ATOMIC_ACQUIRE fails instruction selection ("Cannot select:
 * AtomicLoad") at every -mcpu, and neither has a fence. Hence:
 * - x86 (TSO) never satisfies a load before an earlier load: the plain
 *   load is an acquire and xs_acquire() is empty, not even a compiler
 *   barrier, so the x86 program is what it was;
 * - elsewhere (arm64: loads are reordered with loads) an exchange on an
 *   8-byte slot of this program's own stack. Every JIT makes BPF_XCHG fully
 *   ordered (arm64: SWPAL, or LDXR/STLXR then DMB ISH without LSE; the
 *   interpreter: atomic64_xchg()), and the slot shares no cache line with
 *   another CPU. 64 bits because clang's default -mcpu=v1 has no 32-bit
 *   atomics.
 * The object is built for one architecture (make ARCH=...), as the CLI that
 * embeds it is.
 */
#ifndef XS_ORDER_H
#define XS_ORDER_H

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* XS_TEST_WEAK_ORDER: the ordered program on x86 too (tests/ns/test_arm64_build.sh). */
#if defined(__TARGET_ARCH_x86) && !defined(XS_TEST_WEAK_ORDER)
#define XS_LOADS_IN_ORDER 1
#else
#define XS_LOADS_IN_ORDER 0
#endif

/* No load after this call is satisfied before a load before it. */
static __always_inline void xs_acquire(void)
{
#if !XS_LOADS_IN_ORDER
	volatile __u64 slot = 0;

	/* The compiler must not move loads across it either. */
	asm volatile("" ::: "memory");
	__atomic_exchange_n(&slot, 0, __ATOMIC_SEQ_CST);
	asm volatile("" ::: "memory");
#endif
}

#endif /* XS_ORDER_H */
