#ifndef CRC32C_HARDWARE_H
#define CRC32C_HARDWARE_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has a CRC-32C instruction (SSE4.2 on x86-64, the CRC
/// extension on 64-bit Arm) that `crc32c_hardware_update` can use.
int crc32c_hardware_available(void);

/// Folds `length` bytes at `data` into `crc` (not inverted: start from
/// 0xFFFFFFFF and invert the result). Call only if the hardware is available.
uint32_t crc32c_hardware_update(uint32_t crc, const void *data, size_t length);

#endif
