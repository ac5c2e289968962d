#!/usr/bin/env python3
"""netserve.py: test servers for the network tests, on 127.0.0.1, port 0
(http: on $NETSERVE_BIND instead when set).

    netserve.py PORTFILE http            /hello, /blob?n=N&sha=FILE, PUT|POST /hash, /head
    netserve.py PORTFILE tls CERT KEY    the same over TLS
    netserve.py PORTFILE tcp-hash [LOG [PAUSE_MS]]
                                         reads to EOF, answers the sha256 hex of it;
                                         with LOG, first appends "BYTES SHA256" of
                                         each connection to it ("BYTES reset" if
                                         the connection was reset); with PAUSE_MS,
                                         a slow reader: pauses after each read
    netserve.py PORTFILE tcp-source N SHAFILE
                                         sends N random bytes, then writes their
                                         sha256 to SHAFILE, then closes
    netserve.py PORTFILE static DIR [CERT KEY]
                                         GET|HEAD of the files under DIR (a dumb
                                         git repository, a PEP 503 index, an npm
                                         registry, a GOPROXY tree), over TLS
                                         with CERT and KEY; a file without an
                                         extension is application/json (npm's
                                         packuments); each request line is
                                         appended to DIR/../requests.log
    netserve.py PORTFILE ws|wss [CERT KEY]
                                         a WebSocket echo server (python3-websockets)
    netserve.py PORTFILE upgrade LOG     protocol switches: appends each request
                                         line to LOG; /hash answers a 101 naming
                                         the request's Upgrade, then reads to EOF
                                         and answers "BYTES SHA256" of what came
                                         after the head (appended to LOG too);
                                         /slowhash the same after 1 s;
                                         /unasked answers a 101 to x-echo whatever
                                         was asked, then the same; /refuse
                                         answers a 200 and keeps the connection
                                         until the client closes it
    netserve.py PORTFILE connect-proxy LOG [USER:PASS]
                                         an upstream proxy: appends each CONNECT
                                         head to LOG, then tunnels to 127.0.0.1;
                                         with USER:PASS, answers 407 to a CONNECT
                                         without Proxy-Authorization: Basic of them

The chosen port is written to PORTFILE (atomically) once the server listens.
"""
import functools
import hashlib
import http.server
import os
import socket
import socketserver
import ssl
import sys
import threading
import time
import urllib.parse

CHUNK = 1 << 20


def publish(portfile, port):
    with open(portfile + ".tmp", "w") as f:
        f.write(str(port))
    os.rename(portfile + ".tmp", portfile)


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def reply(self, body, status=200):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        if u.path == "/hello":
            self.reply(b"hello\n")
        elif u.path == "/head":
            # The request head as the server received it.
            self.reply((self.requestline + "\r\n" + str(self.headers)).encode())
        elif u.path == "/blob":
            n = int(q["n"][0])
            self.send_response(200)
            self.send_header("Content-Length", str(n))
            self.end_headers()
            h = hashlib.sha256()
            left = n
            while left:
                b = os.urandom(min(CHUNK, left))
                h.update(b)
                self.wfile.write(b)
                left -= len(b)
            with open(q["sha"][0], "w") as f:
                f.write(h.hexdigest() + "\n")
        else:
            self.reply(b"no such path\n", 404)

    def body(self):
        h = hashlib.sha256()
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    break
                left = size
                while left:
                    b = self.rfile.read(min(CHUNK, left))
                    if not b:
                        raise EOFError
                    h.update(b)
                    left -= len(b)
                self.rfile.readline()
        else:
            left = int(self.headers.get("Content-Length", "0"))
            while left:
                b = self.rfile.read(min(CHUNK, left))
                if not b:
                    raise EOFError
                h.update(b)
                left -= len(b)
        return h.hexdigest()

    def do_PUT(self):
        self.reply((self.body() + "\n").encode())

    do_POST = do_PUT


class Static(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                          **{"": "application/json"})

    def log_message(self, fmt, *a):
        with open(os.path.join(self.directory, "..", "requests.log"), "a") as f:
            f.write((fmt % a) + "\n")


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def tcp_serve(portfile, handle):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(64)
    publish(portfile, s.getsockname()[1])
    while True:
        c, _ = s.accept()
        threading.Thread(target=handle, args=(c,), daemon=True).start()


def tcp_hash(log, pause, c):
    h = hashlib.sha256()
    n = 0
    try:
        while True:
            b = c.recv(CHUNK)
            if not b:
                break
            h.update(b)
            n += len(b)
            time.sleep(pause)
        line = "%d %s\n" % (n, h.hexdigest())
    except ConnectionError:
        line = "%d reset\n" % n
    if log:
        with open(log, "a") as f:
            f.write(line)
    try:
        c.sendall((h.hexdigest() + "\n").encode())
    except ConnectionError:
        pass  # the client may be gone: what it sent is in LOG
    c.close()


