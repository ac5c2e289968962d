/* forkcall.h: one of cordon's own functions run in a forked copy of
 * cordon, for work whose signals, descriptors and exit must not touch the
 * caller's (doctor's trial run of a whole sandbox). */
#ifndef CORDON_FORKCALL_H
#define CORDON_FORKCALL_H

#include <sys/types.h>

/* Fork; the child runs fn(ctx) and _exits with what it returns (never
 * returning into cordon's frames or flushing the caller's stdio buffers
 * twice).  fn may call anything: cordon has no threads.  Returns the
 * child's pid (the caller reaps it), or -errno (nothing started). */
pid_t forkcall_start(int (*fn)(void *ctx), void *ctx) __attribute__((warn_unused_result));

#endif
