/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * A shuffle-shard hand: the buckets dealt to one hand hash, in dealing order.
 * Apart from the dealer (xs_shuffle.h): the types which hold a hand (struct
 * xs_decision, and with it the BPF object's scratch map) need only the type.
 */
#ifndef XS_HAND_H
#define XS_HAND_H

#include "xs_common.h"

#define XS_MAX_HAND 16

struct xs_hand {
	__u32 n_cards;
	__u32 last;              /* last card drawn: where the fallback walk resumes */
	__u32 card[XS_MAX_HAND];
};

#endif /* XS_HAND_H */