def tls_context(cert, key):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, key)
    return ctx


def ws_serve(portfile, ctx):
    import asyncio
    import websockets

    async def echo(ws, path=None):
        async for m in ws:
            await ws.send(m)

    async def run():
        async with websockets.serve(echo, "127.0.0.1", 0, ssl=ctx) as srv:
            publish(portfile, srv.sockets[0].getsockname()[1])
            await asyncio.Future()
    asyncio.run(run())


def pipe(a, b):
    try:
        while True:
            d = a.recv(CHUNK)
            if not d:
                break
            b.sendall(d)
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def upgrader(log):
    lock = threading.Lock()

    def note(line):
        with lock, open(log, "ab") as f:
            f.write(line + b"\n")

    def handle(c):
        data = b""
        while b"\r\n\r\n" not in data:
            d = c.recv(CHUNK)
            if not d:
                c.close()
                return
            data += d
        head, rest = data.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        note(lines[0])
        hdrs = {k.strip().lower(): v.strip() for k, _, v in (l.partition(b":") for l in lines[1:])}
        path = lines[0].split(b" ")[1].split(b"?")[0]
        try:
            if path == b"/refuse":
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nrefused\n")
                while c.recv(CHUNK):
                    pass
                return
            if path == b"/slowhash":
                time.sleep(1)
            proto = hdrs.get(b"upgrade", b"none") if path.endswith(b"hash") else b"x-echo"
            c.sendall(b"HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: " +
                      proto + b"\r\n\r\n")
            h = hashlib.sha256(rest)
            n = len(rest)
            while True:
                d = c.recv(CHUNK)
                if not d:
                    break
                h.update(d)
                n += len(d)
            line = b"%d %s" % (n, h.hexdigest().encode())
            note(b"HASH " + line)
            c.sendall(line + b"\n")
        except ConnectionError:
            pass
        finally:
            c.close()
    return handle


def connect_proxy(log, cred=None):
    lock = threading.Lock()
    want = None
    if cred:
        import base64
        want = b"Basic " + base64.b64encode(cred.encode())

    def handle(c):
        head = b""
        while b"\r\n\r\n" not in head:
            d = c.recv(4096)
            if not d:
                c.close()
                return
            head += d
        head, rest = head.split(b"\r\n\r\n", 1)
        with lock, open(log, "ab") as f:
            f.write(head + b"\r\n\r\n")
        auth = [l.split(b":", 1)[1].strip() for l in head.split(b"\r\n")[1:]
                if l.lower().startswith(b"proxy-authorization:")]
        if want and auth != [want]:
            c.sendall(b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                      b"Proxy-Authenticate: Basic realm=\"t\"\r\nContent-Length: 0\r\n\r\n")
            c.close()
            return
        port = int(head.split(b"\r\n")[0].split(b" ")[1].rsplit(b":", 1)[1])
        s = socket.create_connection(("127.0.0.1", port))
        c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        if rest:
            s.sendall(rest)
        t = threading.Thread(target=pipe, args=(s, c), daemon=True)
        t.start()
        pipe(c, s)
        t.join()
        c.close()
        s.close()
    return handle


def main():
    portfile, mode = sys.argv[1], sys.argv[2]
    if mode in ("http", "tls", "static"):
        if mode == "static":
            handler = functools.partial(Static, directory=sys.argv[3])
            tls = sys.argv[4:6]
        else:
            handler = Handler
            tls = sys.argv[3:5] if mode == "tls" else []
        srv = Server((os.environ.get("NETSERVE_BIND", "127.0.0.1"), 0), handler)
        if tls:
            srv.socket = tls_context(*tls).wrap_socket(srv.socket, server_side=True)
        publish(portfile, srv.server_address[1])
        srv.serve_forever()
    elif mode in ("ws", "wss"):
        ws_serve(portfile, tls_context(*sys.argv[3:5]) if mode == "wss" else None)
    elif mode == "tcp-hash":
        log = sys.argv[3] if len(sys.argv) > 3 else None
        pause = int(sys.argv[4]) / 1000 if len(sys.argv) > 4 else 0
        tcp_serve(portfile, functools.partial(tcp_hash, log, pause))
    elif mode == "tcp-source":
        n, shafile = int(sys.argv[3]), sys.argv[4]

        def source(c):
            h = hashlib.sha256()
            left = n
            while left:
                b = os.urandom(min(CHUNK, left))
                h.update(b)
                c.sendall(b)
                left -= len(b)
            with open(shafile, "w") as f:
                f.write(h.hexdigest() + "\n")
            c.close()
        tcp_serve(portfile, source)
    elif mode == "upgrade":
        tcp_serve(portfile, upgrader(sys.argv[3]))
    elif mode == "connect-proxy":
        tcp_serve(portfile, connect_proxy(sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None))
    else:
        sys.exit("netserve.py: unknown mode " + mode)


if __name__ == "__main__":
    main()
