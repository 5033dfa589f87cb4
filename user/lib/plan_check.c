// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * Refusals of a plan that depend on this host rather than on the model
 * alone (plan.h), checked before anything is written, for commands, files
 * and the agent alike.
 */
#include <string.h>
#include <errno.h>
#include "link.h"
#include "plan.h"

/*
 * A dev target whose frames come back in on the attached interface: the
 * interface itself, or its veth peer. XDP runs again on each frame, steers
 * the same flow to the same target, and one packet circles with nothing to
 * end it (one was seen looping at about 4 Mpps for 40 s).
 */
int xs_plan_check_loops(struct xs_plan *pl)
{
	const struct xs_model *m = pl->m;
	const char *ifname = pl->h->ifname;
	__u32 i;
	int peer;

	for (i = 0; i < m->n_tgt; i++) {
		const struct xs_model_target *t = &m->tgt[i];

		if (t->s.t.kind != XS_TARGET_DEV)
			continue;
		if ((int)t->s.t.ifindex == pl->h->ifindex) {
			xs_plan_err(pl, t->source, t->line,
				    "target dev %s is %s itself: what is steered to it would come "
				    "back into this program and loop; name another interface",
				    t->s.ifname, ifname);
			return -ELOOP;
		}
		peer = xs_link_veth_peer((int)t->s.t.ifindex);
		if (peer == pl->h->ifindex) {
			xs_plan_err(pl, t->source, t->line,
				    "target dev %s is the veth peer of %s: what is steered to it "
				    "would come back in on %s, into this program, and loop; name "
				    "another interface", t->s.ifname, ifname, ifname);
			return -ELOOP;
		}
	}
	return 0;
}
