#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# A reference SOCKS5 proxy for the self-test only (tinyproxy speaks no
# SOCKS): RFC 1928 CONNECT with RFC 1929 username/password, names resolved
# here (socks5h), an allow-list of names answered with reply 2 ("not
# allowed by ruleset") for anything else. It proves the suite's SOCKS
# client commands and their expected exit codes against a known server.
# Usage: socks5d.py ADDR PORT USER PASSWORD READY-FILE ALLOWED-NAME...
import os
import signal
import socket
import socketserver
import struct
import sys
import threading

ADDR, PORT, USER, PASSWORD, READY = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
ALLOWED = {n.lower() for n in sys.argv[6:]}


def recv_exact(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError
        b += c
    return b


def relay(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class Handler(socketserver.BaseRequestHandler):
    def reply(self, code):
        self.request.sendall(struct.pack("!BBBB", 5, code, 0, 1) + b"\0\0\0\0\0\0")

    def handle(self):
        s = self.request
        s.settimeout(30)
        try:
            ver, n = recv_exact(s, 2)
            methods = recv_exact(s, n)
            if ver != 5 or 2 not in methods:
                s.sendall(b"\x05\xff")
                return
            s.sendall(b"\x05\x02")
            _, ulen = recv_exact(s, 2)
            user = recv_exact(s, ulen).decode("latin-1")
            plen, = recv_exact(s, 1)
            pw = recv_exact(s, plen).decode("latin-1")
            if (user, pw) != (USER, PASSWORD):
                s.sendall(b"\x01\x01")
                return
            s.sendall(b"\x01\x00")
            ver, cmd, _, atyp = recv_exact(s, 4)
            if atyp == 3:
                n, = recv_exact(s, 1)
                host = recv_exact(s, n).decode("ascii", "replace").lower()
            elif atyp == 1:
                host = socket.inet_ntop(socket.AF_INET, recv_exact(s, 4))
            elif atyp == 4:
                host = socket.inet_ntop(socket.AF_INET6, recv_exact(s, 16))
            else:
                self.reply(8)
                return
            port, = struct.unpack("!H", recv_exact(s, 2))
            if cmd != 1:
                self.reply(7)
                return
            if host not in ALLOWED:
                self.reply(2)
                return
            try:
                up = socket.create_connection((host, port), timeout=20)
            except OSError:
                self.reply(5)
                return
            self.reply(0)
            s.settimeout(None)
            up.settimeout(None)
            t = threading.Thread(target=relay, args=(up, s), daemon=True)
            t.start()
            relay(s, up)
            t.join(30)
        except (EOFError, OSError, ValueError):
            pass


class Server(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


def main():
    srv = Server((ADDR, PORT), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(READY + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(READY + ".tmp", READY)
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
