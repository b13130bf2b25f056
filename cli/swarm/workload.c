// SPDX-License-Identifier: GPL-2.0
/*
 * mdkctl swarm: YCSB's workloads, keys and request distribution.
 */
#include <math.h>
#include <stdio.h>

#include "swarm.h"

const char *const mdkctl_swarm_wl_name[2] = { "A", "B" };
const unsigned int mdkctl_swarm_wl_read[2] = { 50, 95 };

/*
 * zeta(n, theta), the sum of i^-theta for i = 1..n: exactly up to 10^6,
 * then the Euler-Maclaurin formula for the tail (YCSB itself sums 10^10
 * terms, or uses its constant for 0.99, which this reproduces).
 */
static double zeta(uint64_t n, double theta)
{
	const uint64_t m = n < 1000000 ? n : 1000000;
	double sum = 0, a, b;

	for (uint64_t i = 1; i <= m; i++)
		sum += 1 / pow((double)i, theta);
	if (n == m)
		return sum;
	a = (double)m;
	b = (double)n;
	return sum - pow(a, -theta) +
	       (pow(b, 1 - theta) - pow(a, 1 - theta)) / (1 - theta) +
	       (pow(a, -theta) + pow(b, -theta)) / 2 +
	       theta * (pow(a, -theta - 1) - pow(b, -theta - 1)) / 12;
}

void mdkctl_swarm_zipf_init(struct mdkctl_swarm_zipf *z, uint64_t keys,
			    uint64_t items, double theta)
{
	double zeta2 = 1 + pow(0.5, theta);

	z->keys = keys;
	z->items = items ? items : keys;
	z->theta = theta;
	if (theta <= 0)
		return;
	z->zetan = z->items == MDKCTL_SWARM_ZIPF_YCSB_ITEMS && theta == 0.99 ?
			   26.46902820178302 : /* YCSB's ZETAN */
			   zeta(z->items, theta);
	z->alpha = 1 / (1 - theta);
	z->eta = (1 - pow(2.0 / (double)z->items, 1 - theta)) /
		 (1 - zeta2 / z->zetan);
	z->half_pow = 1 + pow(0.5, theta);
}

uint64_t mdkctl_swarm_zipf_next(const struct mdkctl_swarm_zipf *z,
				uint64_t *seed)
{
	double u, uz;
	uint64_t item, h = 0xcbf29ce484222325ULL;

	if (z->theta <= 0)
		return mdk_splitmix64(seed) % z->keys;
	u = (double)(mdk_splitmix64(seed) >> 11) / (double)(1ULL << 53);
	uz = u * z->zetan;
	if (uz < 1)
		item = 0;
	else if (uz < z->half_pow)
		item = 1;
	else
		item = (uint64_t)((double)z->items *
				  pow(z->eta * u - z->eta + 1, z->alpha));
	if (item >= z->items)
		item = z->items - 1;
	/* Scramble: hot items spread over the key space (FNV-1a). */
	for (int i = 0; i < 8; i++) {
		h ^= (item >> (8 * i)) & 0xff;
		h *= 0x100000001b3ULL;
	}
	return h % z->keys;
}

size_t mdkctl_swarm_key_of(char *buf, size_t size, uint64_t k)
{
	/* "user" and 20 digits: 24 bytes, YCSB's key format. */
	return (size_t)snprintf(buf, size, "user%020llu",
				(unsigned long long)k) < size ?
		       24 :
		       0;
}
