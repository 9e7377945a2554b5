/* SPDX-License-Identifier: MIT
 * The sandbox's network namespace, and capture's (linux_net.h). heel-exec
 * links libc only: the few rtnetlink requests are built by hand. */
#include "linux_net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxyctl.h"

/* The veth pair: the sandbox's end, and the capture namespace's. */
#define NET_SANDBOX_LINK "heel0"
#define NET_CAPTURE_LINK "heelcap"

static int
link_flags(const char *name, short set, char *err, size_t errlen)
{
	struct ifreq ifr;
	int s, r = 0;

	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		snprintf(err, errlen, "%s: socket: %s", name, strerror(errno));
		return -errno;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	/* SIOCSIFFLAGS sets every flag: read them first. */
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0 ||
	    (ifr.ifr_flags |= set, ioctl(s, SIOCSIFFLAGS, &ifr) < 0)) {
		r = -errno;
		snprintf(err, errlen, "bringing up the sandbox's %s: %s",
			 strcmp(name, "lo") == 0 ? "loopback" : name, strerror(errno));
	}
	close(s);
	return r;
}

int
net_loopback_up(char *err, size_t errlen)
{
	return link_flags("lo", IFF_UP, err, errlen);
}

/* ---------------------------------------------------------------- rtnetlink */

struct nlb {
	union {
		struct nlmsghdr h;
		char b[1024];
	} u;
	bool over;
};

static void *
nl_tail(struct nlb *m)
{
	return m->u.b + NLMSG_ALIGN(m->u.h.nlmsg_len);
}

/* Appends raw bytes (a header inside a nested attribute) or an
 * attribute; a request that does not fit is never sent (over). */
static void
nl_raw(struct nlb *m, const void *data, size_t len)
{
	if (NLMSG_ALIGN(m->u.h.nlmsg_len) + NLMSG_ALIGN(len) > sizeof(m->u.b)) {
		m->over = true;
		return;
	}
	memcpy(nl_tail(m), data, len);
	m->u.h.nlmsg_len = NLMSG_ALIGN(m->u.h.nlmsg_len) + (unsigned)NLMSG_ALIGN(len);
}

static struct rtattr *
nl_attr(struct nlb *m, unsigned short type, const void *data, size_t len)
{
	struct rtattr *a = nl_tail(m);

	if (NLMSG_ALIGN(m->u.h.nlmsg_len) + RTA_SPACE(len) > sizeof(m->u.b)) {
		m->over = true;
		return NULL;
	}
	a->rta_type = type;
	a->rta_len = (unsigned short)RTA_LENGTH(len);
	if (len)
		memcpy(RTA_DATA(a), data, len);
	m->u.h.nlmsg_len = NLMSG_ALIGN(m->u.h.nlmsg_len) + (unsigned)RTA_SPACE(len);
	return a;
}

static void
nl_end(struct nlb *m, struct rtattr *nest)
{
	if (nest && !m->over)
		nest->rta_len = (unsigned short)((char *)nl_tail(m) - (char *)nest);
}

static void
nl_begin(struct nlb *m, unsigned short type, const void *hdr, size_t len)
{
	memset(m, 0, sizeof(*m));
	m->u.h.nlmsg_len = NLMSG_LENGTH(0);
	m->u.h.nlmsg_type = type;
	m->u.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL;
	nl_raw(m, hdr, len);
}

/* Sends m and reads the kernel's answer. 0 or -errno. */
static int
nl_talk(struct nlb *m)
{
	struct sockaddr_nl k = { .nl_family = AF_NETLINK };
	char buf[4096];
	ssize_t n;
	int fd, r = -EIO;

	if (m->over)
		return -EMSGSIZE;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	if (sendto(fd, m->u.b, m->u.h.nlmsg_len, 0, (struct sockaddr *)&k, sizeof(k)) < 0) {
		r = -errno;
		goto out;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	if (n < 0) {
		r = -errno;
		goto out;
	}
	for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
	     h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type == NLMSG_ERROR) {
			r = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			break;
		}
	}
out:
	close(fd);
	return r;
}

/* A veth pair: NET_CAPTURE_LINK here, NET_SANDBOX_LINK in the namespace
 * peer_ns. Both ends have one hardware address and no ARP: a frame sent
 * to a neighbour without ARP goes to the sender's own address, which the
 * other end then takes as its own (IPv4's and IPv6's neighbour code, for
 * IFF_NOARP devices); so every destination is reached with no neighbour
 * answering for it. */
