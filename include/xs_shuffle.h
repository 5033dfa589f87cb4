/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * Shuffle sharding with consistent hands.
 *
 * The Kubernetes dealer takes successive remainders of one hash
 * (card_i = h mod (N - i)), so changing N re-deals almost every hand. Here
 * card i is drawn by jump consistent hash from its own sub-key
 * mix64(hand_hash + i * golden), and a draw that repeats a card already in the
 * hand is skipped. Every draw is consistent on its own, so when N grows to
 * N + 1 a hand changes only if one of its draws moves to the new card: about
 * H / (N + 1) of hands, which tests/unit/test_shuffle.c measures.
 *
 * Drawing is bounded (XS_DEAL_MAX_DRAWS). If the bound is hit before H
 * distinct cards are found (likely only when H is close to N), the hand is
 * completed by probing upward from the last draw, mod N. Both sides run
 * this same code, so the kernel and `xdpsteer lookup` deal the same hand.
 *
 * Hand sizes follow the Kubernetes rule: 1 <= H <= N and
 * ceil(H * log2(N)) <= 60 bits. The largest legal hand is 15 (N = 15 or 16).
 */
#ifndef XS_SHUFFLE_H
#define XS_SHUFFLE_H

#include "xs_common.h"
#include "xs_hand.h"
#include "xs_hash.h"
#include "xs_jump.h"

#define XS_DEAL_MAX_DRAWS 64
#define XS_ENTROPY_BITS 60
#define XS_GOLDEN64 0x9e3779b97f4a7c15ULL

XS_INLINE int xs_hand_has(const struct xs_hand *hand, __u32 card)
{
	__u32 i;

	for (i = 0; i < XS_MAX_HAND; i++) {
		if (i >= hand->n_cards)
			break;
		if (hand->card[i] == card)
			return 1;
	}
	return 0;
}

/* Draws past XS_DEAL_MAX_DRAWS are the fallback walk. */
#define XS_DEAL_STEPS (XS_DEAL_MAX_DRAWS + 2 * XS_MAX_HAND)

/* The key draw @i (< XS_DEAL_MAX_DRAWS) of dealing from @hand_hash jumps from. */
XS_INLINE __u64 xs_deal_key(__u64 hand_hash, __u32 i)
{
	return xs_mix64(hand_hash + (__u64)i * XS_GOLDEN64);
}

/*
 * Step @i of dealing @h distinct cards out of @n (1 <= h <= min(n, XS_MAX_HAND)),
 * given @drawn, the jump of xs_deal_key() over n (read only below
 * XS_DEAL_MAX_DRAWS). Returns 1 once the hand is complete. The caller jumps
 * and loops, so the BPF side can jump through a global subprogram and loop
 * with bpf_loop(), verifying each once (bpf/xs_steer.h).
 *
 * Steps below XS_DEAL_MAX_DRAWS take the jump's draw. The rare fallback after
 * that completes the hand by walking upward from the last card drawn: each
 * step adds a card or passes one of the < H cards already held, so fewer than
 * 2 * H steps are ever needed.
 */
XS_INLINE int xs_deal_step(__u32 n, __u32 h, struct xs_hand *hand, __u32 i, __u32 drawn)
{
	__u32 card;

	if (hand->n_cards >= h || hand->n_cards >= XS_MAX_HAND)
		return 1;
	if (i < XS_DEAL_MAX_DRAWS)
		card = drawn;
	else
		card = hand->last + 1 >= n ? 0 : hand->last + 1;
	hand->last = card;
	if (!xs_hand_has(hand, card))
		hand->card[hand->n_cards++ & (XS_MAX_HAND - 1)] = card;
	return hand->n_cards >= h;
}

XS_INLINE void xs_deal(__u64 hand_hash, __u32 n, __u32 h, struct xs_hand *hand)
{
	__u32 i, drawn;

	hand->n_cards = 0;
	hand->last = 0;
	for (i = 0; i < XS_DEAL_STEPS; i++) {
		drawn = i < XS_DEAL_MAX_DRAWS ? xs_jump(xs_deal_key(hand_hash, i), n) : 0;
		if (xs_deal_step(n, h, hand, i, drawn))
			break;
	}
}

/*
 * Index into @hand of the least-loaded card; @load[i] is card i's load.
 * Ties break on mix64(flow_hash + card), so a given flow always resolves a
 * tie the same way while different flows spread over the tied cards.
 */
XS_INLINE __u32 xs_pick_least_loaded(const struct xs_hand *hand, const __u64 *load,
				     __u64 flow_hash)
{
	__u32 i, best = 0;
	__u64 best_load = ~0ULL, best_tie = 0;

	for (i = 0; i < XS_MAX_HAND; i++) {
		__u64 tie;

		if (i >= hand->n_cards)
			break;
		tie = xs_mix64(flow_hash + hand->card[i]);
		if (load[i] < best_load || (load[i] == best_load && tie < best_tie)) {
			best = i;
			best_load = load[i];
			best_tie = tie;
		}
	}
	return best;
}

/*
 * ceil(log2(n) * h) without floating point: the smallest b such that
 * n^h <= 2^b. Returns 0 when (n, h) is within XS_ENTROPY_BITS, else -1.
 * Userspace only needs this, but it is cheap enough to share.
 */
XS_INLINE int xs_hand_entropy_ok(__u32 n, __u32 h)
{
	/* ceil(h * log2(n)) <= 60 <=> h * log2(n) <= 60 <=> n^h <= 2^60. */
	__u64 p = 1;
	__u32 i;

	if (h < 1 || h > n || h > XS_MAX_HAND)
		return -1;
	for (i = 0; i < XS_MAX_HAND; i++) {
		if (i >= h)
			break;
		if (p > (1ULL << XS_ENTROPY_BITS) / n)
			return -1;
		p *= n;
	}
	return p <= (1ULL << XS_ENTROPY_BITS) ? 0 : -1;
}

#endif /* XS_SHUFFLE_H */
