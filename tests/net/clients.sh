# SPDX-License-Identifier: MIT
# What a program inside the sandbox does, for the live network suite: the
# real clients (curl, git, python3's urllib, pip, bash's /dev/tcp, the C
# library's resolver), each reduced to one result line
#     LABEL rc=N field=value...
# that tests/net/run.sh and selftest.sh parse. POSIX sh: sourced by `sh -c`
# inside the sandbox, and in the client namespace without one by the
# self-test. Every file a client writes (bodies, clones, downloads, its
# stderr) goes to the working directory, named after LABEL. The proxy is
# found only through the environment the sandbox was given.

NET_MAXTIME=${NET_MAXTIME:-20}

# The proxy variables, sorted, one a line.
net_env() { env | grep -i '^[a-z_]*_proxy=' | sort; }

# The proxy URLs as the environment gives them.
net_http_proxy() { printf %s "${http_proxy:-${HTTP_PROXY:-}}"; }
# socks5h:// from ALL_PROXY where it says SOCKS, else the HTTP proxy's
# credentials, host and port with the SOCKS scheme (one port speaks both).
net_socks_proxy() {
	_a=${all_proxy:-${ALL_PROXY:-}}
	case $_a in
	socks5h://*) printf %s "$_a" ;;
	socks5://*) printf 'socks5h://%s' "${_a#socks5://}" ;;
	*) _h=$(net_http_proxy); printf 'socks5h://%s' "${_h#*://}" ;;
	esac
}
# URL without its user:password@.
net_nocreds() { printf '%s://%s' "${1%%://*}" "${1#*@}"; }
# URL with the right user and a wrong password.
net_wrongpass() {
	_r=${1#*://}
	_c=${_r%%@*}
	printf '%s://%s:wrong%s@%s' "${1%%://*}" "${_c%%:*}" "$$" "${_r#*@}"
}

# net_curl LABEL CURL-ARGS...: LABEL rc= http= connect= (%{http_connect}:
# the proxy's answer to CONNECT, 000 without one). -g: brackets are an
# IPv6 literal, never a URL glob.
net_curl() {
	_l=$1
	shift
	_o=$(curl -gsS --max-time "$NET_MAXTIME" -o "$_l.body" -w '%{http_code} %{http_connect}' "$@" 2>"$_l.err")
	_rc=$?
	set -- $_o
	echo "$_l rc=$_rc http=${1:-000} connect=${2:-000}"
}

# net_tunnel LABEL PROXY-URL HOST PORT MARK: CONNECT by hand (Basic
# credentials from the URL), MARK through the tunnel, echo=ok when the
# echo server sends it back. LABEL rc= connect= echo=
net_tunnel() {
	python3 - "$@" <<'EOF'
import base64, socket, sys, urllib.parse
label, proxy, host, port, mark = sys.argv[1:6]
u = urllib.parse.urlsplit(proxy)
status, echo, rc = "000", "no", 0
try:
    s = socket.create_connection((u.hostname, u.port), timeout=20)
    auth = ""
    if u.username is not None:
        cred = "%s:%s" % (urllib.parse.unquote(u.username), urllib.parse.unquote(u.password or ""))
        auth = "Proxy-Authorization: Basic %s\r\n" % base64.b64encode(cred.encode()).decode()
    s.sendall(("CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n%s\r\n" % (host, port, host, port, auth)).encode())
    head = b""
    while b"\r\n\r\n" not in head and len(head) < 65536:
        chunk = s.recv(4096)
        if not chunk:
            break
        head += chunk
    open(label + ".head", "wb").write(head)
    parts = head.split(b"\r\n", 1)[0].split()
    status = parts[1].decode() if len(parts) > 1 else "000"
    if status == "200":
        rest = head.split(b"\r\n\r\n", 1)[1]
        s.sendall(mark.encode() + b"\n")
        got = rest
        while mark.encode() not in got and len(got) < 65536:
            chunk = s.recv(4096)
            if not chunk:
                break
            got += chunk
        echo = "ok" if mark.encode() in got else "no"
except OSError as e:
    rc = 1
    open(label + ".err", "w").write("%s\n" % e)
print("%s rc=%d connect=%s echo=%s" % (label, rc, status, echo))
EOF
}

# net_pipeline LABEL PROXY-URL BODY URL1 URL2: two absolute-form requests
# written at once on one connection to the proxy, each with the proxy's
# Basic credentials from PROXY-URL; the first a GET (BODY get) or a POST
# with a body of Content-Length (length) or chunked (chunked), the second
# a GET. Reads to the end. LABEL rc= first=STATUS responses=N eof=yes|no
net_pipeline() {
	python3 - "$@" <<'EOF'
import base64, re, socket, sys, urllib.parse
label, proxy, body, url1, url2 = sys.argv[1:6]
u = urllib.parse.urlsplit(proxy)
cred = "%s:%s" % (urllib.parse.unquote(u.username or ""), urllib.parse.unquote(u.password or ""))
auth = "Proxy-Authorization: Basic %s\r\n" % base64.b64encode(cred.encode()).decode()
def host(url):
    return urllib.parse.urlsplit(url).netloc
first = {
    "get": "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (url1, host(url1), auth),
    "length": "POST %s HTTP/1.1\r\nHost: %s\r\n%sContent-Length: 5\r\n\r\nhello" % (url1, host(url1), auth),
    "chunked": "POST %s HTTP/1.1\r\nHost: %s\r\n%sTransfer-Encoding: chunked\r\n\r\n"
               "5\r\nhello\r\n0\r\n\r\n" % (url1, host(url1), auth),
}[body]
second = "GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" % (url2, host(url2), auth)
rc, got, eof = 0, b"", "no"
try:
    s = socket.create_connection((u.hostname, u.port), timeout=20)
    s.sendall((first + second).encode())
    while True:
        chunk = s.recv(65536)
        if not chunk:
            eof = "yes"
            break
        got += chunk
except OSError as e:
    rc = 1
    open(label + ".err", "w").write("%s\n" % e)
open(label + ".body", "wb").write(got)
codes = re.findall(rb"(?:^|\r\n)HTTP/1\.[01] (\d{3}) ", got)
print("%s rc=%d first=%s responses=%d eof=%s" % (label, rc, codes[0].decode() if codes else "000", len(codes), eof))
EOF
}

# net_echo LABEL HOST PORT MARK: a TCP connection straight out (no
# proxy), MARK sent, echo=ok when it comes back. LABEL rc= echo=
net_echo() {
	python3 - "$@" <<'EOF'
import socket, sys
label, host, port, mark = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4].encode()
rc, echo = 0, "no"
try:
    s = socket.create_connection((host, port), timeout=5)
    s.sendall(mark + b"\n")
    got = b""
    while mark not in got:
        chunk = s.recv(4096)
        if not chunk:
            break
        got += chunk
    echo = "ok" if mark in got else "no"
except OSError as e:
    rc = 1
    open(label + ".err", "w").write("%s\n" % e)
print("%s rc=%d echo=%s" % (label, rc, echo))
EOF
}

