#!/usr/bin/env python3
"""blobserve.py PORTFILE BLOB: the benchmarks' HTTP server on the host's
127.0.0.1 (scripts/bench-bridge.sh, scripts/bench-many.sh).  It writes its
port to PORTFILE once it listens; GET /blob answers BLOB's bytes through
sendfile (a sparse file costs next to nothing to serve), on a thread of its
own; anything else answers "ok" inline (no thread start in a measured
time).  Runs until killed."""
import os, socket, sys, threading
portfile, blob = sys.argv[1], sys.argv[2]
size = os.path.getsize(blob)
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0))
s.listen(512)
open(portfile + ".t", "w").write(str(s.getsockname()[1]))
os.rename(portfile + ".t", portfile)
def blob_out(c):
    try:
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % size)
        with open(blob, "rb") as f:
            c.sendfile(f)
    finally:
        c.close()
# Small answers inline (no thread start in the measured time); a blob on a
# thread of its own.
while True:
    c, _ = s.accept()
    req = b""
    while b"\r\n\r\n" not in req:
        b = c.recv(4096)
        if not b:
            break
        req += b
    if b"/blob" in req.split(b"\r\n")[0]:
        threading.Thread(target=blob_out, args=(c,), daemon=True).start()
    else:
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
        c.close()
