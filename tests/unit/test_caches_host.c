/* test_caches_host.c: hostpaths/caches.c, which failures to make the cache
 * directory let the run go on without it. */
#include <criterion/criterion.h>

#include <errno.h>

#include "hostpaths/caches.h"

Test(caches_host, cannot_make_is_not_tampered)
{
	cr_assert(caches_unavailable(-ENOENT), "no home, or a parent missing");
	cr_assert(caches_unavailable(-EACCES));
	cr_assert(caches_unavailable(-EROFS));
	cr_assert(caches_unavailable(-ENOSPC));
	cr_assert(!caches_unavailable(-ELOOP), "a symbolic link on the way is a refusal");
	cr_assert(!caches_unavailable(-EPERM), "someone else's, or writable by others");
	cr_assert(!caches_unavailable(-ENOTDIR));
	cr_assert(!caches_unavailable(-ENAMETOOLONG));
}
