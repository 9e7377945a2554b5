/* SPDX-License-Identifier: MIT
 * CRC-32C (Castagnoli), the checksum of the .hpol artifact. It detects
 * accidental corruption (truncated copies, bit rot, text-mode damage), not
 * tampering: an artifact's authenticity comes from the owner and mode
 * checks heel-exec makes before it reads a byte. */
#ifndef HEEL_RUNTIME_CRC32C_H
#define HEEL_RUNTIME_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/* Continues a running CRC over `len` bytes. Start with crc = 0; the value
 * returned is final (the pre- and post-inversion are done inside), so
 * crc32c_update(crc32c_update(0, a, n), b, m) == crc32c_buf(a ‖ b). */
uint32_t crc32c_update(uint32_t crc, const void *data, size_t len);

/* The same without CPU instructions, whatever the machine: the fallback,
 * and what tests compare the fast path against. */
uint32_t crc32c_update_portable(uint32_t crc, const void *data, size_t len);

/* CRC-32C of one buffer: crc32c_buf("123456789", 9) == 0xe3069283. */
uint32_t crc32c_buf(const void *data, size_t len);

#endif
