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

#ifndef XS_ARRAY_SIZE
#define XS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#endif /* XS_COMMON_H */
