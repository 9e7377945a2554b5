/* SPDX-License-Identifier: MIT
 * serve: a host-side listener for the conformance suite, outside any
 * sandbox: `serve unix PATH`, `serve abstract NAME`, `serve tcp PORT`
 * (127.0.0.1; 0 picks a port), `serve tcp6 PORT` (::1). Prints "READY
 * PORT" once listening, then accepts and closes connections until
 * killed, printing "ACCEPT" for each: a case can tell that nothing
 * reached it. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int
main(int argc, char *argv[])
{
	int fd, port = 0;

	if (argc != 3) {
		fputs("usage: serve unix PATH | abstract NAME | tcp PORT | tcp6 PORT\n", stderr);
		return 2;
	}
	if (strcmp(argv[1], "tcp6") == 0) {
		struct sockaddr_in6 a = { .sin6_family = AF_INET6,
					  .sin6_port = htons((uint16_t)atoi(argv[2])),
					  .sin6_addr = IN6ADDR_LOOPBACK_INIT };
		socklen_t len = sizeof(a);
		int one = 1;

		fd = socket(AF_INET6, SOCK_STREAM, 0);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
		    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
			perror("serve: tcp6");
			return 1;
		}
		port = ntohs(a.sin6_port);
	} else if (strcmp(argv[1], "tcp") == 0) {
		struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])) };
		socklen_t len = sizeof(a);
		int one = 1;

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
		    getsockname(fd, (struct sockaddr *)&a, &len) < 0) {
			perror("serve: tcp");
			return 1;
		}
		port = ntohs(a.sin_port);
	} else {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		socklen_t len = sizeof(a);

		if (strcmp(argv[1], "abstract") == 0) {
			strncpy(a.sun_path + 1, argv[2], sizeof(a.sun_path) - 2);
			len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(argv[2]));
		} else {
			strncpy(a.sun_path, argv[2], sizeof(a.sun_path) - 1);
			unlink(argv[2]);
		}
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&a, len) < 0) {
			perror("serve: unix");
			return 1;
		}
	}
	if (listen(fd, 16) < 0) {
		perror("serve: listen");
		return 1;
	}
	printf("READY %d\n", port);
	fflush(stdout);
	for (;;) {
		int c = accept(fd, NULL, NULL);

		if (c >= 0) {
			close(c);
			puts("ACCEPT");
			fflush(stdout);
		}
	}
}
