/* policy_out.h: a config written back as a policy object in cordon's own
 * format (policy.h's keys), whatever the flags and file it came from: the
 * "effective policy" of explain --json and --report.  Fed to --policy, it
 * asks for the same sandbox again.  Pure. */
#ifndef CORDON_POLICY_OUT_H
#define CORDON_POLICY_OUT_H

#include "config.h"
#include "json_out.h"

/* The policy's word for a network mode: none, proxy or full. */
const char *policy_out_net_mode(enum net_mode m);

/* Write *c as the value of KEY (NULL inside an array) into j. */
void policy_out_json(struct json_out *j, const char *key, const struct config *c);

#endif
