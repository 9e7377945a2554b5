/* SPDX-License-Identifier: MIT
 * payload: a dynamically linked program for the ld.so case (escape 21:
 * exec without execve): copied into the working directory and started through
 * /lib64/ld-linux-x86-64.so.2, which maps it with mmap(PROT_EXEC) instead
 * of execve. Exits 0 only when it really ran. */
#include <stdio.h>

int
main(void)
{
	puts("PAYLOAD-RAN");
	return 0;
}