static int
make_veth(int peer_ns)
{
	static const unsigned char mac[6] = { 0x02, 0x68, 0x65, 0x65, 0x6c, 0x01 };
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct rtattr *info, *data, *peer;
	uint32_t ns = (uint32_t)peer_ns;
	struct nlb m;

	nl_begin(&m, RTM_NEWLINK, &ifi, sizeof(ifi));
	nl_attr(&m, IFLA_IFNAME, NET_CAPTURE_LINK, sizeof(NET_CAPTURE_LINK));
	nl_attr(&m, IFLA_ADDRESS, mac, sizeof(mac));
	info = nl_attr(&m, IFLA_LINKINFO, NULL, 0);
	nl_attr(&m, IFLA_INFO_KIND, "veth", 4);
	data = nl_attr(&m, IFLA_INFO_DATA, NULL, 0);
	peer = nl_attr(&m, VETH_INFO_PEER, NULL, 0);
	/* The peer's attributes follow an ifinfomsg of its own. */
	nl_raw(&m, &ifi, sizeof(ifi));
	nl_attr(&m, IFLA_IFNAME, NET_SANDBOX_LINK, sizeof(NET_SANDBOX_LINK));
	nl_attr(&m, IFLA_ADDRESS, mac, sizeof(mac));
	nl_attr(&m, IFLA_NET_NS_FD, &ns, sizeof(ns));
	nl_end(&m, peer);
	nl_end(&m, data);
	nl_end(&m, info);
	return nl_talk(&m);
}

static int
add_addr(int family, unsigned ifindex, const char *text)
{
	struct ifaddrmsg ifa = {
		.ifa_family = (unsigned char)family,
		.ifa_prefixlen = family == AF_INET ? 32 : 128,
		/* No neighbour to detect a duplicate with. */
		.ifa_flags = IFA_F_NODAD,
		.ifa_scope = RT_SCOPE_UNIVERSE,
		.ifa_index = ifindex,
	};
	unsigned char a[16];
	size_t len = family == AF_INET ? 4 : 16;
	struct nlb m;

	if (inet_pton(family, text, a) != 1)
		return -EINVAL;
	nl_begin(&m, RTM_NEWADDR, &ifa, sizeof(ifa));
	nl_attr(&m, IFA_LOCAL, a, len);
	nl_attr(&m, IFA_ADDRESS, a, len);
	return nl_talk(&m);
}

/* A route in the main table: type RTN_LOCAL (every destination is this
 * namespace's own) or RTN_UNICAST (out of ifindex, no gateway). text:
 * the destination, NULL for the default route. */
static int
add_route(int family, unsigned char type, const char *text, unsigned ifindex)
{
	struct rtmsg rt = {
		.rtm_family = (unsigned char)family,
		.rtm_table = RT_TABLE_MAIN,
		.rtm_protocol = RTPROT_BOOT,
		.rtm_scope = type == RTN_LOCAL ? RT_SCOPE_HOST : RT_SCOPE_LINK,
		.rtm_type = type,
	};
	uint32_t oif = ifindex;
	unsigned char a[16];
	struct nlb m;

	if (text) {
		if (inet_pton(family, text, a) != 1)
			return -EINVAL;
		rt.rtm_dst_len = family == AF_INET ? 32 : 128;
	}
	nl_begin(&m, RTM_NEWROUTE, &rt, sizeof(rt));
	if (text)
		nl_attr(&m, RTA_DST, a, family == AF_INET ? 4 : 16);
	nl_attr(&m, RTA_OIF, &oif, sizeof(oif));
	return nl_talk(&m);
}

/* ---------------------------------------------------------------- capture */

static int
capture_socket(struct net_capture *c, int family, int type, uint16_t port, const char *kind)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t sl;
	int one = 1, fd, r;

	if (c->n >= NET_CAPTURE_FDS_MAX)
		return -E2BIG;
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		sl = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		sl = sizeof(*in6);
	}
	fd = socket(family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Every address is local here: the wildcard takes every destination
	 * on the port, and getsockname() on an accepted connection gives the
	 * one the program dialled. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (family == AF_INET6 &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
	    (family == AF_INET6 && type == SOCK_DGRAM &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof(one)) < 0) ||
	    (family == AF_INET && type == SOCK_DGRAM &&
	     setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &one, sizeof(one)) < 0) ||
	    bind(fd, (struct sockaddr *)&ss, sl) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 4096) < 0)) {
		r = -errno;
		close(fd);
		return r;
	}
	c->fd[c->n] = fd;
	c->kind[c->n++] = kind;
	return 0;
}

/* In the capture namespace: its links, routes and sockets. */
static int
capture_inside(int sandbox_ns, bool v6, const uint16_t *ports, size_t nports,
	       struct net_capture *c, char *err, size_t errlen)
{
	unsigned idx;
	int r;