# net_urllib LABEL URL: python3's urllib (proxies from the environment).
# LABEL rc= http=  (rc=1: no HTTP answer at all)
net_urllib() {
	python3 - "$@" <<'EOF'
import sys, urllib.error, urllib.request
label, url = sys.argv[1:3]
rc, code, body = 0, 0, b""
try:
    with urllib.request.urlopen(url, timeout=20) as r:
        code, body = r.status, r.read()
except urllib.error.HTTPError as e:
    code, body = e.code, e.read()
except Exception as e:
    rc, body = 1, ("%s: %s\n" % (type(e).__name__, e)).encode()
open(label + ".body", "wb").write(body)
print("%s rc=%d http=%03d" % (label, rc, code))
EOF
}

# net_git LABEL URL: git clone over HTTP (git's dumb protocol). LABEL rc=
# readme=ok|no
net_git() {
	GIT_TERMINAL_PROMPT=0 git -c http.lowSpeedLimit=1 -c http.lowSpeedTime=20 \
		clone -q "$2" "$1.git" >"$1.out" 2>"$1.err"
	_rc=$?
	_r=no
	[ "$(cat "$1.git/README" 2>/dev/null)" = "heel network test repository" ] && _r=ok
	echo "$1 rc=$_rc readme=$_r"
}

# net_pip LABEL HOST: pip download of heeltestpkg from http://HOST/simple.
# LABEL rc= wheel=ok|no
net_pip() {
	python3 -m pip download --no-deps --no-cache-dir --disable-pip-version-check \
		--retries 0 --timeout 15 --trusted-host "$2" --index-url "http://$2/simple" \
		-d "$1.dl" heeltestpkg >"$1.out" 2>"$1.err"
	_rc=$?
	_w=no
	[ -s "$1.dl/heeltestpkg-0.1-py3-none-any.whl" ] && _w=ok
	echo "$1 rc=$_rc wheel=$_w"
}

# net_devtcp LABEL HOST PORT MARK: bash's /dev/tcp, straight out (no
# proxy): an HTTP request naming MARK. LABEL rc=
net_devtcp() {
	timeout 10 bash -c 'exec 3<>"/dev/tcp/$1/$2" || exit 7
		printf "GET /hello?%s HTTP/1.0\r\nHost: %s\r\n\r\n" "$3" "$1" >&3
		cat <&3' sh "$2" "$3" "$4" >"$1.body" 2>"$1.err"
	echo "$1 rc=$?"
}

# net_udp LABEL HOST PORT: a DNS query for dns.test sent with sendto,
# straight out. LABEL rc= reply=yes|no err=ERRNO-NAME
net_udp() {
	python3 - "$@" <<'EOF'
import errno, socket, struct, sys
label, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
q = struct.pack("!HHHHHH", 0x4845, 0x0100, 1, 0, 0, 0) + b"\x03dns\x04test\x00" + struct.pack("!HH", 1, 1)
rc, reply, err = 0, "no", "-"
try:
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(2)
    s.sendto(q, (host, port))
    try:
        if s.recv(512)[:2] == b"\x48\x45":
            reply = "yes"
    except socket.timeout:
        pass
except OSError as e:
    rc, err = 1, errno.errorcode.get(e.errno, str(e.errno))
print("%s rc=%d reply=%s err=%s" % (label, rc, reply, err))
EOF
}

# net_getent LABEL NAME: the C library's resolver (nsswitch: files, dns).
# LABEL rc=
net_getent() {
	getent hosts "$2" >"$1.out" 2>"$1.err"
	echo "$1 rc=$?"
}

# net_pyresolve LABEL NAME: python3's socket.getaddrinfo. LABEL rc=
net_pyresolve() {
	python3 - "$@" <<'EOF'
import socket, sys
label, name = sys.argv[1:3]
try:
    addrs = sorted({a[4][0] for a in socket.getaddrinfo(name, 80, proto=socket.IPPROTO_TCP)})
    open(label + ".out", "w").write(" ".join(addrs) + "\n")
    print("%s rc=0" % label)
except OSError as e:
    open(label + ".err", "w").write("%s\n" % e)
    print("%s rc=1" % label)
EOF
}

# net_wait_file PATH [TENTHS]: until PATH exists (default 60 s).
net_wait_file() {
	_i=0
	while [ ! -e "$1" ] && [ "$_i" -lt "${2:-600}" ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}
