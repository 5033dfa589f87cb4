// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* sim output: aligned tables, CSV, JSON and small self-made SVG plots. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <string.h>
#include "log.h"
#include "sim.h"

static const char *resize_notes[] = {
	"time: build (ring points, Maglev table) + both assignments of every key, in C; "
	"published: Python, per algorithm",
	"kernel check: every Nth key, before and after, through xs_decide() on its real flow key "
	"(agreeing/checked)",
	"ring/rendezvous/maglev/fibonacci/modulo map the same SipHash value through their own "
	"mixing (xs_mix64 of shard id and point); std is the population std over live shards",
};

static const char *remove_notes[] = {
	"removal: modulo and fibonacci renumber the shards left; jump moves the last shard into "
	"the hole; jump + holes and shuffle leave a hole (include/xs_select.h)",
};

static void row_name(const struct xs_sim_row *row, char *buf, size_t len)
{
	snprintf(buf, len, "%s", row->algo->name);
}

static void resize_text(const struct xs_sim_resize *r, FILE *f)
{
	const struct xs_sim_resize_opts *o = &r->opt;
	char name[48], check[32];
	unsigned int i;

	if (o->remove == XS_NO_TARGET)
		fprintf(f, "sim resize: %u keys, %u -> %u shards\n", o->keys, o->from, o->to);
	else
		fprintf(f, "sim resize: %u keys, %u shards, shard %u removed from the middle\n",
			o->keys, o->from, o->remove);
	fprintf(f, "keys: synthetic IPv4 TCP flows, each hashed once with SipHash-1-3 "
		   "(xs_flow_hash, fixed seed): %.1f ms; rows use %u thread%s\n", r->hash_ms,
		o->threads, o->threads == 1 ? "" : "s");
	fprintf(f, "ideal (fair random assignment): stay %.3f%%, std sqrt(K p (1-p)) = %.1f with "
		   "p = 1/%u (~ sqrt(K/N) = %.1f), peak/mean %.4f\n\n", r->ideal_stay, r->ideal_std,
		r->after, sqrt((double)o->keys / r->after), r->ideal_peak);
	fprintf(f, "%-20s %7s %7s %10s %8s %9s %7s %8s %13s | %10s %10s %6s\n", "algorithm",
		"stay %", "ideal", "std/shard", "ideal", "peak/mean", "ideal", "time ms",
		"kernel check", "pub stay %", "pub std", "pub s");
	for (i = 0; i < r->nrows; i++) {
		const struct xs_sim_row *row = &r->row[i];

		row_name(row, name, sizeof(name));
		if (row->checked)
			snprintf(check, sizeof(check), "%u/%u", row->agreed, row->checked);
		else
			snprintf(check, sizeof(check), "-");
		fprintf(f, "%-20s %7.2f %7.2f %10.2f %8.1f %9.4f %7.4f %8.1f %13s |", name,
			row->stay, r->ideal_stay, row->std, r->ideal_std, row->peak, r->ideal_peak,
			row->ms, check);
		if (row->algo->ref_stay >= 0 && o->remove == XS_NO_TARGET && o->from == 20 &&
		    o->to == 21 && o->keys == 1000000)
			fprintf(f, " %10.2f %10.2f %6.2f\n", row->algo->ref_stay, row->algo->ref_std,
				row->algo->ref_sec);
		else
			fprintf(f, " %10s %10s %6s\n", "-", "-", "-");
	}
	fprintf(f, "%-20s %7s %7s %10s %8s %9s %7s %8.1f\n", "all rows", "", "", "", "", "", "",
		r->total_ms);
	fprintf(f, "\n");
	for (i = 0; i < XS_ARRAY_SIZE(resize_notes); i++)
		fprintf(f, "%s\n", resize_notes[i]);
	if (o->remove != XS_NO_TARGET)
		for (i = 0; i < XS_ARRAY_SIZE(remove_notes); i++)
			fprintf(f, "%s\n", remove_notes[i]);
}

