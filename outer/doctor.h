/* doctor.h: `cordon doctor`, a report of whether this machine can run the
 * sandbox cordon builds, one line per check, each with what to do when it
 * fails.  Exit status 0 when every check passed, 1 otherwise. */
#ifndef CORDON_DOCTOR_H
#define CORDON_DOCTOR_H

int doctor_run(void);

#endif
