/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The one order statistic every benchmark here reports from its rounds. */
#ifndef XS_BENCH_QUANTILE_H
#define XS_BENCH_QUANTILE_H

/* The @q quantile (0..1) of @n values, nearest rank; sorts @v in place. */
static inline double quantile(double *v, int n, double q)
{
	double t;
	int i, j;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (v[j] < v[i]) {
				t = v[i];
				v[i] = v[j];
				v[j] = t;
			}
	return v[(int)(q * (n - 1) + 0.5)];
}

#endif