static void resize_csv(const struct xs_sim_resize *r, FILE *f)
{
	unsigned int i;

	fprintf(f, "algorithm,param,keys,from,to,remove,stay_pct,ideal_stay_pct,std,ideal_std,"
		   "peak_to_mean,ideal_peak_to_mean,ms,checked,agreed\n");
	for (i = 0; i < r->nrows; i++) {
		const struct xs_sim_row *row = &r->row[i];

		fprintf(f, "%s,%u,%u,%u,%u,%d,%.4f,%.4f,%.3f,%.3f,%.5f,%.5f,%.3f,%u,%u\n",
			row->algo->name, row->algo->param, r->opt.keys, r->opt.from, r->opt.to,
			r->opt.remove == XS_NO_TARGET ? -1 : (int)r->opt.remove, row->stay,
			r->ideal_stay, row->std, r->ideal_std, row->peak, r->ideal_peak, row->ms,
			row->checked, row->agreed);
	}
}

static void resize_json(const struct xs_sim_resize *r, FILE *f)
{
	unsigned int i;

	fprintf(f, "{\"keys\": %u, \"from\": %u, \"to\": %u, \"remove\": %d, \"hash_ms\": %.3f, "
		   "\"total_ms\": %.3f, \"ideal\": {\"stay_pct\": %.4f, \"std\": %.3f, "
		   "\"peak_to_mean\": %.5f}, \"rows\": [",
		r->opt.keys, r->opt.from, r->opt.to,
		r->opt.remove == XS_NO_TARGET ? -1 : (int)r->opt.remove, r->hash_ms, r->total_ms,
		r->ideal_stay, r->ideal_std, r->ideal_peak);
	for (i = 0; i < r->nrows; i++) {
		const struct xs_sim_row *row = &r->row[i];

		fprintf(f, "%s\n  {\"algorithm\": \"%s\", \"param\": %u, \"stay_pct\": %.4f, "
			   "\"std\": %.3f, \"peak_to_mean\": %.5f, \"ms\": %.3f, \"checked\": %u, "
			   "\"agreed\": %u",
			i ? "," : "", row->algo->name, row->algo->param, row->stay, row->std,
			row->peak, row->ms, row->checked, row->agreed);
		if (row->algo->ref_stay >= 0)
			fprintf(f, ", \"published\": {\"stay_pct\": %.2f, \"std\": %.2f, "
				   "\"seconds\": %.2f}",
				row->algo->ref_stay, row->algo->ref_std, row->algo->ref_sec);
		fprintf(f, "}");
	}
	fprintf(f, "\n]}\n");
}

void xs_sim_resize_print(const struct xs_sim_resize *r, enum xs_sim_format fmt, FILE *f)
{
	if (fmt == XS_SIM_CSV)
		resize_csv(r, f);
	else if (fmt == XS_SIM_JSON)
		resize_json(r, f);
	else
		resize_text(r, f);
}

static void iso_name(const struct xs_iso_row *row, char *buf, size_t len)
{
	if (!strcmp(row->name, "shuffle"))
		snprintf(buf, len, "shuffle H=%u", row->hand);
	else
		snprintf(buf, len, "%s", row->name);
}

