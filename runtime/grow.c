/* SPDX-License-Identifier: MIT
 * See grow.h. */
#include "grow.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *
grow_array(void *arr, size_t *cap, size_t need, size_t width, size_t first)
{
	size_t max = SIZE_MAX / width;
	size_t ncap;
	char *grown;

	if (need <= *cap)
		return arr;
	if (need > max)
		return NULL;
	ncap = *cap ? *cap : first ? first : 16;
	while (ncap < need)
		ncap = ncap > max / 2 ? max : ncap * 2;
	if (ncap > max)
		ncap = max;
	grown = realloc(arr, ncap * width);
	if (!grown)
		return NULL;
	memset(grown + *cap * width, 0, (ncap - *cap) * width);
	*cap = ncap;
	return grown;
}
