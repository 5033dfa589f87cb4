/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Portability glue for headers compiled into both the BPF object and userspace.
 * Only UAPI types are used so the same struct layout is seen on both sides.
 */
#ifndef XS_COMMON_H
#define XS_COMMON_H

#include <linux/types.h>

/* The BPF side has no function calls to spare; userspace does not care. */
#define XS_INLINE static inline __attribute__((always_inline))

/*
 * A field that holds an enum has the enum as its type, so `bpftool map dump`
 * prints the value's name. XS_ENUM8 makes an enum one byte (packed), for
 * fields where the struct has no room for four.
 */
#define XS_ENUM8 __attribute__((packed))

/*
 * Addresses in map keys and values are 16 bytes in network order, IPv4
 * stored IPv4-mapped (::ffff:a.b.c.d): bpftool prints them byte by byte.
 * Aligned to 4, so the data path reads and writes them a 32-bit word at a
 * time: XS_W32(addr, i) is word i (may_alias: a byte array read as words).
 */
#define XS_ADDR __attribute__((aligned(4)))
typedef __u32 __attribute__((may_alias)) xs_w32;
#define XS_W32(addr, i) (((xs_w32 *)(addr))[i])
#define XS_W32C(addr, i) (((const xs_w32 *)(addr))[i])

#ifndef XS_ARRAY_SIZE
#define XS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#endif /* XS_COMMON_H */
