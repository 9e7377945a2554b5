#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The live network suite's test host: the "internet" a sandbox's proxy
# talks to, one process per network namespace. HTTP over a directory
# (/hello, a git repository over the dumb protocol, a PEP 503 index), TCP
# echo (port 7 and the CONNECT target 8443), and a DNS server (UDP and TCP
# 53) that answers A/AAAA for dns.test. Every request, connection and DNS
# packet is one line in the log, written before it is answered, so a test
# can assert that something did or did not arrive.
#
# Usage: hostd.py --log FILE --ready FILE [--root DIR] [--http ADDR:PORT]...
#                 [--echo ADDR:PORT]... [--dns ADDR:PORT]...
#   ADDR is an IPv4 address or a bracketed IPv6 one ([::] binds IPv6 only,
#   so 0.0.0.0 can be bound beside it). The ready file is written once
#   every socket listens. SIGTERM ends the process.
import argparse
import http.server
import os
import signal
import socket
import socketserver
import ssl
import struct
import sys
import threading

LOG_LOCK = threading.Lock()
LOG = None

# Names this DNS server knows; anything else is NXDOMAIN.
DNS_A = {"dns.test": "203.0.113.10", "cap.test": "203.0.113.10", "capno.test": "203.0.113.10", "front.test": "203.0.113.10"}
DNS_AAAA = {"dns.test": "2001:db8::10", "cap.test": "2001:db8::10", "capno.test": "2001:db8::10", "front.test": "2001:db8::10"}


def log(*fields):
    line = " ".join(str(f).replace("\n", "\\n").replace(" ", "%20") for f in fields)
    with LOG_LOCK:
        LOG.write(line + "\n")
        LOG.flush()


def split_addr(spec):
    host, _, port = spec.rpartition(":")
    if host.startswith("["):
        return socket.AF_INET6, host[1:-1], int(port)
    return socket.AF_INET, host, int(port)


def peer_text(addr):
    return addr[0]


class HTTPHandler(http.server.SimpleHTTPRequestHandler):
    server_version = "heel-testhost/1"
    protocol_version = "HTTP/1.0"

    def parse_request(self):
        ok = super().parse_request()
        if ok:
            # The header names as they came (a proxy's hop-by-hop headers
            # must not be among them).
            log("http", self.server.server_address[1], peer_text(self.client_address),
                self.command, self.path, self.headers.get("Host", "-"),
                ",".join(self.headers.keys()) or "-")
        else:
            log("http-bad", self.server.server_address[1], peer_text(self.client_address),
                repr(self.raw_requestline[:80]))
        return ok

    def handle(self):
        super().handle()
        self.log_after()

    def log_after(self):
        """What came on the connection after the one request served (its
        unread body, or another request a proxy should not have sent):
        logged, so a test can see a request that reached the host
        without being served."""
        try:
            self.connection.settimeout(0.2)
            data = self.rfile.read1(65536)
        except (OSError, ValueError):
            return
        if data:
            log("http-after", self.server.server_address[1], peer_text(self.client_address),
                repr(data[:600]))

    def translate_path(self, path):
        # An absolute-form target (a proxy forwarding verbatim) serves the
        # same file as its origin form.
        if "://" in path.split("?", 1)[0]:
            rest = path.split("://", 1)[1]
            path = "/" + rest.split("/", 1)[1] if "/" in rest else "/"
        return super().translate_path(path)

    def log_message(self, fmt, *args):
        pass


def make_server_class(base, family):
    class S(base):
        address_family = family
        allow_reuse_address = True
        daemon_threads = True

        def server_bind(self):
            if family == socket.AF_INET6:
                self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            super().server_bind()
    return S


class EchoHandler(socketserver.BaseRequestHandler):
    def handle(self):
        port = self.server.server_address[1]
        peer = peer_text(self.client_address)
        self.request.settimeout(30)
        first = True
        try:
            while True:
                data = self.request.recv(65536)
                if not data:
                    break
                if first:
                    log("echo", port, peer, repr(data[:80]))
                    first = False
                self.request.sendall(data)
        except OSError:
            pass
        if first:
            log("echo", port, peer, "(no data)")


