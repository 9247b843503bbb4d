// The fold of EVENTS.md section 2, and the aggregates of the daily,
// products and tally reports, in plain C over fixed-width columns already
// in memory (columns.py): what `orders bench` calls "fold" and "reports",
// with no decompression and no decoding. A yardstick for our fold, not part
// of orders: it takes what a generated stream needs (dates in UTC, 16
// currencies) and says so when a stream needs more. Each cart's lines sit
// in a block of `block` lines, 8 unless a cart needs more, then the
// fewest doubled that every cart fits in: a longer block only for the
// streams whose carts need it.
//
//     cc -O2 -o c_fold c_fold.c && ./c_fold DIR [RUNS]
//
// (-O2: -O3 -march=native made the fold 5% slower.)
//
// Prints the best of RUNS (default 5) folds' time on standard error, with
// that of a loop that only branches on each event's kind, and the
// outcome's figures in the JSON shape of `orders replay --json` on
// standard output.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ADDED, CHANGED, REMOVED, CHECKED_OUT, VOTE };
enum { CART_CLOSED, CURRENCY_MISMATCH, NO_SUCH_LINE, DUPLICATE_ORDER, EMPTY_CART, OVERFLOW, DUPLICATE_VOTE, KINDS };
enum { NONE, OPEN, CLOSED };
enum { CURRENCIES = 16, AHEAD = 16, NEAR = 6 };
static const char *kind_names[KINDS] = {"cart_closed", "currency_mismatch", "no_such_line", "duplicate_order",
                                        "empty_cart", "overflow", "duplicate_vote"};

typedef struct { uint32_t product; int64_t qty, price; } Line;
/// 8 bytes a cart, as in orders: where its lines are, how many, its state.
typedef struct { uint32_t block; uint8_t state, currency, count, unused; } Cart;

typedef struct {
    size_t n;
    uint8_t *kind; int64_t *at; uint32_t *a, *b, *c; int64_t *qty, *price; uint16_t *currency;
} Columns;

typedef struct { __int128 units, revenue; } Sums;

typedef struct {
    int64_t events, applied, anomalies[KINDS], orders, open, votes;
    Sums totals[CURRENCIES];
    int too_long;  // a cart had more lines than a block holds: fold again with longer blocks
} Outcome;

/// The lines in each cart's block; the UTC days the events span, from `day0`; the currencies.
typedef struct { int block; int64_t day0, days; int currencies; } Bounds;

static void fail(const char *why) { fprintf(stderr, "c_fold: %s\n", why); exit(2); }

static void *load(const char *dir, const char *name, size_t width, size_t *count) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) fail(path);
    fseek(f, 0, SEEK_END);
    size_t bytes = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    void *data = malloc(bytes + 1);
    if (!data || fread(data, 1, bytes, f) != bytes) fail(path);
    fclose(f);
    *count = bytes / width;
    return data;
}

static uint32_t most(const uint32_t *v, const uint8_t *kind, size_t n, int (*has)(uint8_t)) {
    uint32_t m = 0;
    for (size_t i = 0; i < n; i++) if (has(kind[i]) && v[i] > m) m = v[i];
    return m + 1;
}
static int is_cart_event(uint8_t k) { return k != VOTE; }
static int is_line_event(uint8_t k) { return k <= REMOVED; }
static int is_checkout(uint8_t k) { return k == CHECKED_OUT; }
static int is_vote(uint8_t k) { return k == VOTE; }

static uint64_t vote_slot(uint64_t key, unsigned bits) { return (key * 0x9E3779B97F4A7C15ull) >> (64 - bits); }

