/* SPDX-License-Identifier: MIT
 * libFuzzer target for the artifact reader: art_validate() and
 * artifact_load() on arbitrary bytes must never read out of bounds, leak
 * or crash; whatever loads must write again, and the written artifact
 * must be a fixed point of load + write. A custom mutator re-seals the
 * size and checksums after most mutations: without it nearly every input
 * would stop at the CRC checks and the structural checks behind them
 * would never be reached. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "artifact.h"
#include "artifact_load.h"
#include "artifact_read.h"
#include "artifact_write.h"
#include "crc32c.h"
#include "ir.h"

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Makes file_size and every checksum agree with the bytes, trusting the
 * section table only as far as it lies inside the buffer. */
static void
reseal(uint8_t *b, size_t len)
{
	size_t hsize, nsec;
	uint64_t toff;

	if (len < ART_HEADER_SIZE)
		return;
	hsize = le_get16(b + offsetof(struct art_file_header, header_size));
	if (hsize < ART_HEADER_SIZE || hsize > len)
		hsize = ART_HEADER_SIZE;
	le_put64(b + offsetof(struct art_file_header, file_size), len);
	nsec = le_get16(b + offsetof(struct art_file_header, section_count));
	toff = le_get64(b + offsetof(struct art_file_header, section_table_off));
	for (size_t i = 0;
	     i < nsec && toff <= len && (i + 1) * ART_SECTION_ENTRY_SIZE <= len - toff; i++) {
		uint8_t *e = b + toff + i * ART_SECTION_ENTRY_SIZE;
		uint64_t off = le_get64(e + offsetof(struct art_file_section, offset));
		uint64_t sz = le_get64(e + offsetof(struct art_file_section, size));

		if (off <= len && sz <= len - off)
			le_put32(e + offsetof(struct art_file_section, crc),
				  crc32c_buf(b + off, (size_t)sz));
	}
	le_put32(b + offsetof(struct art_file_header, body_crc),
		  crc32c_buf(b + hsize, len - hsize));
	le_put32(b + offsetof(struct art_file_header, header_crc), art_header_crc(b, hsize));
}

size_t
LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	size = LLVMFuzzerMutate(data, size, max_size);
	/* One input in eight keeps its damage, so the size and checksum
	 * refusals stay covered too. */
	if (seed % 8 != 0)
		reseal(data, size);
	return size;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct art_view view;
	struct ir_policy *p = NULL, *q = NULL;
	uint8_t *w1 = NULL, *w2 = NULL;
	size_t n1 = 0, n2 = 0;
	char err[256];

	if (art_validate(data, size, &view, err, sizeof(err)) != 0) {
		if (artifact_load(data, size, &p, err, sizeof(err)) == 0)
			abort(); /* the loader must refuse what the validator refuses */
		return 0;
	}
	if (artifact_load(data, size, &p, err, sizeof(err)) != 0)
		return 0; /* out of memory */
	if (artifact_write(p, &w1, &n1) != 0)
		abort(); /* an accepted artifact gives an IR the writer can store */
	if (artifact_load(w1, n1, &q, err, sizeof(err)) != 0 || artifact_write(q, &w2, &n2) != 0 ||
	    n1 != n2 || memcmp(w1, w2, n1) != 0)
		abort(); /* write(load(x)) must be a fixed point */
	ir_policy_free(p);
	ir_policy_free(q);
	free(w1);
	free(w2);
	return 0;
}
