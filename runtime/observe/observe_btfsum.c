/* SPDX-License-Identifier: MIT
 * Build helper for heel-observe: prints the size and CRC-32C of a BTF
 * file (the build machine's /sys/kernel/btf/vmlinux), the identity under
 * which heel-observe uses the minimal BTF made from it at build time
 * (observe_main.c, obs_min_btf). Never installed. */
#include <stdio.h>
#include <stdlib.h>

#include "crc32c.h"

int
main(int argc, char *argv[])
{
	unsigned char buf[1 << 16];
	unsigned long long size = 0;
	uint32_t crc = 0;
	size_t n;
	FILE *f;

	if (argc != 2 || !(f = fopen(argv[1], "rb"))) {
		fprintf(stderr, "usage: observe_btfsum FILE\n");
		return 2;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		crc = crc32c_update(crc, buf, n);
		size += n;
	}
	fclose(f);
	printf("%llu 0x%08x\n", size, (unsigned)crc);
	return 0;
}
