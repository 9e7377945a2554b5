/* SPDX-License-Identifier: MIT
 * What blast_server sends and proxy_bench checks: a block of
 * pseudo-random bytes, repeated, so a byte lost, doubled or reordered by a
 * proxy shows as a mismatch at a known offset. */
#ifndef HEEL_BENCH_BLAST_H
#define HEEL_BENCH_BLAST_H

#include <stdint.h>

#define BLAST_BLOCK (256 * 1024)

/* The size of a request in blast_server's 'P' mode, written in two
 * halves. */
#define BLAST_PAIR 20

/* Fills p (BLAST_BLOCK bytes) with xorshift32 output: no period shorter
 * than the block, unlike a counter a proxy could shift by 256 unseen. */
static inline void
blast_pattern(uint8_t *p)
{
	uint32_t x = 2463534242u;

	for (int i = 0; i < BLAST_BLOCK; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)(x >> 24);
	}
}

#endif
