#!/usr/bin/env python3
"""ucounts.py: take a per-user kernel count until the kernel refuses, print
how many were taken, then hold them (t_many.sh).

  ucounts.py inotify [SECONDS]   inotify instances
  ucounts.py sigqueue [SECONDS]  pending real-time signals queued to itself
  ucounts.py ready FILE ...      as above, and create FILE once taken
Holds for SECONDS (default 30) or until killed."""
import ctypes
import errno
import os
import signal
import sys
import time

IN_CLOEXEC = 0o2000000


def take_inotify():
    libc = ctypes.CDLL(None, use_errno=True)
    fds = []
    while True:
        fd = libc.inotify_init1(IN_CLOEXEC)
        if fd < 0:
            err = ctypes.get_errno()
            if err not in (errno.EMFILE, errno.ENFILE, errno.ENOMEM):
                sys.exit("inotify_init1: %s" % os.strerror(err))
            return fds
        fds.append(fd)


def take_sigqueue():
    # sigqueue, not kill: a real-time signal that kill() cannot queue is
    # still marked pending, and kill() never fails; sigqueue() says EAGAIN.
    libc = ctypes.CDLL(None, use_errno=True)
    sig = signal.SIGRTMIN
    signal.pthread_sigmask(signal.SIG_BLOCK, [sig])
    pid = os.getpid()
    n = 0
    while True:
        if libc.sigqueue(pid, int(sig), ctypes.c_void_p(0)) != 0:
            err = ctypes.get_errno()
            if err != errno.EAGAIN:
                sys.exit("sigqueue: %s" % os.strerror(err))
            return n
        n += 1
        if n > 10000000:
            sys.exit("sigqueue: no limit reached")


def main():
    args = sys.argv[1:]
    ready = None
    if args and args[0] == "ready":
        ready = args[1]
        args = args[2:]
    what = args[0]
    hold = float(args[1]) if len(args) > 1 else 30.0
    got = take_inotify() if what == "inotify" else take_sigqueue()
    print(len(got) if isinstance(got, list) else got, flush=True)
    if ready:
        with open(ready, "w") as f:
            f.write("ready\n")
    time.sleep(hold)


main()
