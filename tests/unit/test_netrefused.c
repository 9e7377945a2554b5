/* SPDX-License-Identifier: MIT
 * The counters of what a sandbox under network deny tried to reach
 * (runtime/netrefused.c), in the forms /proc/net/snmp and snmp6 give
 * them (Linux 6.x), and the limits as heel-exec writes them
 * (runtime/rlimits.c lim_text). */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "netrefused.h"
#include "rlimits.h"

static const char snmp[] =
	"Ip: Forwarding DefaultTTL InReceives InHdrErrors InAddrErrors ForwDatagrams InUnknownProtos "
	"InDiscards InDelivers OutRequests OutDiscards OutNoRoutes ReasmTimeout ReasmReqds ReasmOKs "
	"ReasmFails FragOKs FragFails FragCreates OutTransmits\n"
	"Ip: 2 64 10 0 0 0 0 0 10 12 0 3 0 0 0 0 0 0 0 12\n"
	"Icmp: InMsgs InErrors OutNoRoutes\n"
	"Icmp: 0 0 99\n"
	"IpExt: InNoRoutes OutNoRoutes\n"
	"IpExt: 0 77\n";

static const char snmp6[] = "Ip6InReceives                   \t5\n"
			    "Ip6InNoRoutes                   \t1\n"
			    "Ip6OutNoRoutes                  \t4\n"
			    "Ip6OutNoRoutesX                 \t8\n";

Test(netrefused, the_ip_counter_of_snmp)
{
	uint64_t v = 0;

	cr_assert_eq(netrefused_parse(snmp, "Ip:OutNoRoutes", &v), 0);
	cr_assert_eq(v, 3); /* not Icmp's, not IpExt's */
	cr_assert_eq(netrefused_parse(snmp, "Ip:Nothing", &v), -ENOENT);
	cr_assert_eq(netrefused_parse("", "Ip:OutNoRoutes", &v), -ENOENT);
	cr_assert_eq(netrefused_parse("Ip: OutNoRoutes\n", "Ip:OutNoRoutes", &v), -ENOENT);
}

Test(netrefused, the_ip6_counter_of_snmp6)
{
	uint64_t v = 0;

	cr_assert_eq(netrefused_parse(snmp6, "Ip6OutNoRoutes", &v), 0);
	cr_assert_eq(v, 4);
	cr_assert_eq(netrefused_parse(snmp6, "Ip6OutNo", &v), -ENOENT);
}

Test(netrefused, this_process_reads_its_own)
{
	uint64_t v4 = 1, v6 = 1;

	cr_assert_eq(netrefused_read(&v4, &v6), 0);
}

Test(limits_text, as_a_policy_writes_them)
{
	static const struct {
		int i;
		uint64_t v;
		const char *text;
	} cases[] = {
		{ 0, 2000000000ULL, "limit memory 2GB" },
		{ 0, 2147483648ULL, "limit memory 2GiB" },
		{ 0, 1610612736ULL, "limit memory 1536MiB" },
		{ 0, 50000000ULL, "limit memory 50MB" },
		{ 0, 1000ULL * 1024, "limit memory 1000KiB" },
		{ 0, 1234567ULL, "limit memory 1234567B" },
		{ 1, 30, "limit cpu 30s" },
		{ 2, 64, "limit processes 64" },
		{ 3, 1024, "limit open-files 1024" },
		{ 4, 1024, "limit file-size 1KiB" },
	};
	char buf[64];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		cr_expect_str_eq(lim_text(cases[k].i, cases[k].v, buf, sizeof(buf)), cases[k].text);
}
