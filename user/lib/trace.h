/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * `xdpsteer trace` below the command: the filter from its words, and the
 * switch: the filter map and the running program's xs_trace_on flag
 * (bpf/xs_trace.h), set together and cleared together.
 */
#ifndef XS_TRACE_LIB_H
#define XS_TRACE_LIB_H

#include <stdbool.h>
#include "handle.h"
#include "xs_trace_rec.h"

struct xs_trace {
	const struct xs_handle *h;
	int filter_fd;
	int ring_fd;
	int bss_fd;
	volatile __u32 *on;     /* xs_trace_on in the program's mapped .bss */
	void *bss;
	size_t bss_len;
	bool armed;
};

/*
 * FILTER words, in pairs: service VIP:PORT/PROTO, client ADDR[/LEN],
 * backend ADDR, reason NAME[,NAME...]. Into @f: 0, or -EINVAL printed.
 */
int xs_trace_filter_parse(const struct xs_handle *h, const char *const *words, int n,
			  struct xs_trace_filter *f);
/* Open @h's trace maps and its program's .bss: 0 or -errno, printed. */
int xs_trace_open(const struct xs_handle *h, struct xs_trace *t);
/* Write @f, owned by this process, then set the flag; refused if another trace runs. */
int xs_trace_arm(struct xs_trace *t, struct xs_trace_filter *f);
/* Clear the flag, then the filter: the state of before xs_trace_arm(). */
int xs_trace_disarm(struct xs_trace *t);
void xs_trace_close(struct xs_trace *t);

#endif /* XS_TRACE_LIB_H */
