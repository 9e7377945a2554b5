# SPDX-License-Identifier: MIT
# The baseline of an agent's day: the project is there, heel runs in it,
# the project's Makefile builds into a writable copy, and what the
# sandbox may not do it does not do. (Other files: one topic each.)

wf_reads_the_project() {
	local out
	out=$(heel run cat README.md 2>&1) || prob "heel run cat README.md: $out"
	grep -q 'workflow suite' <<<"$out" || prob "README not read: $out"
	# Control: nothing outside the working directory is written.
	heel run sh -c 'echo x >planted' >/dev/null 2>&1
	[ ! -e planted ] || prob "the project was written without --writable"
}

wf_make_builds_with_writable() {
	local out
	out=$(heel run --writable . -- make -s hello 2>&1) || prob "make under --writable .: $out"
	[ -x hello ] || prob "no hello built"
	# What the sandbox wrote it may not run (writable places are never
	# executable); an rwx grant says it may.
	heel run --writable . -- ./hello >/dev/null 2>&1 && prob "a file written in a writable place ran"
	out=$(heel run --grant .=rwx -- ./hello 2>&1)
	[ "$out" = "hello, world" ] || prob "--grant .=rwx: $out"
}
