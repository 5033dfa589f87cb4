// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* pcapng (draft-ietf-opsawg-pcapng): the blocks `trace --pcap` writes (pcapng.h). */
#include <errno.h>
#include <string.h>
#include "pcapng.h"

#define XS_PCAPNG_SHB 0x0A0D0D0A
#define XS_PCAPNG_IDB 0x00000001
#define XS_PCAPNG_EPB 0x00000006
#define XS_PCAPNG_MAGIC 0x1A2B3C4D
#define XS_LINKTYPE_ETHERNET 1
#define XS_OPT_END 0
#define XS_OPT_COMMENT 1
#define XS_IF_NAME 2
#define XS_IF_TSRESOL 9

static __u32 xs_pad4(__u32 n)
{
	return (n + 3) & ~3U;
}

/* Every block: its type, total length, body, total length again. Host byte order. */
static int xs_pcapng_write(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -EIO;
}

static int xs_pcapng_opt(FILE *f, __u16 code, const void *val, __u16 len)
{
	static const __u8 zero[4];
	__u16 hdr[2] = { code, len };

	return xs_pcapng_write(f, hdr, sizeof(hdr)) ?: xs_pcapng_write(f, val, len) ?:
	       xs_pcapng_write(f, zero, xs_pad4(len) - len);
}

static __u32 xs_opt_len(__u32 len)
{
	return 4 + xs_pad4(len);
}

int xs_pcapng_start(FILE *f, const char *ifname, __u32 snaplen)
{
	__u32 shb[] = { XS_PCAPNG_SHB, 28, XS_PCAPNG_MAGIC, 0x00000001 /* version 1.0 */,
			0xffffffff, 0xffffffff /* section length: unknown */, 28 };
	__u16 name_len = (__u16)strlen(ifname);
	__u8 tsresol = 9; /* 10^-9: the record's nanoseconds as they are */
	__u32 idb_len = 20 + xs_opt_len(name_len) + xs_opt_len(1) + 4;
	__u32 idb[] = { XS_PCAPNG_IDB, idb_len, XS_LINKTYPE_ETHERNET /* and 16 bits reserved */,
			snaplen };
	__u32 end = XS_OPT_END;

	return xs_pcapng_write(f, shb, sizeof(shb)) ?: xs_pcapng_write(f, idb, sizeof(idb)) ?:
	       xs_pcapng_opt(f, XS_IF_NAME, ifname, name_len) ?:
	       xs_pcapng_opt(f, XS_IF_TSRESOL, &tsresol, 1) ?:
	       xs_pcapng_write(f, &end, sizeof(end)) ?: xs_pcapng_write(f, &idb_len, 4);
}

int xs_pcapng_packet(FILE *f, __u64 ts_ns, const void *data, __u32 cap, __u32 len,
		     const char *comment)
{
	static const __u8 zero[4];
	__u16 clen = comment ? (__u16)strnlen(comment, 65000) : 0;
	__u32 opts = clen ? xs_opt_len(clen) + 4 : 0;
	__u32 total = 32 + xs_pad4(cap) + opts;
	__u32 epb[] = { XS_PCAPNG_EPB, total, 0 /* interface 0 */, (__u32)(ts_ns >> 32),
			(__u32)ts_ns, cap, len };
	__u32 end = XS_OPT_END;
	int err;

	err = xs_pcapng_write(f, epb, sizeof(epb)) ?: xs_pcapng_write(f, data, cap) ?:
	      xs_pcapng_write(f, zero, xs_pad4(cap) - cap);
	if (!err && clen)
		err = xs_pcapng_opt(f, XS_OPT_COMMENT, comment, clen) ?:
		      xs_pcapng_write(f, &end, sizeof(end));
	return err ?: xs_pcapng_write(f, &total, 4);
}
