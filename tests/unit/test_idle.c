// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Unit tests for xs_pin_expired() (include/xdpsteer.h): the idle rule the XDP
 * program and `xdpsteer stats` share.
 *
 * A pin's tick can be a little ahead of the reader's: a packet on another CPU
 * stamped it from a newer xs_now, or a reader's clock lags the kernel's
 * (CLOCK_MONOTONIC_COARSE trails CLOCK_MONOTONIC by up to several ms here).
 * Such a pin is fresh, not 2^32 ticks idle. The 32-bit tick wraps about
 * every 52 days, so idle time is the wrapping difference, read as signed.
 */
#include "test.h"
#include "xdpsteer.h"

static const struct xs_timeouts to = {
	.tcp = XS_S_TO_TICKS(XS_DEFAULT_TCP_TIMEOUT_S),
	.fin = XS_S_TO_TICKS(XS_DEFAULT_FIN_TIMEOUT_S),
	.udp = XS_S_TO_TICKS(XS_DEFAULT_UDP_TIMEOUT_S),
};

static int expired(__u32 seen, __u32 now, __u8 proto, _Bool closed)
{
	struct xs_flow_pin pin = { .seen = seen, .closed = closed };

	return xs_pin_expired(&pin, proto, now, &to);
}

TEST(idle_up_to_the_timeout_is_live)
{
	const __u32 now = 1000000;

	ASSERT_EQ(expired(now, now, 6, 0), 0, "tcp seen this tick");
	ASSERT_EQ(expired(now - to.tcp, now, 6, 0), 0, "tcp idle exactly its timeout");
	ASSERT_EQ(expired(now - to.tcp - 1, now, 6, 0), 1, "tcp idle one tick past its timeout");
	ASSERT_EQ(expired(now - to.udp, now, 17, 0), 0, "udp idle exactly its timeout");
	ASSERT_EQ(expired(now - to.udp - 1, now, 17, 0), 1, "udp idle one tick past");
	ASSERT_EQ(expired(now - to.fin - 1, now, 6, 1), 1, "closed tcp idle one tick past fin");
	ASSERT_EQ(expired(now - to.fin, now, 6, 1), 0, "closed tcp idle exactly fin");
}

TEST(a_pin_ahead_of_the_reader_is_live)
{
	const __u32 now = 1000000;
	__u32 ahead;

	/* 8 ms ahead is more than the coarse clock's lag measured on the CI machine. */
	for (ahead = 1; ahead <= 8; ahead++) {
		ASSERT_TRUE(!expired(now + ahead, now, 6, 0), "tcp pin %u ticks ahead expired", ahead);
		ASSERT_TRUE(!expired(now + ahead, now, 17, 0), "udp pin %u ticks ahead expired", ahead);
		ASSERT_TRUE(!expired(now + ahead, now, 6, 1), "closed pin %u ticks ahead expired",
			    ahead);
	}
}

TEST(idle_time_wraps_with_the_tick)
{
	/* 10 ticks idle across the 2^32 wrap. */
	ASSERT_EQ(expired(0xfffffffbu, 5, 17, 0), 0, "udp idle 10 ticks across the wrap");
	ASSERT_EQ(expired(0xffffffffu - to.udp, to.udp / 2, 17, 0), 1,
		  "udp idle 1.5 timeouts across the wrap");
	/* The longest timeout the CLI accepts still fits the signed difference. */
	ASSERT_TRUE(XS_S_TO_TICKS(XS_MAX_TIMEOUT_S) < 0x80000000u, "max timeout %u ticks",
		    XS_S_TO_TICKS(XS_MAX_TIMEOUT_S));
}

TEST_MAIN("test_idle", NULL, NULL)
