/* SPDX-License-Identifier: MIT
 * hpolpatch: rewrites one field of an artifact and fixes every checksum,
 * so the result is well-formed and only the field's meaning changed:
 * `hpolpatch IN OUT landlock-min-abi N` raises the Landlock table's
 * minimum ABI (escape 60: a sandbox silently not applied; a policy this
 * kernel cannot enforce must be refused, not run weaker). Exit 0 on success, 3 when the artifact has
 * no such section, 1 on any other failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "le.h"

int
main(int argc, char *argv[])
{
	static uint8_t buf[16 << 20];
	uint64_t size, stoff, off, len;
	uint16_t hsize, count;
	size_t n;
	FILE *f;
	int found = 0;

	if (argc != 5 || strcmp(argv[3], "landlock-min-abi") != 0) {
		fputs("usage: hpolpatch IN OUT landlock-min-abi N\n", stderr);
		return 1;
	}
	if (!(f = fopen(argv[1], "rb")))
		return 1;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (n < 64)
		return 1;
	hsize = le_get16(buf + 12);
	count = le_get16(buf + 14);
	size = le_get64(buf + 32);
	stoff = le_get64(buf + 40);
	if (size != n || hsize < 64 || stoff + 32ull * count > n)
		return 1;
	for (unsigned i = 0; i < count; i++) {
		uint8_t *e = buf + stoff + 32 * i;

		if (le_get32(e) != 16)
			continue;
		off = le_get64(e + 8);
		len = le_get64(e + 16);
		if (off + len > n || len < 8)
			return 1;
		le_put32(buf + off + 4, (uint32_t)atoi(argv[4]));
		le_put32(e + 24, crc32c_buf(buf + off, len));
		found = 1;
	}
	if (!found)
		return 3;
	le_put32(buf + 52, crc32c_buf(buf + hsize, n - hsize));
	le_put32(buf + 48, 0);
	le_put32(buf + 48, crc32c_buf(buf, hsize));
	if (!(f = fopen(argv[2], "wb")) || fwrite(buf, 1, n, f) != n || fclose(f))
		return 1;
	return 0;
}
