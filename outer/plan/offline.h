/* offline.h: the command's environment under --net none, pure.
 *
 * Without a network namespace's route to anywhere, name resolution fails as
 * "temporary" (EAI_AGAIN) and package managers retry it: npm for 70 s, pip
 * for 8 s, cargo three times, before saying anything.  No retry can succeed
 * in this sandbox, so their retry counts are set to zero and they fail at
 * once, with their own message about the network.  A variable the caller
 * set wins. */
#ifndef CORDON_PLAN_OFFLINE_H
#define CORDON_PLAN_OFFLINE_H

#include "argv.h"
#include "err.h"

int offline_env(struct argv *env, struct cordon_err *e) __attribute__((warn_unused_result));

/* Why offline_env sets key, NULL when it does not. */
const char *offline_env_why(const char *key);

#endif
