/* SPDX-License-Identifier: MIT
 * The one array-growing primitive, for heelc and heel-exec alike: room
 * for one more element without quadratic copying, and no size
 * arithmetic that can wrap. libc only. */
#ifndef HEEL_RUNTIME_GROW_H
#define HEEL_RUNTIME_GROW_H

#include <stddef.h>

/* Makes room for `need` (> 0) elements of `width` bytes in `arr`, a
 * malloc'd array of *cap elements (NULL when *cap is 0). The capacity
 * doubles, from `first` elements (16 when 0), so a run of appends copies
 * each element a bounded number of times; a caller that knows the usual
 * size passes it as `first` and never grows (musl's malloc maps a fresh
 * group for each step, ~8 us apiece at launch). New
 * elements are zeroed. Returns the array, which may have moved (*cap
 * updated), or NULL when memory is short or need * width would overflow;
 * then `arr` and *cap are untouched and `arr` is still the caller's. */
void *grow_array(void *arr, size_t *cap, size_t need, size_t width, size_t first);

#endif
