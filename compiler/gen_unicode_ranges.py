#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# Prints the code point table of compiler/unicode_ranges.c from Python's
# unicodedata (its Unicode version is written into the output). Run by
# hand when the Unicode version should move; the build does not run it,
# so heelc's answer does not depend on the build machine's Python.
import unicodedata as u

KIND = {'Mn': 'UC_MARK', 'Me': 'UC_MARK', 'Cf': 'UC_FORMAT', 'Zs': 'UC_SPACE',
        'Zl': 'UC_SPACE', 'Zp': 'UC_SPACE', 'Cc': 'UC_CONTROL'}

ranges, names = [], []
for cp in range(0x80, 0x110000):
    cat = u.category(chr(cp))
    kind = KIND.get(cat)
    if 0xE0000 <= cp <= 0xE007F:  # the whole tag block, assigned or not
        kind = 'UC_FORMAT'
    if kind is None:
        continue
    if ranges and ranges[-1][2] == kind and ranges[-1][1] == cp - 1:
        ranges[-1][1] = cp
    else:
        ranges.append([cp, cp, kind])
    if kind in ('UC_FORMAT', 'UC_SPACE') and not 0xE0000 <= cp <= 0xE007F or \
            0x300 <= cp <= 0x30F or cp == 0x34F or 0xFE00 <= cp <= 0xFE0F:
        names.append((cp, u.name(chr(cp), '')))

print('/* Unicode %s: Mn Me (marks), Cf (format), Zs Zl Zp (spaces), Cc. */' % u.unidata_version)
print('static const struct uc_range uc_ranges[] = {')
for lo, hi, kind in ranges:
    print('\t{0x%04X, 0x%04X, %s},' % (lo, hi, kind))
print('};')
print('')
print('static const struct uc_name uc_names[] = {')
for cp, name in names:
    if name:
        print('\t{0x%04X, "%s"},' % (cp, name))
print('};')
