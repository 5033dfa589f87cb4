/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What xs_select() decides for a flow, and how. A type of its own, apart
 * from the decision's code (xs_select.h), because the BPF object keeps one
 * per CPU in a map (xs_scratch) and its maps are declared before the code.
 */
#ifndef XS_DECISION_H
#define XS_DECISION_H

#include "xs_common.h"
#include "xs_hand.h"

struct xs_decision {
	__u64 flow_hash;         /* the value fed to jump, or the shuffle tie-break */
	__u64 hand_hash;         /* shuffle: the value the hand is dealt from */
	__u32 bucket;            /* chosen bucket, 0-based */
	__u32 target;            /* target id in that bucket */
	struct xs_hand hand;     /* shuffle: dealt buckets, in dealing order */
	__u64 load[XS_MAX_HAND]; /* shuffle: load of each card when chosen */
	/*
	 * Input: decide without loads. The XDP program sets it for a flow it
	 * will not pin, so that a shuffle flow without a pin is placed by its
	 * hand's fixed tie-break order, the same for each of its packets.
	 */
	__u32 no_load;
	__u32 pad;
};

#endif /* XS_DECISION_H */
