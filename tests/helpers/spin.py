# spin.py N SECONDS: N processes that each use SECONDS of CPU time, then
# exit; prints "done" once all have.  Each stays under a --limit-cpu of
# more than SECONDS: only a count of the whole tree's CPU time stops them.
import os, sys, time
n, secs = int(sys.argv[1]), float(sys.argv[2])
kids = []
for i in range(n):
    pid = os.fork()
    if pid == 0:
        t = time.process_time()
        while time.process_time() - t < secs:
            pass
        os._exit(0)
    kids.append(pid)
for p in kids:
    os.waitpid(p, 0)
print("done")