	if ((r = link_flags("lo", IFF_UP, err, errlen)) < 0)
		return r;
	if ((r = make_veth(sandbox_ns)) < 0) {
		snprintf(err, errlen, "capture: the veth link: %s%s", strerror(-r),
			 r == -EOPNOTSUPP
			     ? " (this kernel has no veth driver loaded, which capturing an "
			       "allow-list's connections needs: `modprobe veth` as root, or a "
			       "kernel with CONFIG_VETH)"
			     : "");
		return r;
	}
	if ((r = link_flags(NET_CAPTURE_LINK, IFF_UP | IFF_NOARP, err, errlen)) < 0)
		return r;
	idx = if_nametoindex(NET_CAPTURE_LINK);
	/* Every destination is ours; the sandbox's own address, more
	 * specific, goes back over the link. The main table, not the local
	 * one: the local table is looked up first, and its default route
	 * would take the sandbox's address too. */
	if ((r = add_route(AF_INET, RTN_LOCAL, NULL, if_nametoindex("lo"))) < 0 ||
	    (r = add_route(AF_INET, RTN_UNICAST, PROXYCTL_CAP_SANDBOX4, idx)) < 0 ||
	    (v6 && (r = add_route(AF_INET6, RTN_LOCAL, NULL, if_nametoindex("lo"))) < 0) ||
	    (v6 && (r = add_route(AF_INET6, RTN_UNICAST, PROXYCTL_CAP_SANDBOX6, idx)) < 0)) {
		snprintf(err, errlen, "capture: the capture namespace's routes: %s", strerror(-r));
		return r;
	}
	for (size_t i = 0; i < nports; i++) {
		if (ports[i] == 53)
			continue; /* DNS's */
		if ((r = capture_socket(c, AF_INET, SOCK_STREAM, ports[i], "tcp")) < 0 ||
		    (v6 && (r = capture_socket(c, AF_INET6, SOCK_STREAM, ports[i], "tcp")) < 0)) {
			snprintf(err, errlen, "capture: listening on port %u: %s", ports[i],
				 strerror(-r));
			return r;
		}
	}
	if ((r = capture_socket(c, AF_INET, SOCK_DGRAM, 53, "dns-udp")) < 0 ||
	    (r = capture_socket(c, AF_INET, SOCK_STREAM, 53, "dns-tcp")) < 0 ||
	    (v6 && (r = capture_socket(c, AF_INET6, SOCK_DGRAM, 53, "dns-udp")) < 0) ||
	    (v6 && (r = capture_socket(c, AF_INET6, SOCK_STREAM, 53, "dns-tcp")) < 0)) {
		snprintf(err, errlen, "capture: the name server's port 53: %s", strerror(-r));
		return r;
	}
	return 0;
}

/* In the sandbox's namespace: its end of the link, its addresses, and the
 * default routes over it. */
static int
capture_sandbox_side(bool v6, char *err, size_t errlen)
{
	unsigned idx;
	int r, fd;

	if ((r = link_flags(NET_SANDBOX_LINK, IFF_UP | IFF_NOARP, err, errlen)) < 0)
		return r;
	idx = if_nametoindex(NET_SANDBOX_LINK);
	if ((r = add_addr(AF_INET, idx, PROXYCTL_CAP_SANDBOX4)) < 0 ||
	    (v6 && (r = add_addr(AF_INET6, idx, PROXYCTL_CAP_SANDBOX6)) < 0) ||
	    (r = add_route(AF_INET, RTN_UNICAST, NULL, idx)) < 0 ||
	    (v6 && (r = add_route(AF_INET6, RTN_UNICAST, NULL, idx)) < 0)) {
		snprintf(err, errlen, "capture: the sandbox's addresses and routes: %s",
			 strerror(-r));
		return r;
	}
	fd = open("/proc/sys/net/ipv4/ip_unprivileged_port_start", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "0\n", 2) != 2) {
		r = -errno;
		snprintf(err, errlen, "capture: the sandbox's net.ipv4.ip_unprivileged_port_start: %s",
			 strerror(errno));
		if (fd >= 0)
			close(fd);
		return r;
	}
	close(fd);
	return 0;
}

int
net_capture_make(const uint16_t *ports, size_t nports, struct net_capture *c, char *err,
		 size_t errlen)
{
	int sandbox_ns, r, probe;
	bool v6;

	c->n = 0;
	/* A kernel without IPv6 captures IPv4 only; there is nothing else
	 * the sandbox could dial. */
	probe = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	v6 = probe >= 0;
	if (probe >= 0)
		close(probe);
	sandbox_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (sandbox_ns < 0) {
		snprintf(err, errlen, "capture: the sandbox's network namespace: %s",
			 strerror(errno));
		return -errno;
	}
	if (unshare(CLONE_NEWNET) < 0) {
		r = -errno;
		snprintf(err, errlen, "capture: a network namespace for capture: %s",
			 strerror(errno));
		close(sandbox_ns);
		return r;
	}
	r = capture_inside(sandbox_ns, v6, ports, nports, c, err, errlen);
	/* Back, whatever happened: the command must start (or be refused)
	 * in the sandbox's namespace. The capture namespace lives on in its
	 * sockets. */
	if (setns(sandbox_ns, CLONE_NEWNET) < 0) {
		snprintf(err, errlen, "capture: back to the sandbox's network namespace: %s",
			 strerror(errno));
		r = -errno;
	}
	close(sandbox_ns);
	if (r == 0)
		r = capture_sandbox_side(v6, err, errlen);
	if (r < 0)
		net_capture_close(c);
	return r;
}

void
net_capture_close(struct net_capture *c)
{
	for (size_t i = 0; i < c->n; i++)
		close(c->fd[i]);
	c->n = 0;
}