static Outcome fold(const Columns *e, Bounds bounds, uint32_t carts_n, uint32_t products_n, uint32_t orders_n,
                    uint32_t polls_n, uint32_t voters_n, uint32_t candidates_n) {
    const size_t BLOCK = (size_t)bounds.block, CODES = (size_t)bounds.currencies;
    Outcome out = {0};
    Cart *carts = calloc(carts_n, sizeof *carts);
    Line *pool = malloc(sizeof(Line) * BLOCK * (size_t)carts_n);
    uint32_t *free_blocks = malloc(sizeof(uint32_t) * carts_n), free_count = 0, next_block = 0;
    uint64_t *used_orders = calloc(orders_n / 64 + 1, 8);
    // A voter's first vote, (poll, candidate) + 1; later votes in a hash set of (poll, voter, candidate).
    uint64_t *first_vote = calloc(voters_n, 8);
    unsigned bits = 22;
    uint64_t *repeat_votes = calloc((size_t)1 << bits, 8), repeats = 0;
    int64_t *tally = calloc((size_t)polls_n * candidates_n, 8);
    int64_t day0 = bounds.day0;
    Sums (*daily)[CURRENCIES] = calloc((size_t)bounds.days, sizeof *daily);
    int64_t (*daily_orders)[CURRENCIES] = calloc((size_t)bounds.days, sizeof *daily_orders);
    Sums *products = calloc((size_t)bounds.days * products_n * CODES, sizeof *products);
    if (!carts || !pool || !free_blocks || !used_orders || !first_vote || !repeat_votes || !tally || !daily || !products) fail("out of memory");

    for (size_t i = 0; i < e->n; i++) {
        // Fetch ahead what later events read, as orders does: a cart's record, its lines, a voter's first vote.
        size_t far = i + AHEAD < e->n ? i + AHEAD : i, near = i + NEAR < e->n ? i + NEAR : i;
        if (e->kind[far] == VOTE) __builtin_prefetch(&first_vote[e->b[far]]);
        else __builtin_prefetch(&carts[e->a[far]]);
        if (e->kind[near] != VOTE) __builtin_prefetch(pool + (size_t)carts[e->a[near]].block * BLOCK);

        uint8_t kind = e->kind[i];
        if (kind == VOTE) {
            uint64_t vote = ((uint64_t)e->a[i] << 32 | e->c[i]) + 1, *first = &first_vote[e->b[i]];
            int counted = 0;
            if (*first == 0) { *first = vote; counted = 1; }
            else if (*first != vote) {
                uint64_t key = ((uint64_t)e->a[i] << 48 | (uint64_t)e->b[i] << 24 | e->c[i]) + 1;
                if (e->a[i] >= 1u << 16 || e->b[i] >= 1u << 24 || e->c[i] >= 1u << 24) fail("more polls, voters or candidates than the bound packs");
                uint64_t s = vote_slot(key, bits);
                while (repeat_votes[s] && repeat_votes[s] != key) s = (s + 1) & (((uint64_t)1 << bits) - 1);
                if (!repeat_votes[s]) {
                    if (++repeats > ((uint64_t)1 << bits) / 2) fail("more repeat votes than the bound's table");
                    repeat_votes[s] = key; counted = 1;
                }
            }
            if (counted) { tally[(size_t)e->a[i] * candidates_n + e->c[i]]++; out.votes++; out.applied++; }
            else out.anomalies[DUPLICATE_VOTE]++;
            continue;
        }
        Cart *cart = &carts[e->a[i]];
        if (cart->state == CLOSED) { out.anomalies[CART_CLOSED]++; continue; }
        Line *lines = pool + (size_t)cart->block * BLOCK;
        if (kind == ADDED) {
            if (cart->state == NONE) {
                cart->state = OPEN; cart->count = 0; out.open++;
                cart->block = free_count ? free_blocks[--free_count] : next_block++;
                lines = pool + (size_t)cart->block * BLOCK;
            }
            if (cart->count && cart->currency != e->currency[i]) { out.anomalies[CURRENCY_MISMATCH]++; continue; }
            int j = 0;
            while (j < cart->count && lines[j].product != e->b[i]) j++;
            if (j < cart->count) {
                int64_t sum;
                if (__builtin_add_overflow(lines[j].qty, e->qty[i], &sum)) { out.anomalies[OVERFLOW]++; continue; }
                lines[j].qty = sum; lines[j].price = e->price[i];
            } else {
                if (cart->count == BLOCK) { out.too_long = 1; break; }
                lines[cart->count++] = (Line){e->b[i], e->qty[i], e->price[i]};
                cart->currency = (uint8_t)e->currency[i];
            }
            out.applied++;
        } else if (kind == CHANGED || kind == REMOVED) {
            int j = 0;
            while (cart->state == OPEN && j < cart->count && lines[j].product != e->b[i]) j++;
            if (cart->state != OPEN || j == cart->count) { out.anomalies[NO_SUCH_LINE]++; continue; }
            if (kind == CHANGED) lines[j].qty = e->qty[i];
            else lines[j] = lines[--cart->count];
            out.applied++;
        } else {
            uint32_t order = e->b[i];
            if (used_orders[order >> 6] >> (order & 63) & 1) { out.anomalies[DUPLICATE_ORDER]++; continue; }
            if (cart->state != OPEN || cart->count == 0) { out.anomalies[EMPTY_CART]++; continue; }
            int64_t units = 0, total = 0;
            int overflow = 0;
            for (int j = 0; j < cart->count; j++) {
                int64_t line_total;
                overflow |= __builtin_mul_overflow(lines[j].qty, lines[j].price, &line_total);
                overflow |= __builtin_add_overflow(total, line_total, &total);
                overflow |= __builtin_add_overflow(units, lines[j].qty, &units);
            }
            if (overflow) { out.anomalies[OVERFLOW]++; continue; }
            used_orders[order >> 6] |= 1ull << (order & 63);
            int64_t day = e->at[i] / 86400000 - day0;
            int currency = cart->currency;
            daily[day][currency].units += units;
            daily[day][currency].revenue += total;
            daily_orders[day][currency]++;
            out.totals[currency].units += units;
            out.totals[currency].revenue += total;
            for (int j = 0; j < cart->count; j++) {
                Sums *p = &products[((size_t)day * products_n + lines[j].product) * CODES + currency];
                p->units += lines[j].qty;
                p->revenue += (__int128)lines[j].qty * lines[j].price;
            }
            free_blocks[free_count++] = cart->block;
            cart->state = CLOSED; out.open--; out.orders++; out.applied++;
        }
    }
    out.events = (int64_t)e->n;
    free(carts); free(pool); free(free_blocks); free(used_orders); free(first_vote); free(repeat_votes);
    free(tally); free(daily); free(daily_orders); free(products);
    return out;
}

