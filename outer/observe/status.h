/* status.h: the exit status of a run, computed once, after every observer
 * settled (observe/observer.h): a pure function of how the command ended
 * and of the findings. */
#ifndef CORDON_OBSERVE_STATUS_H
#define CORDON_OBSERVE_STATUS_H

#include "observe/findings.h"

/* Pure.  cmd: the command's status as outcome_exit_code gives it, or
 * -errno when cordon itself failed (returned as is: the caller says it,
 * and the run ends 125).  Then:
 * - a root that could not be checked: the run is not known clean; the
 *   command may have run, so never 125 ("nothing ran"): cmd, 1 for 0 or 125;
 * - cordon stopped the sandbox for a name: 1 (the command's own status
 *   means nothing after cordon's SIGKILL);
 * - a name created or a root moved: cmd, 1 for 0;
 * - else cmd.  Findings that are no violation (git state moved aside,
 *   refs, notes) never change it. */
int observe_status(int cmd, const struct findings *f);

/* Pure: 1 if any finding counts against the run (findings_is_violation). */
int observe_violated(const struct findings *f);

/* Pure: the status is that of a failed command (1 to 123), which the
 * notes held for it (findings.h, say_if_failed) are for. */
int observe_status_failed(int status);

#endif