static void iso_text(const struct xs_iso_result *r, FILE *f)
{
	const struct xs_iso_opts *o = &r->opt;
	unsigned int i;
	char name[32];

	fprintf(f, "sim isolation: %u tenants, %u queues, %u heavy tenants at %ux the rate; "
		   "utilisation %.2f, flows of %u packets, %u packets per row\n",
		o->tenants, o->queues, o->heavy, o->ratio, o->util, o->flow_packets, o->events);
	fprintf(f, "queue model: FIFO, 1 time unit per packet; Poisson arrivals per tenant "
		   "(light %.4f, heavy %.3f packets per unit); least-loaded card at flow start; "
		   "RNG seed 0x%llx\n\n",
		r->light_rate, r->light_rate * o->ratio, (unsigned long long)o->rng_seed);
	fprintf(f, "%-13s %5s %6s %6s %9s %6s %8s %10s %10s %9s %9s %9s %9s %9s %6s\n",
		"algorithm", "cards", "hit %", "exp", "covered %", "exp", "this set",
		"same hand%", "1/C(N,H)%", "on heavy%", "max/mean", "light p50", "light p99",
		"heavy p99", "ms");
	for (i = 0; i < r->nrows; i++) {
		const struct xs_iso_row *row = &r->row[i];

		iso_name(row, name, sizeof(name));
		fprintf(f, "%-13s %5u %6.2f %6.2f %9.2f %6.2f %8.2f %10.4f %10.4f %9.2f %9.3f %9.2f "
			   "%9.2f %9.2f %6.1f\n",
			name, row->hand, row->hit, row->hit_exp, row->covered, row->covered_exp,
			row->covered_run,
			row->same_hand, 100 / xs_iso_choose(o->queues, row->hand), row->on_heavy,
			row->max_mean, row->p50, row->p99, row->heavy_p99, row->ms);
	}
	fprintf(f, "\nhit: light tenants whose hand shares a card with a heavy tenant's hand; "
		   "covered: every card shared (no escape)\n");
	fprintf(f, "hit, covered: mean over %u disjoint heavy sets of %u tenants; exp: closed "
		   "form over random hands; this set: covered for the queue model's heavy set\n",
		o->heavy ? (o->tenants / o->heavy < 256 ? o->tenants / o->heavy : 256) : 0,
		o->heavy);
	fprintf(f, "same hand: share of tenant pairs dealt the very same hand, against 1/C(N,H)\n");
	fprintf(f, "on heavy: light packets served by a queue that also served heavy packets; "
		   "max/mean: packets per queue\n");
	fprintf(f, "waits: time in queue before service, in packet service times (first 10%% of "
		   "packets are warm-up)\n");
}

static void iso_csv(const struct xs_iso_result *r, FILE *f)
{
	unsigned int i;

	fprintf(f, "algorithm,hand,hit_pct,hit_exp_pct,covered_pct,covered_exp_pct,covered_this_set_pct,"
		   "same_hand_pct,inv_choose_pct,on_heavy_pct,max_mean,light_p50,light_p99,"
		   "heavy_p99,ms\n");
	for (i = 0; i < r->nrows; i++) {
		const struct xs_iso_row *row = &r->row[i];

		fprintf(f, "%s,%u,%.4f,%.4f,%.4f,%.4f,%.4f,%.5f,%.5f,%.4f,%.5f,%.4f,%.4f,%.4f,%.3f\n",
			row->name, row->hand, row->hit, row->hit_exp, row->covered,
			row->covered_exp, row->covered_run, row->same_hand, 100 / xs_iso_choose(r->opt.queues, row->hand),
			row->on_heavy, row->max_mean, row->p50, row->p99, row->heavy_p99, row->ms);
	}
}

static void iso_json(const struct xs_iso_result *r, FILE *f)
{
	const struct xs_iso_opts *o = &r->opt;
	unsigned int i;

	fprintf(f, "{\"tenants\": %u, \"queues\": %u, \"heavy\": %u, \"ratio\": %u, "
		   "\"events\": %u, \"flow_packets\": %u, \"util\": %.3f, \"rng_seed\": %llu, "
		   "\"rows\": [",
		o->tenants, o->queues, o->heavy, o->ratio, o->events, o->flow_packets, o->util,
		(unsigned long long)o->rng_seed);
	for (i = 0; i < r->nrows; i++) {
		const struct xs_iso_row *row = &r->row[i];

		fprintf(f, "%s\n  {\"algorithm\": \"%s\", \"hand\": %u, \"hit_pct\": %.4f, "
			   "\"hit_exp_pct\": %.4f, \"covered_pct\": %.4f, \"covered_exp_pct\": %.4f, "
			   "\"covered_this_set_pct\": %.4f, "
			   "\"same_hand_pct\": %.5f, \"inv_choose_pct\": %.5f, \"on_heavy_pct\": %.4f, "
			   "\"max_mean\": %.5f, \"light_p50\": %.4f, \"light_p99\": %.4f, "
			   "\"heavy_p99\": %.4f, \"ms\": %.3f}",
			i ? "," : "", row->name, row->hand, row->hit, row->hit_exp, row->covered,
			row->covered_exp, row->covered_run, row->same_hand, 100 / xs_iso_choose(o->queues, row->hand),
			row->on_heavy, row->max_mean, row->p50, row->p99, row->heavy_p99, row->ms);
	}
	fprintf(f, "\n]}\n");
}

