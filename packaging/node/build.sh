#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds build/heel.node, the addon under lib/index.js, against the
# installed libheel as pkg-config finds it (heel.pc; PKG_CONFIG_PATH for
# another prefix) and the N-API headers of the Node that runs npm. No
# node-gyp: it would fetch headers from the internet when they are not
# where it looks, and the addon is one C file. npm runs this as the
# package's install script; `sh build.sh` runs it by hand.
set -eu
cd "$(dirname "$0")"
CC=${CC:-cc}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}

if ! command -v "$PKG_CONFIG" >/dev/null 2>&1; then
	echo "heel: building the addon needs pkg-config (Debian: pkg-config)" >&2
	exit 1
fi
if ! "$PKG_CONFIG" --exists heel; then
	echo "heel: pkg-config finds no libheel (heel.pc): install heel first (make install)," >&2
	echo "heel: or point PKG_CONFIG_PATH at the directory holding heel.pc" >&2
	exit 1
fi

# node_api.h (and uv.h, there or in the system's include path, as
# Debian's libuv1-dev has it): NODE_API_INCLUDE, else beside the node that runs
# this (npm names it in npm_node_execpath), else Debian's libnode-dev.
inc=${NODE_API_INCLUDE:-}
if [ -z "$inc" ]; then
	node=${npm_node_execpath:-$(command -v node || true)}
	for d in ${node:+"$(dirname "$(dirname "$node")")/include/node"} /usr/include/node /usr/local/include/node; do
		if [ -f "$d/node_api.h" ]; then
			inc=$d
			break
		fi
	done
fi
if [ -z "$inc" ] || [ ! -f "$inc/node_api.h" ]; then
	echo "heel: node_api.h not found (Debian: libnode-dev; or set NODE_API_INCLUDE to its directory)" >&2
	exit 1
fi

# The library's directory as pkg-config gives it, as the addon's run
# path: a libheel outside the loader's own directories is found as well.
libdir=
for f in $("$PKG_CONFIG" --libs-only-L heel); do
	libdir=${f#-L}
done
mkdir -p build
# shellcheck disable=SC2046 # pkg-config's flags are words
$CC -std=gnu17 -O2 -g -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden \
	-D_FORTIFY_SOURCE=2 -DNODE_GYP_MODULE_NAME=heel -I"$inc" $("$PKG_CONFIG" --cflags heel) \
	-o build/heel.node src/heel_node.c $("$PKG_CONFIG" --libs heel) \
	${libdir:+-Wl,-rpath,"$libdir"} -Wl,-z,relro,-z,now,-z,noexecstack
echo "heel: built build/heel.node against $($PKG_CONFIG --modversion heel) (${libdir:-the loader's path})"
