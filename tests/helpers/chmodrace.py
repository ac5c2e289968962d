# chmodrace.py PREPARED MODE: the command's side of the quarantine attack of
# issue 30 item 3, run in the writable root (the cwd).  Two threads toggle
# the root's mode between 0755 and MODE (octal: 555 refuses the rename,
# 600 the look as well) while the main thread renames the directory
# PREPARED onto .git until that succeeds, then keeps the root at MODE:
# cordon, reacting to .git at once, meets MODE during the run and, as the
# kill lands while the threads run, often at the end too.
import os, sys, threading

prepared, mode = sys.argv[1], int(sys.argv[2], 8)
# A descriptor: chmod(".") itself needs search permission, which 600 takes.
root = os.open(".", os.O_RDONLY | os.O_DIRECTORY)


def toggle():
    while True:
        os.fchmod(root, mode)
        os.fchmod(root, 0o755)


for _ in range(2):
    threading.Thread(target=toggle, daemon=True).start()
while True:
    try:
        os.rename(prepared, ".git")
        break
    except OSError:
        pass
while True:
    os.fchmod(root, mode)