void xs_iso_print(const struct xs_iso_result *r, enum xs_sim_format fmt, FILE *f)
{
	if (fmt == XS_SIM_CSV)
		iso_csv(r, f);
	else if (fmt == XS_SIM_JSON)
		iso_json(r, f);
	else
		iso_text(r, f);
}

/* ---- SVG ---- */

static void svg_text(FILE *f, double x, double y, const char *anchor, int size, const char *fmt,
		     ...) __attribute__((format(printf, 6, 7)));

static void svg_text(FILE *f, double x, double y, const char *anchor, int size, const char *fmt,
		     ...)
{
	va_list ap;

	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">", x, y,
		anchor, size);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fprintf(f, "</text>\n");
}

static void svg_line(FILE *f, double x1, double y1, double x2, double y2, const char *style)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" style=\"%s\"/>\n", x1, y1,
		x2, y2, style);
}

static FILE *svg_open(const char *path, int w, int h)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		pr_warn("sim: cannot write plot %s: %s\n", path, strerror(errno));
		return NULL;
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		   "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", w, h, w, h);
	return f;
}

static int svg_close(FILE *f, const char *path)
{
	fprintf(f, "</svg>\n");
	if (fclose(f)) {
		pr_warn("sim: cannot write plot %s: %s\n", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

#define AXIS "stroke:#333;stroke-width:1"
#define GRID "stroke:#ccc;stroke-width:1"
#define IDEAL "stroke:#c00;stroke-width:1.5;stroke-dasharray:5,3"

/*
 * Two bar panels, one row per algorithm: keys moved (linear, ideal marked)
 * and std / ideal std (log scale: the 1-point ring is 200 times worse).
 */
int xs_sim_resize_svg(const struct xs_sim_resize *r, const char *path)
{
	const double top = 60, rowh = 22, lx = 160, pw = 300, rx = 560;
	double moved_ideal = 100 - r->ideal_stay, max_ratio = 10, lmax;
	int w = 900, h = (int)(top + rowh * r->nrows + 50);
	unsigned int i;
	double d;
	FILE *f;

	for (i = 0; i < r->nrows; i++)
		if (r->row[i].std / r->ideal_std > max_ratio)
			max_ratio = r->row[i].std / r->ideal_std;
	lmax = ceil(log10(max_ratio));
	f = svg_open(path, w, h);
	if (!f)
		return -errno;
	if (r->opt.remove == XS_NO_TARGET)
		svg_text(f, w / 2, 22, "middle", 15, "xdpsteer sim resize: %u keys, %u -> %u shards",
			 r->opt.keys, r->opt.from, r->opt.to);
	else
		svg_text(f, w / 2, 22, "middle", 15,
			 "xdpsteer sim resize: %u keys, shard %u of %u removed", r->opt.keys,
			 r->opt.remove, r->opt.from);
	svg_text(f, lx + pw / 2, 46, "middle", 12, "keys moved (%%), dashed: ideal %.2f%%",
		 moved_ideal);
	svg_text(f, rx + pw / 2, 46, "middle", 12, "std of keys per shard / ideal (log)");
	for (d = 0; d <= 100; d += 25) {
		svg_line(f, lx + pw * d / 100, top - 4, lx + pw * d / 100, top + rowh * r->nrows, GRID);
		svg_text(f, lx + pw * d / 100, top + rowh * r->nrows + 16, "middle", 11, "%.0f", d);
	}
	for (d = 0; d <= lmax; d++) {
		double x = rx + pw * d / lmax;

		svg_line(f, x, top - 4, x, top + rowh * r->nrows, GRID);
		svg_text(f, x, top + rowh * r->nrows + 16, "middle", 11, "%.0f", pow(10, d));
	}
	for (i = 0; i < r->nrows; i++) {
		const struct xs_sim_row *row = &r->row[i];
		double y = top + rowh * i, moved = 100 - row->stay;
		double ratio = row->std / r->ideal_std, lr = ratio > 1 ? log10(ratio) : 0;

		svg_text(f, lx - 8, y + 15, "end", 12, "%s", row->algo->name);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			   "fill=\"#4878a8\"/>\n", lx, y + 4, pw * moved / 100, rowh - 8);
		svg_text(f, lx + pw * moved / 100 + 4, y + 15, "start", 10, "%.2f", moved);
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			   "fill=\"#e49444\"/>\n", rx, y + 4, pw * lr / lmax, rowh - 8);
		svg_text(f, rx + pw * lr / lmax + 4, y + 15, "start", 10, "%.2f", ratio);
	}
	svg_line(f, lx + pw * moved_ideal / 100, top - 4, lx + pw * moved_ideal / 100,
		 top + rowh * r->nrows, IDEAL);
	svg_line(f, lx, top - 4, lx, top + rowh * r->nrows, AXIS);
	svg_line(f, rx, top - 4, rx, top + rowh * r->nrows, AXIS);
	svg_text(f, w / 2, h - 10, "middle", 11,
		 "ideal std %.1f = sqrt(K p (1-p)); time for all rows %.0f ms (C, this machine)",
		 r->ideal_std, r->total_ms);
	return svg_close(f, path);
}

/* A polyline of (x[i], y[i]) and a dot at each point; y < 0 is skipped. */
static void svg_series(FILE *f, const double *x, const double *y, unsigned int n,
		       const char *color, bool dashed, bool dots)
{
	unsigned int i;

	fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"%s points=\"",
		color, dashed ? " stroke-dasharray=\"5,3\"" : "");
	for (i = 0; i < n; i++)
		if (y[i] >= 0)
			fprintf(f, "%.1f,%.1f ", x[i], y[i]);
	fprintf(f, "\"/>\n");
	for (i = 0; dots && i < n; i++)
		if (y[i] >= 0)
			fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>\n", x[i],
				y[i], color);
}

