/* grow.h: the one way an array grows.  Each array keeps a capacity beside
 * its count, and grows geometrically (doubling), so that n appends cost
 * O(n) copies, not the O(n^2) of growing by one element each time. */
#ifndef CORDON_GROW_H
#define CORDON_GROW_H

#include <stddef.h>
#include "sys.h"

/* Make room for at least `need` elements of `elem` bytes.  arrayp is the
 * address of the array's pointer (a T **, T of size elem; the pointer NULL
 * with *cap 0 before the first call), *cap its room in elements.  When
 * need > *cap the array is reallocated to max(need, 2 * *cap, 8) elements
 * and both are updated; the elements from *cap on are uninitialised.
 * 0, or -ENOMEM (out of memory, or a size past SIZE_MAX) with the array
 * and *cap unchanged. */
int grow_reserve(void *arrayp, size_t *cap, size_t need, size_t elem) WUR;

#endif
