/* standin.h: a process of the sandbox that holds the PID of cordon's parent
 * on the host (the editor, the agent), so that a program the parent told its
 * own PID can check it is still there.  Language servers do: an editor sends
 * `processId` in LSP's initialize, and typescript-language-server, pyright
 * and every vscode-languageserver server call kill(processId, 0) every 3 s
 * and exit at the first error.  In the sandbox's PID namespace that PID is
 * nobody (ESRCH), so they exited after 3 s.
 *
 * The stand-in is made with clone3's set_tid, which needs
 * CAP_CHECKPOINT_RESTORE over the sandbox's PID namespace: bwrap gives
 * cordon-inner that and CAP_SETPCAP (to empty its bounding set) in the
 * sandbox's user namespace only.  main.c checks at its start that it holds
 * nothing else; the command's process makes the stand-in inside its
 * Landlock domain (a process outside it would be out of the command's
 * signal scope, EPERM) and drops both before its filter, and checks that
 * every set is empty before it may exec; cordon-inner drops both right
 * after the fork and then runs its own check (every set empty), as on
 * every run, before anything of the command runs.  The stand-in closes
 * every descriptor, drops every capability and waits for SIGKILL: it holds
 * nothing the command could use, and it dies with the run's other
 * processes (pid1.c kill_rest).  A PID that is taken in the sandbox or
 * above its pid_max makes no stand-in: a convenience lost, no confinement. */
#ifndef CORDON_STANDIN_H
#define CORDON_STANDIN_H

#include <sys/types.h>
#include <stdint.h>

/* Bits of struct cap_sets (caps.h): the two capabilities bwrap gives
 * cordon-inner for the stand-in. */
#define STANDIN_CAPS ((UINT64_C(1) << 40) | (UINT64_C(1) << 8)) /* CHECKPOINT_RESTORE, SETPCAP */

/* In the command's process, after its Landlock domain and before its
 * filter (pid 1's child, in the command's domain: the command may signal
 * it, Landlock's signal scope allows no other): make the stand-in for
 * pid.  1 when made, 0 when the kernel refused (the PID is taken here, or
 * above pid_max: a convenience lost, never an error).  Async-signal-safe. */
int standin_make(pid_t pid);

/* Empty every capability set of this process.  0 or -errno; async-signal-safe. */
int standin_drop(void);

#endif
