#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes a policy with N distinct grants (and some denies and allow-list
# patterns, one for every ten grants) to stdout, to measure heelc on very
# large policies. Usage: gen_policy.sh N
n=$1
awk -v n="$n" 'BEGIN {
	print "heel 1"
	print "isolation strict"
	modes[0] = "r"; modes[1] = "rw"; modes[2] = "rx"; modes[3] = "rwx"
	for (i = 0; i < n; i++)
		printf "grant \"/srv/data/d%d/f%d\" %s\n", i % 977, i, modes[i % 4]
	for (i = 0; i < n / 10; i++)
		printf "deny \"/srv/data/d%d/f%d/secret\"\n", i % 977, i
	print "network allow {"
	for (i = 0; i < n / 10; i++)
		printf "    \"h%d.example.com\"\n", i
	print "}"
}'
