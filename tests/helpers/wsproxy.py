#!/usr/bin/env python3
"""wsproxy.py: a WebSocket client through an HTTP proxy in absolute form.

    wsproxy.py URL [--pipeline]

URL is ws://HOST:PORT/PATH or http://HOST:PORT/PATH; the request line names
it as it is (GET ws://... HTTP/1.1, the form curl 8 uses, or GET http://...)
and goes to the proxy $http_proxy names.  The handshake is checked
(101, Upgrade: websocket, Sec-WebSocket-Accept); then "ping" and 100000
bytes go as masked text frames, and each echo prints "echo LEN SAME".  With
--pipeline the first frame is written with the request head, before the
101 came: the proxy must pass it on after the switch, in order.  A close
frame ends it; the server's close and EOF are awaited.  Exits 1 with the
proxy's answer on stderr when there is no switch.
"""
import base64
import hashlib
import os
import socket
import struct
import sys
import urllib.parse

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def frame(opcode, payload):
    mask = os.urandom(4)
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
    elif n < 65536:
        head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
    else:
        head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


class Reader:
    def __init__(self, s, buf=b""):
        self.s, self.buf = s, buf

    def take(self, n):
        while len(self.buf) < n:
            d = self.s.recv(65536)
            if not d:
                raise EOFError("the connection ended after %d of %d bytes" % (len(self.buf), n))
            self.buf += d
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def message(self):
        """The next data frame's payload (control frames but close skipped)."""
        while True:
            b0, b1 = self.take(2)
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack("!H", self.take(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", self.take(8))[0]
            if b1 & 0x80:
                sys.exit("a masked frame from the server")
            payload = self.take(n)
            if b0 & 0x0F in (1, 2, 8):
                return b0 & 0x0F, payload


def main():
    url = sys.argv[1]
    pipeline = "--pipeline" in sys.argv[2:]
    proxy = urllib.parse.urlsplit(os.environ["http_proxy"])
    u = urllib.parse.urlsplit(url)
    key = base64.b64encode(os.urandom(16))
    head = (b"GET " + url.encode() + b" HTTP/1.1\r\nHost: " + u.netloc.encode() +
            b"\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13"
            b"\r\nSec-WebSocket-Key: " + key + b"\r\n\r\n")
    msgs = [b"ping", b"x" * 100000]
    s = socket.create_connection((proxy.hostname, proxy.port))
    s.sendall(head + (frame(1, msgs[0]) if pipeline else b""))
    got = b""
    while b"\r\n\r\n" not in got:
        d = s.recv(65536)
        if not d:
            break
        got += d
    resp, _, rest = got.partition(b"\r\n\r\n")
    lines = resp.split(b"\r\n")
    hdrs = {k.strip().lower(): v.strip() for k, _, v in (l.partition(b":") for l in lines[1:])}
    accept = base64.b64encode(hashlib.sha1(key + GUID).digest())
    if (not lines[0].startswith(b"HTTP/1.1 101 ") or hdrs.get(b"upgrade", b"").lower() != b"websocket"
            or hdrs.get(b"sec-websocket-accept") != accept):
        sys.stderr.write("no switch: " + got.decode("latin-1") + "\n")
        sys.exit(1)
    r = Reader(s, rest)
    for i, m in enumerate(msgs):
        if not (pipeline and i == 0):
            s.sendall(frame(1, m))
        op, echo = r.message()
        print("echo", len(echo), op == 1 and echo == m)
    s.sendall(frame(8, struct.pack("!H", 1000)))
    op, _ = r.message()
    while s.recv(65536):
        pass
    print("closed", op == 8)


if __name__ == "__main__":
    main()
