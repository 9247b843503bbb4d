#ifndef ORDERS_CZSTD_SHIM_H
#define ORDERS_CZSTD_SHIM_H

// The parts of libzstd that `orders` uses. ZSTD_STATIC_LINKING_ONLY is not
// defined: only the stable API is visible.
#include <zstd.h>
#include <zstd_errors.h>

// Swift does not import macros whose value is an expression.
static inline unsigned long long orders_zstd_contentsize_unknown(void) { return ZSTD_CONTENTSIZE_UNKNOWN; }
static inline unsigned long long orders_zstd_contentsize_error(void) { return ZSTD_CONTENTSIZE_ERROR; }

#endif
