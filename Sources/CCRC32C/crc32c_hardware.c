// CRC-32C with the CPU's own instruction. C rather than Swift because Swift
// has no access to the instruction; the Swift code falls back to its
// slicing-by-8 tables where this reports no hardware.

#include "crc32c_hardware.h"

#include <string.h>

#if defined(__x86_64__)

#include <nmmintrin.h>
#include <pthread.h>

int crc32c_hardware_available(void) {
    return __builtin_cpu_supports("sse4.2");
}

// The instruction takes three cycles to give its result and can start one
// every cycle, so a long buffer is read as three lanes of `LANE` bytes at
// once, whose CRCs are then joined: three times the speed of one chain.
// Joining uses that the CRC (without its inversions) is linear: the CRC of
// A then B, from state s, is the CRC of B from 0, xor s carried over as many
// zero bytes as B has (`over_lane`).
enum { LANE = 4096 };

// `carry[j][v]`: the state `v << 8j` carried over LANE zero bytes.
static uint32_t carry[4][256];
static pthread_once_t carry_made = PTHREAD_ONCE_INIT;

__attribute__((target("sse4.2")))
static void make_carry(void) {
    // Each state bit on its own, then every byte value as the xor of its bits.
    uint32_t bit[32];
    for (int b = 0; b < 32; b++) {
        uint64_t state = (uint64_t)1 << b;
        for (int i = 0; i < LANE / 8; i++) state = _mm_crc32_u64(state, 0);
        bit[b] = (uint32_t)state;
    }
    for (int j = 0; j < 4; j++) {
        carry[j][0] = 0;
        for (int v = 1; v < 256; v++) {
            int low = __builtin_ctz(v);
            carry[j][v] = carry[j][v & (v - 1)] ^ bit[8 * j + low];
        }
    }
}

static uint32_t over_lane(uint32_t state) {
    return carry[0][state & 0xFF] ^ carry[1][(state >> 8) & 0xFF] ^ carry[2][(state >> 16) & 0xFF] ^ carry[3][state >> 24];
}

__attribute__((target("sse4.2")))
uint32_t crc32c_hardware_update(uint32_t crc, const void *data, size_t length) {
    const unsigned char *p = data;
    if (length >= 3 * LANE) pthread_once(&carry_made, make_carry);
    for (; length >= 3 * LANE; p += 3 * LANE, length -= 3 * LANE) {
        uint64_t a = crc, b = 0, c = 0;
        for (size_t i = 0; i < LANE; i += 8) {
            uint64_t x, y, z;
            memcpy(&x, p + i, 8);
            memcpy(&y, p + LANE + i, 8);
            memcpy(&z, p + 2 * LANE + i, 8);
            a = _mm_crc32_u64(a, x);
            b = _mm_crc32_u64(b, y);
            c = _mm_crc32_u64(c, z);
        }
        crc = over_lane(over_lane((uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;
    }
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
