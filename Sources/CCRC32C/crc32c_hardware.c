// CRC-32C with the CPU's own instruction. C rather than Swift because Swift
// has no access to the instruction; the Swift code falls back to its
// slicing-by-8 tables where this reports no hardware.

#include "crc32c_hardware.h"

#include <string.h>

#if defined(__x86_64__)

#include <nmmintrin.h>

int crc32c_hardware_available(void) {
    return __builtin_cpu_supports("sse4.2");
}

__attribute__((target("sse4.2")))
uint32_t crc32c_hardware_update(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = data;
    uint64_t wide = crc;
    for (; length >= 8; p += 8, length -= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        wide = _mm_crc32_u64(wide, word);
    }
    crc = (uint32_t)wide;
    for (; length > 0; p++, length--) crc = _mm_crc32_u8(crc, *p);
    return crc;
}

#elif defined(__aarch64__) && defined(__linux__)

#include <arm_acle.h>
#include <sys/auxv.h>
#include <asm/hwcap.h>

int crc32c_hardware_available(void) {
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
}

__attribute__((target("crc")))
uint32_t crc32c_hardware_update(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = data;
    for (; length >= 8; p += 8, length -= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc = __crc32cd(crc, word);
    }
    for (; length > 0; p++, length--) crc = __crc32cb(crc, *p);
    return crc;
}

#else

int crc32c_hardware_available(void) { return 0; }

uint32_t crc32c_hardware_update(uint32_t crc, const void *data, size_t length) {
    (void)data;
    (void)length;
    return crc;
}

#endif