/// Where `branch_on_kinds` leaves its result, so that the loop is not dropped.
static volatile int64_t kept;

/// A loop that only branches on each event's kind, with a token of work
/// for each: what dispatching alone costs when kinds come at random.
static int64_t branch_on_kinds(const Columns *e) {
    int64_t sums[VOTE + 1] = {0}, mix = 0;
    for (size_t i = 0; i < e->n; i++) {
        switch (e->kind[i]) {
        case ADDED: sums[ADDED] += e->qty[i]; mix ^= e->a[i]; break;
        case CHANGED: sums[CHANGED] += e->qty[i]; mix += e->a[i]; break;
        case REMOVED: sums[REMOVED]++; mix -= e->a[i]; break;
        case CHECKED_OUT: sums[CHECKED_OUT]++; mix *= 3; break;
        default: sums[VOTE]++; mix += 7;
        }
        __asm__ volatile("" ::: "memory");  // one branch an event, as the fold has: no merging of the cases
    }
    return sums[ADDED] + sums[CHANGED] + sums[REMOVED] + sums[CHECKED_OUT] + sums[VOTE] + mix;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2) fail("usage: c_fold DIR [RUNS]");
    const char *dir = argv[1];
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    Columns e;
    size_t n;
    e.kind = load(dir, "kind", 1, &e.n);
    e.at = load(dir, "at", 8, &n); e.a = load(dir, "a", 4, &n); e.b = load(dir, "b", 4, &n); e.c = load(dir, "c", 4, &n);
    e.qty = load(dir, "qty", 8, &n); e.price = load(dir, "price", 8, &n); e.currency = load(dir, "currency", 2, &n);
    if (e.n == 0) fail("no events");
    size_t code_bytes;
    const char *codes = load(dir, "currencies", 1, &code_bytes);  // "EUR\nUSD\n…": code c at 4 c
    for (size_t i = 0; i < e.n; i++) if (e.currency[i] >= CURRENCIES) fail("more currencies than the bound's 16");
    // The tables' sizes, as a batch's dictionary tells orders how many ids each role has.
    uint32_t carts = most(e.a, e.kind, e.n, is_cart_event), products = most(e.b, e.kind, e.n, is_line_event);
    uint32_t orders = most(e.b, e.kind, e.n, is_checkout), polls = most(e.a, e.kind, e.n, is_vote);
    uint32_t voters = most(e.b, e.kind, e.n, is_vote), candidates = most(e.c, e.kind, e.n, is_vote);

    Bounds bounds = {.block = 8, .day0 = INT64_MAX, .days = 0, .currencies = 0};
    int64_t last_day = INT64_MIN;
    for (size_t i = 0; i < e.n; i++) {
        int64_t day = e.at[i] / 86400000;
        if (day < bounds.day0) bounds.day0 = day;
        if (day > last_day) last_day = day;
    }
    bounds.days = last_day - bounds.day0 + 1;
    for (size_t i = 0; i < code_bytes; i++) bounds.currencies += codes[i] == '\n';
    // The shortest block every cart fits in, found by folding (not timed).
    while (fold(&e, bounds, carts, products, orders, polls, voters, candidates).too_long)
        if ((bounds.block *= 2) > 128) fail("a cart of more than 128 lines");

    Outcome out = {0};
    double best = 1e9;
    for (int run = 0; run < runs; run++) {
        double start = now();
        out = fold(&e, bounds, carts, products, orders, polls, voters, candidates);
        double took = now() - start;
        if (took < best) best = took;
    }
    fprintf(stderr, "c_fold: %zu events, best of %d: %.3f s (%.1f ns an event; blocks of %d lines, %lld days)\n",
            e.n, runs, best, best * 1e9 / (double)e.n, bounds.block, (long long)bounds.days);
    double dispatch = 1e9;
    for (int run = 0; run < runs; run++) {
        double start = now();
        kept = branch_on_kinds(&e);
        double took = now() - start;
        if (took < dispatch) dispatch = took;
    }
    fprintf(stderr, "c_fold: branching on the kinds alone, best of %d: %.3f s\n", runs, dispatch);
    printf("{\"events\": %lld, \"applied\": %lld, \"anomalies\": {", (long long)out.events, (long long)out.applied);
    for (int k = 0; k < KINDS; k++) printf("%s\"%s\": %lld", k ? ", " : "", kind_names[k], (long long)out.anomalies[k]);
    printf("}, \"orders\": %lld", (long long)out.orders);
    // Sums that need more than 64 bits would make orders fail; here they only have to print.
    const char *field[2] = {"revenue", "units"};
    for (int f = 0; f < 2; f++) {
        printf(", \"%s\": {", field[f]);
        for (int c = 0, first = 1; c < CURRENCIES; c++) {
            __int128 sum = f ? out.totals[c].units : out.totals[c].revenue;
            if (!out.totals[c].units) continue;
            if (sum > INT64_MAX || sum < INT64_MIN) fail("a sum beyond 64 bits");
            printf("%s\"%.3s\": %lld", first ? "" : ", ", codes + 4 * c, (long long)sum);
            first = 0;
        }
        printf("}");
    }
    printf(", \"open_carts\": %lld, \"votes\": %lld}\n", (long long)out.open, (long long)out.votes);
    return 0;
}
