#!/usr/bin/env python3
"""lspclient.py WAIT NAME:PID:CMD... -- an editor-style LSP client.

For each session, starts CMD (split on spaces) with pipes, sends LSP's
initialize with processId PID ("self": this process, the parent of CMD, as
an editor sends its own) and initialized, then waits WAIT seconds, in which
every vscode-languageserver server polls kill(processId, 0) at 3 s and exits
at the first error.  Prints "NAME alive" or "NAME exited STATUS" per
session, then ends the live ones with shutdown and exit (killing what does
not end within 5 s).  Sessions run side by side, so the wait is paid once.
"""
import json
import os
import subprocess
import sys
import time


def send(p, msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    p.stdin.flush()


def main():
    wait = float(sys.argv[1])
    root = os.getcwd()
    sessions = []
    for spec in sys.argv[2:]:
        name, pid, cmd = spec.split(":", 2)
        pid = os.getpid() if pid == "self" else int(pid)
        p = subprocess.Popen(cmd.split(" "), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        send(p, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"processId": pid, "rootUri": "file://" + root,
                            "capabilities": {}, "workspaceFolders": None}})
        send(p, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        sessions.append((name, p))
    time.sleep(wait)
    for name, p in sessions:
        rc = p.poll()
        print(f"{name} alive" if rc is None else f"{name} exited {rc}", flush=True)
    for name, p in sessions:
        if p.poll() is None:
            try:
                send(p, {"jsonrpc": "2.0", "id": 2, "method": "shutdown", "params": None})
                send(p, {"jsonrpc": "2.0", "method": "exit", "params": None})
                p.stdin.close()
                p.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                p.kill()
                p.wait()


main()