def dns_question(msg):
    """(id, flags, name, qtype, end of question) or None."""
    if len(msg) < 12:
        return None
    qid, flags, qd = struct.unpack("!HHH", msg[:6])
    if qd < 1:
        return None
    labels, i = [], 12
    while i < len(msg):
        n = msg[i]
        i += 1
        if n == 0:
            break
        if n > 63 or i + n > len(msg):
            return None
        labels.append(msg[i:i + n].decode("ascii", "replace"))
        i += n
    if i + 4 > len(msg):
        return None
    qtype, = struct.unpack("!H", msg[i:i + 2])
    return qid, flags, ".".join(labels).lower(), qtype, i + 4


def dns_answer(msg):
    q = dns_question(msg)
    if q is None:
        return None, "-", 0
    qid, flags, name, qtype, qend = q
    question = msg[12:qend]
    answers = []
    if qtype == 1 and name in DNS_A:
        answers.append((1, socket.inet_pton(socket.AF_INET, DNS_A[name])))
    if qtype == 28 and name in DNS_AAAA:
        answers.append((28, socket.inet_pton(socket.AF_INET6, DNS_AAAA[name])))
    known = name in DNS_A or name in DNS_AAAA
    rcode = 0 if known else 3
    rflags = 0x8000 | (flags & 0x0100) | 0x0400 | rcode  # QR, RD copied, AA
    out = struct.pack("!HHHHHH", qid, rflags, 1, len(answers), 0, 0) + question
    for rtype, rdata in answers:
        out += struct.pack("!HHHIH", 0xC00C, rtype, 1, 60, len(rdata)) + rdata
    return out, name, qtype


class DNSUDPHandler(socketserver.BaseRequestHandler):
    def handle(self):
        data, sock = self.request
        out, name, qtype = dns_answer(data)
        log("dns", "udp", peer_text(self.client_address), name, qtype)
        if out:
            sock.sendto(out, self.client_address)


class DNSTCPHandler(socketserver.BaseRequestHandler):
    def handle(self):
        # Short: a probe that sends no DNS message (an HTTP request to
        # port 53) is logged after this long, and its client waits as long.
        self.request.settimeout(2)
        try:
            head = self.request.recv(2)
            if len(head) < 2:
                log("dns", "tcp", peer_text(self.client_address), "-", 0)
                return
            n, = struct.unpack("!H", head)
            data = b""
            while len(data) < n:
                chunk = self.request.recv(n - len(data))
                if not chunk:
                    break
                data += chunk
        except OSError:
            log("dns", "tcp", peer_text(self.client_address), "-", 0)
            return
        out, name, qtype = dns_answer(data)
        log("dns", "tcp", peer_text(self.client_address), name, qtype)
        if out:
            self.request.sendall(struct.pack("!H", len(out)) + out)


def main():
    global LOG
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--ready", required=True)
    ap.add_argument("--root", default=".")
    ap.add_argument("--http", action="append", default=[])
    ap.add_argument("--echo", action="append", default=[])
    ap.add_argument("--dns", action="append", default=[])
    ap.add_argument("--https", action="append", default=[])
    ap.add_argument("--cert")
    ap.add_argument("--key")
    a = ap.parse_args()
    LOG = open(a.log, "a", buffering=1)
    root = os.path.abspath(a.root)

    servers = []
    for spec in a.http:
        fam, host, port = split_addr(spec)
        cls = make_server_class(socketserver.ThreadingTCPServer, fam)
        servers.append(cls((host, port),
                           lambda *x, **k: HTTPHandler(*x, directory=root, **k)))
    # HTTPS (example.com, for the original README's curl example): the
    # same files, TLS with a certificate of the suite's own test CA.
    if a.https:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(a.cert, a.key)
    for spec in a.https:
        fam, host, port = split_addr(spec)
        cls = make_server_class(socketserver.ThreadingTCPServer, fam)
        srv = cls((host, port), lambda *x, **k: HTTPHandler(*x, directory=root, **k))
        srv.socket = tls.wrap_socket(srv.socket, server_side=True)
        servers.append(srv)
    for spec in a.echo:
        fam, host, port = split_addr(spec)
        cls = make_server_class(socketserver.ThreadingTCPServer, fam)
        servers.append(cls((host, port), EchoHandler))
    for spec in a.dns:
        fam, host, port = split_addr(spec)
        servers.append(make_server_class(socketserver.ThreadingUDPServer, fam)((host, port), DNSUDPHandler))
        servers.append(make_server_class(socketserver.ThreadingTCPServer, fam)((host, port), DNSTCPHandler))

    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(a.ready + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(a.ready + ".tmp", a.ready)
    log("ready", os.getpid())
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
