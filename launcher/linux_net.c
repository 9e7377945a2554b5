/* SPDX-License-Identifier: MIT
 * The sandbox's network namespace; see linux_net.h. */
#include "linux_net.h"

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int
net_loopback_up(char *err, size_t errlen)
{
	struct ifreq ifr;
	int s, r = 0;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		snprintf(err, errlen, "loopback: socket: %s", strerror(errno));
		return -errno;
	}
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	/* SIOCSIFFLAGS sets every flag: read them first. */
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0 ||
	    (ifr.ifr_flags |= IFF_UP, ioctl(s, SIOCSIFFLAGS, &ifr) < 0)) {
		r = -errno;
		snprintf(err, errlen, "bringing up the sandbox's loopback: %s", strerror(errno));
	}
	close(s);
	return r;
}
