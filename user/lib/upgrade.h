/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Hitless upgrade: this build's program in place of the running one, on the same maps. */
#ifndef XS_UPGRADE_H
#define XS_UPGRADE_H

/*
 * Replace the XDP program running on @ifname by this build's, atomically,
 * keeping every pinned map and the running rodata configuration. Refused,
 * with nothing changed, when a map's layout differs. 0 or -errno (printed).
 */
int xs_upgrade(const char *ifname);

#endif /* XS_UPGRADE_H */