static void svg_legend(FILE *f, double x, double y, const char *color, bool dashed,
		       const char *label)
{
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		   "stroke-width=\"1.8\"%s/>\n", x, y - 4, x + 22, y - 4, color,
		dashed ? " stroke-dasharray=\"5,3\"" : "");
	svg_text(f, x + 28, y, "start", 11, "%s", label);
}

/*
 * The hand-size trade-off across the shuffle rows: left, the share of light
 * tenants hit and covered (dots measured, dashed closed form); right, the
 * light tenants' p50 and p99 wait on a log(1 + w) scale, since waits start at 0.
 */
int xs_iso_svg(const struct xs_iso_result *r, const char *path)
{
	const double top = 50, ph = 280, lx = 70, rx = 520, pw = 340;
	double xs[XS_ISO_MAX_HANDS], y[4][XS_ISO_MAX_HANDS], hmax = 1, wmax = 1, lw;
	const struct xs_iso_row *row;
	unsigned int i, n = 0, k;
	int w = 920, h = (int)(top + ph + 90);
	FILE *f;

	for (i = 0; i < r->nrows; i++)
		if (!strcmp(r->row[i].name, "shuffle")) {
			hmax = r->row[i].hand > hmax ? r->row[i].hand : hmax;
			wmax = r->row[i].p99 > wmax ? r->row[i].p99 : wmax;
		}
	lw = ceil(log10(1 + wmax));
	f = svg_open(path, w, h);
	if (!f)
		return -errno;
	svg_text(f, w / 2, 22, "middle", 15,
		 "xdpsteer sim isolation: %u tenants, %u queues, %u heavy at %ux", r->opt.tenants,
		 r->opt.queues, r->opt.heavy, r->opt.ratio);
	svg_text(f, lx + pw / 2, top - 10, "middle", 12, "light tenants (%%) vs hand size H");
	svg_text(f, rx + pw / 2, top - 10, "middle", 12,
		 "light wait, packet times (log 1+w) vs H");
	for (k = 0; k <= 4; k++) {
		double yy = top + ph - ph * k / 4;

		svg_line(f, lx, yy, lx + pw, yy, GRID);
		svg_text(f, lx - 6, yy + 4, "end", 11, "%u", 25 * k);
	}
	for (k = 0; k <= lw; k++) {
		double yy = top + ph - ph * k / lw;

		svg_line(f, rx, yy, rx + pw, yy, GRID);
		svg_text(f, rx - 6, yy + 4, "end", 11, "%.0f", pow(10, k) - (k ? 0 : 1));
	}
	for (i = 0; i < r->nrows; i++) {
		row = &r->row[i];
		if (strcmp(row->name, "shuffle") || n >= XS_ISO_MAX_HANDS)
			continue;
		xs[n] = hmax > 1 ? (row->hand - 1) / (hmax - 1) : 0.5;
		y[0][n] = top + ph - ph * row->hit / 100;
		y[1][n] = top + ph - ph * row->hit_exp / 100;
		y[2][n] = top + ph - ph * row->covered / 100;
		y[3][n] = top + ph - ph * row->covered_exp / 100;
		svg_text(f, lx + pw * xs[n], top + ph + 16, "middle", 11, "%u", row->hand);
		svg_text(f, rx + pw * xs[n], top + ph + 16, "middle", 11, "%u", row->hand);
		n++;
	}
	{
		double x[XS_ISO_MAX_HANDS], p[2][XS_ISO_MAX_HANDS];

		for (i = 0; i < n; i++)
			x[i] = lx + pw * xs[i];
		svg_series(f, x, y[0], n, "#e49444", false, true);
		svg_series(f, x, y[1], n, "#e49444", true, false);
		svg_series(f, x, y[2], n, "#4878a8", false, true);
		svg_series(f, x, y[3], n, "#4878a8", true, false);
		for (i = 0, k = 0; i < r->nrows; i++) {
			row = &r->row[i];
			if (strcmp(row->name, "shuffle") || k >= n)
				continue;
			x[k] = rx + pw * xs[k];
			p[0][k] = top + ph - ph * log10(1 + row->p50) / lw;
			p[1][k] = top + ph - ph * log10(1 + row->p99) / lw;
			k++;
		}
		svg_series(f, x, p[0], n, "#59a14f", false, true);
		svg_series(f, x, p[1], n, "#b0403d", false, true);
	}
	svg_line(f, lx, top, lx, top + ph, AXIS);
	svg_line(f, lx, top + ph, lx + pw, top + ph, AXIS);
	svg_line(f, rx, top, rx, top + ph, AXIS);
	svg_line(f, rx, top + ph, rx + pw, top + ph, AXIS);
	svg_text(f, lx + pw / 2, top + ph + 34, "middle", 12, "hand size H (shuffle)");
	svg_text(f, rx + pw / 2, top + ph + 34, "middle", 12, "hand size H (shuffle)");
	svg_legend(f, lx, top + ph + 58, "#e49444", false, "hit: shares a card with a heavy hand");
	svg_legend(f, lx, top + ph + 76, "#4878a8", false, "covered: every card heavy (no escape)");
	svg_legend(f, lx + 250, top + ph + 58, "#555", true, "closed form");
	svg_legend(f, rx, top + ph + 58, "#59a14f", false, "light p50 wait");
	svg_legend(f, rx, top + ph + 76, "#b0403d", false, "light p99 wait");
	return svg_close(f, path);
}
