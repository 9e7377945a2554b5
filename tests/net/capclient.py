#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# What the capture cases run inside the sandbox, with no proxy variables:
# plain socket clients, as a program with its own dialer connects. One
# result line per call: "LABEL ok DETAIL" or "LABEL err WHAT".
# Usage: capclient.py MARK (the case's request mark)
import socket
import ssl
import sys

M = sys.argv[1]


def line(label, f):
    try:
        print(label, "ok", f())
    except Exception as e:  # the refusal is the result
        print(label, "err", type(e).__name__, str(e).replace("\n", " ")[:80])
    sys.stdout.flush()


def get(host, port, label, hosthdr=None):
    s = socket.create_connection((host, port), timeout=5)
    s.sendall(b"GET /hello?%s-%s HTTP/1.0\r\nHost: %s\r\n\r\n" % (M.encode(), label.encode(), (hosthdr or host).encode()))
    data = b""
    while True:
        b = s.recv(4096)
        if not b:
            break
        data += b
    if not data:
        raise ConnectionResetError("closed without a response")
    return data.split(b"\r\n")[0].decode() + " " + data.rsplit(b"\n", 2)[-2 if data.endswith(b"\n") else -1].decode().strip()


def echo(host, port, label):
    s = socket.create_connection((host, port), timeout=5)
    s.sendall(("%s-%s\n" % (M, label)).encode())
    got = s.recv(100)
    if not got:
        raise ConnectionResetError("closed")
    return got.decode().strip()


def tls(host, sni):
    s = socket.create_connection((host, 443), timeout=5)
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    t = ctx.wrap_socket(s, server_hostname=sni)
    return t.version()


def resolve(name):
    return " ".join(sorted({a[4][0] for a in socket.getaddrinfo(name, 80, proto=socket.IPPROTO_TCP)}))


line("r1", lambda: resolve("cap.test"))
line("r2", lambda: resolve("capno.test"))
line("c1", lambda: get("cap.test", 80, "c1"))
line("c2", lambda: get("capno.test", 80, "c2"))
line("c3", lambda: get("cap.test", 80, "c3", hosthdr="front.test"))
line("c4", lambda: echo("203.0.113.10", 7, "c4"))
line("c5", lambda: get("203.0.113.10", 80, "c5"))
line("c6", lambda: echo("dns.test", 8443, "c6"))
line("c7", lambda: get("dns.test", 80, "c7"))
line("c8", lambda: tls("cap.test", "cap.test"))
line("c9", lambda: tls("cap.test", "front.test"))
line("c10", lambda: get("10.77.0.10", 80, "c10"))
line("c11", lambda: get("127.0.0.1", 80, "c11"))
line("c12", lambda: get("203.0.113.1", 80, "c12"))
line("c13", lambda: get("cap.test", 8080, "c13"))
# The sandbox's own loopback, on a captured port and another.
srv = []
for p in (443, 8080):
    b = socket.socket()
    b.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    b.bind(("127.0.0.1", p))
    b.listen()
    srv.append(b)


def self_talk(p):
    c = socket.create_connection(("127.0.0.1", p), timeout=3)
    a, _ = srv[0 if p == 443 else 1].accept()
    c.sendall(b"self")
    return a.recv(10).decode() + " " + str(p)


line("l1", lambda: self_talk(443))
line("l2", lambda: self_talk(8080))
