/* registry_carve.h: what the mount plan must add so that no writable root
 * reaches the registry.
 *
 * The registry itself is bound read-only wherever a writable root contains
 * it.  That alone is not enough: with `-w ~` the command could rename an
 * ancestor (~/.local, ~/.local/state or ~/.local/state/cordon), and the next
 * run would open, trust and sweep a registry the command planted at the old
 * path (forged records) and no longer see the live runs' records (lost
 * pins).  A rename works on the parent's entry, which a read-only bind of
 * the directory does not protect; but a mount point cannot be renamed or
 * removed (EBUSY).  So each ancestor between the writable root and the
 * registry is bound onto itself, writable (a "pin": what the command may do
 * inside stays the same), and none of them can be moved away.  This was
 * chosen over the alternatives: binding the ancestors read-only would take
 * ~/.local/bin and ~/.local/share from the command; moving the registry out
 * of every writable root's reach has no place to go that a root cannot
 * cover (-w / with --full-write); checking the registry's identity before
 * trusting it needs a trusted place to keep that identity, which is the
 * same problem again.  Pins are bound by path (they are opened after bwrap
 * started) and their (dev, ino) is checked inside by cordon-inner, like the
 * registry carve-out. */
#ifndef CORDON_REGISTRY_CARVE_H
#define CORDON_REGISTRY_CARVE_H

#include "err.h"
#include "hostpaths/registry.h"
#include "plan/resolve.h"

/* Append to *out (the caller's list of *nout, room for *capout:
 * common/grow.h; r stays as resolve_config made it)
 * what protect_decide_carves (plan/protect_decide.h) decides, each opened:
 * for each writable root (and "/" with full_write) that is the registry or
 * one of its ancestors, the registry, read-only, at its path under that
 * root, and a pin (.pin) for each directory between the root and the
 * registry that is not already inside a read-only carve-out (r's, *out's or
 * one decided there). */
int registry_carve(const struct resolved *r, int full_write, const struct registry *reg,
		   struct rpath **out, size_t *nout, size_t *capout, struct cordon_err *e)
	__attribute__((warn_unused_result));

#endif
