// Orders and groupings of the pairs, all linear-time and the same for any thread count: grouping the
// entries of a game log by unordered pair (a parallel, stable radix sort of the pair keys), aggregating
// a game log to its distinct pairs, the objective's tile order, and each player's list of pairs
// (Adjacency).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "discrank/buffer.hpp"
#include "discrank/threads.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace discrank {

// Where the distinct pairs go: alloc(k) is called once, with their number k, and returns arrays of k
// (games and wins only for aggregate_games).
struct PairOut {
    std::int32_t* lo;
    std::int32_t* hi;
    double* games;
    double* wins;
};

namespace detail {

// One stable counting-sort pass over entries t = 0..m-1 into B buckets: entry t has the key
// x = key(t) and goes to bucket(x); a histogram per thread over a contiguous range of entries, the
// offsets by (bucket, thread), then each thread moves its range: move(t, x, at) puts entry t at
// position `at`. Stable, so the result does not depend on the thread count. hist: scratch.
template <class KeyOf, class Bucket, class Move>
void counting_pass(std::int64_t m, std::int64_t B, int n_threads, std::vector<std::int64_t>& hist, KeyOf key,
                   Bucket bucket, Move move) {
    const int nt = clamp_threads(n_threads);
    hist.resize(static_cast<std::size_t>(nt) * static_cast<std::size_t>(B));
#pragma omp parallel num_threads(nt)
    {
#ifdef _OPENMP
        const int k = omp_get_thread_num();
        const int T = omp_get_num_threads();
#else
        const int k = 0, T = 1;
#endif
        const std::int64_t t0 = m * k / T, t1 = m * (k + 1) / T;
        std::int64_t* h = hist.data() + static_cast<std::size_t>(k) * B;
        std::fill(h, h + B, 0);
        for (std::int64_t t = t0; t < t1; ++t) ++h[bucket(key(t))];
#pragma omp barrier
#pragma omp single
        {
            std::int64_t pos = 0;
            for (std::int64_t d = 0; d < B; ++d)
                for (int q = 0; q < T; ++q) {
                    std::int64_t& c = hist[static_cast<std::size_t>(q) * B + d];
                    const std::int64_t cnt = c;
                    c = pos;
                    pos += cnt;
                }
        }
        for (std::int64_t t = t0; t < t1; ++t) {
            const auto x = key(t);
            move(t, x, h[bucket(x)]++);
        }
    }
}

// A stable least-significant-digit radix sort of m entries by a key of `bits` bits, each entry
// carrying a value: counting passes of at most 8 bits (256 buckets, whose write positions stay in the
// L1 cache; measured as fast as 11-bit digits on 2 threads and faster on one). Stable, so equal keys
// keep the entry order: the result does not depend on the thread count. key_of(t) and val_of(t) make
// entry t (the first pass reads the input through them; no copy of the input is made first).
template <class Key, class Val>
struct RadixSorted {
    Buffer<Key> key;
    Buffer<Val> val;  // not zero-filled: every slot is written

    template <class KeyOf, class ValOf>
    RadixSorted(std::int64_t m, int bits, KeyOf key_of, ValOf val_of, int n_threads) {
        const std::size_t size = static_cast<std::size_t>(m > 0 ? m : 1);
        key.reset(size);
        val.reset(size);
        const int passes = std::max(1, (bits + 7) / 8);
        const int width = std::max(1, (bits + passes - 1) / passes);
        const std::int64_t B = std::int64_t{1} << width;
        const Key mask = static_cast<Key>(B - 1);
        // with an odd number of passes the first one writes to `key`, so that the last one does too
        Buffer<Key> key2;
        Buffer<Val> val2;
        if (passes > 1) {
            key2.reset(size);
            val2.reset(size);
        }
        Key* src_k = nullptr;
        Val* src_v = nullptr;
        Key* dst_k = passes % 2 ? key.get() : key2.get();
        Val* dst_v = passes % 2 ? val.get() : val2.get();
        std::vector<std::int64_t> hist;
        for (int p = 0; p < passes; ++p) {
            const int shift = p * width;
            if (p == 0)
                counting_pass(
                    m, B, n_threads, hist, key_of, [&](Key x) { return x & mask; },
                    [&](std::int64_t t, Key x, std::int64_t at) {
                        dst_k[at] = x;
                        dst_v[at] = val_of(t);
                    });
            else
                counting_pass(
                    m, B, n_threads, hist, [&](std::int64_t t) { return src_k[t]; },
                    [&](Key x) { return (x >> shift) & mask; },
                    [&](std::int64_t t, Key x, std::int64_t at) {
                        dst_k[at] = x;
                        dst_v[at] = src_v[t];
                    });
            src_k = dst_k;
            src_v = dst_v;
            dst_k = src_k == key.get() ? key2.get() : key.get();
            dst_v = src_v == val.get() ? val2.get() : val.get();
        }
    }
};

// The entries t = 0..m-1 of a log, each an unordered pair (lo, hi) of players, sorted by (lo, hi)
// with ties in entry order (a radix sort of key = lo << hb | hi), and the runs of equal pairs (see
// for_each_run). key_of(t) gives entry t's key, val_of(t) the value carried along.
template <class Key, class Val>
struct PairRuns {
    int hb;  // bits of the higher player's index in the key
    std::int64_t m;
    RadixSorted<Key, Val> sorted;
    std::vector<std::int64_t> first_run;  // per thread range: the number of runs starting before it
    int nt;

    template <class KeyOf, class ValOf>
    PairRuns(std::int64_t m_, int hb_, KeyOf key_of, ValOf val_of, int n_threads)
        : hb(hb_), m(m_), sorted(m_, 2 * hb_, key_of, val_of, n_threads), first_run(clamp_threads(n_threads) + 1, 0),
          nt(clamp_threads(n_threads)) {
        const Key* key = sorted.key.get();
#pragma omp parallel for schedule(static, 1) num_threads(nt)
        for (int k = 0; k < nt; ++k) {
            std::int64_t u = 0;
            for (std::int64_t t = m * k / nt; t < m * (k + 1) / nt; ++t) u += t == 0 || key[t] != key[t - 1];
            first_run[k + 1] = u;
        }
        for (int k = 0; k < nt; ++k) first_run[k + 1] += first_run[k];
    }

    std::int64_t n_runs() const { return first_run[nt]; }
    std::int32_t lo(Key x) const { return static_cast<std::int32_t>(x >> hb); }
    std::int32_t hi(Key x) const { return static_cast<std::int32_t>(x & ((Key{1} << hb) - 1)); }

    // visit(rank, t0, t1): the run of rank `rank` is sorted entries [t0, t1). Runs in parallel, each
    // run visited once, by the thread whose range holds its first entry.
    template <class Visit>
    void for_each_run(Visit visit) const {
        const Key* key = sorted.key.get();
#pragma omp parallel for schedule(static, 1) num_threads(nt)
        for (int k = 0; k < nt; ++k) {
            std::int64_t t = m * k / nt;
            const std::int64_t end = m * (k + 1) / nt;
            while (t > 0 && t < end && key[t] == key[t - 1]) ++t;  // that run belongs to the range before
            std::int64_t rank = first_run[k];
            while (t < end) {
                std::int64_t u = t + 1;
                while (u < m && key[u] == key[t]) ++u;
                visit(rank++, t, u);
                t = u;
            }
        }
    }
};

// Bits needed for an index in [0, n).
inline int index_bits(std::int64_t n) {
    int b = 1;
    while ((std::int64_t{1} << b) < n) ++b;
    return b;
}

// Keys of 32 bits when the two indices fit (n <= 65536), else 64.
template <class Run32, class Run64>
void with_key_type(std::int64_t n, Run32 run32, Run64 run64) {
    if (2 * index_bits(n) <= 32)
        run32();
    else
        run64();
}

struct GameVal {
    double wins;  // count * score of lo
    double games;
};

template <class Key>
void group_pairs_impl(std::int64_t n, std::int64_t m, const std::int32_t* lo, const std::int32_t* hi,
                      std::int32_t* inverse, const std::function<PairOut(std::int64_t)>& alloc, int n_threads) {
    const int hb = index_bits(n);
    const PairRuns<Key, std::uint32_t> runs(
        m, hb, [&](std::int64_t t) { return static_cast<Key>((static_cast<Key>(lo[t]) << hb) | static_cast<Key>(hi[t])); },
        [](std::int64_t t) { return static_cast<std::uint32_t>(t); }, n_threads);
    const PairOut out = alloc(runs.n_runs());
    const Key* key = runs.sorted.key.get();
    const std::uint32_t* entry = runs.sorted.val.get();
    runs.for_each_run([&](std::int64_t rank, std::int64_t t0, std::int64_t t1) {
        out.lo[rank] = runs.lo(key[t0]);
        out.hi[rank] = runs.hi(key[t0]);
        for (std::int64_t t = t0; t < t1; ++t) inverse[entry[t]] = static_cast<std::int32_t>(rank);
    });
}

template <class Key, class Val>
void aggregate_games_impl(std::int64_t n, std::int64_t m, const std::int32_t* ia, const std::int32_t* ib,
                          const double* score, const double* count, const std::function<PairOut(std::int64_t)>& alloc,
                          int n_threads) {
    const int hb = index_bits(n);
    const PairRuns<Key, Val> runs(
        m, hb,
        [&](std::int64_t t) {
            const Key a = static_cast<Key>(ia[t]), b = static_cast<Key>(ib[t]);
            return a < b ? (a << hb) | b : (b << hb) | a;
        },
        [&](std::int64_t t) {
            const double s = ia[t] < ib[t] ? score[t] : 1.0 - score[t];
            if constexpr (std::is_same_v<Val, GameVal>) return GameVal{count[t] * s, count[t]};
            else return s;
        },
        n_threads);
    const PairOut out = alloc(runs.n_runs());
    const Key* key = runs.sorted.key.get();
    const Val* val = runs.sorted.val.get();
    runs.for_each_run([&](std::int64_t rank, std::int64_t t0, std::int64_t t1) {
        out.lo[rank] = runs.lo(key[t0]);
        out.hi[rank] = runs.hi(key[t0]);
        double wins = 0.0, games = 0.0;
        for (std::int64_t t = t0; t < t1; ++t) {  // in game order
            if constexpr (std::is_same_v<Val, GameVal>) {
                wins += val[t].wins;
                games += val[t].games;
            } else {
                wins += val[t];
                games += 1.0;
            }
        }
        out.games[rank] = games;
        out.wins[rank] = wins;
    });
}

}  // namespace detail

// Entries t = 0..m-1 with lo[t] < hi[t] in [0, n). Writes inverse[t] = the rank of (lo[t], hi[t])
// among the distinct pairs sorted by (lo, hi), and the distinct pairs in that order.
inline void group_pairs(std::int64_t n, std::int64_t m, const std::int32_t* lo, const std::int32_t* hi,
                        std::int32_t* inverse, const std::function<PairOut(std::int64_t)>& alloc, int n_threads) {
    detail::with_key_type(n, [&] { detail::group_pairs_impl<std::uint32_t>(n, m, lo, hi, inverse, alloc, n_threads); },
                          [&] { detail::group_pairs_impl<std::uint64_t>(n, m, lo, hi, inverse, alloc, n_threads); });
}

// Aggregates a game log: games t = 0..m-1 between players ia[t] != ib[t] in [0, n), score[t] of ia[t]
// in [0, 1], count[t] games (null: 1 each). Writes the distinct unordered pairs (lo < hi) sorted by
// (lo, hi), with their total games and the total score of lo, summed in game order within a pair:
// the result does not depend on the thread count.
inline void aggregate_games(std::int64_t n, std::int64_t m, const std::int32_t* ia, const std::int32_t* ib,
                            const double* score, const double* count,
                            const std::function<PairOut(std::int64_t)>& alloc, int n_threads) {
    auto run = [&](auto key_zero) {
        using Key = decltype(key_zero);
        if (count)
            detail::aggregate_games_impl<Key, detail::GameVal>(n, m, ia, ib, score, count, alloc, n_threads);
        else
            detail::aggregate_games_impl<Key, double>(n, m, ia, ib, score, count, alloc, n_threads);
    };
    detail::with_key_type(n, [&] { run(std::uint32_t{0}); }, [&] { run(std::uint64_t{0}); });
}

// Moves the pairs (i[p], j[p]), players in [0, n), and n_cols per-pair columns into the order that
// keeps the objective's accesses to the second player's parameters and gradient in cache: stable by
// the second player's tile of 2^tile_bits players, so pairs sorted by (i, j) come out sorted by
// (j >> tile_bits, i, j). A pass over the pairs then reads the first players in increasing order (a
// stream) and the second players within one tile (2 048 players: 128 KiB of parameters and gradient
// for k = 2). One stable counting-sort pass: the same result for any thread count.
inline void tile_pairs(std::int64_t n, std::int64_t m, const std::int32_t* i, const std::int32_t* j,
                       const double* const* cols, int n_cols, int tile_bits, std::int32_t* i_out,
                       std::int32_t* j_out, double* const* cols_out, int n_threads) {
    const std::int64_t tiles = n > 0 ? ((n - 1) >> tile_bits) + 1 : 1;
    std::vector<std::int64_t> hist;
    detail::counting_pass(
        m, tiles, n_threads, hist, [&](std::int64_t t) { return j[t]; },
        [&](std::int32_t x) { return x >> tile_bits; },
        [&](std::int64_t t, std::int32_t x, std::int64_t at) {
            i_out[at] = i[t];
            j_out[at] = x;
            for (int c = 0; c < n_cols; ++c) cols_out[c][at] = cols[c][t];
        });
}

// Each player's pairs (CSR over both endpoints of the pairs (i[p], j[p]), players in [0, n)), built by
// a counting sort in O(n + m): the pairs of player a are entries [ptr[a], ptr[a + 1]), in increasing
// pair order. 16 bytes per pair.
struct Adjacency {
    struct Entry {
        std::int32_t pair;
        std::int32_t other;  // the other player, bitwise-negated when this player is the pair's second
    };
    std::vector<std::int64_t> ptr;
    std::vector<Entry> entries;

    Adjacency() = default;
    Adjacency(std::int64_t n, std::int64_t m, const std::int32_t* i, const std::int32_t* j) : ptr(n + 1, 0) {
        for (std::int64_t p = 0; p < m; ++p) {
            ++ptr[i[p] + 1];
            ++ptr[j[p] + 1];
        }
        for (std::int64_t a = 0; a < n; ++a) ptr[a + 1] += ptr[a];
        entries.resize(2 * m);
        std::vector<std::int64_t> fill(ptr.begin(), ptr.end() - 1);
        for (std::int64_t p = 0; p < m; ++p) {
            const std::int32_t a = i[p], b = j[p];
            entries[fill[a]++] = {static_cast<std::int32_t>(p), b};   // a is the first player: sign +1
            entries[fill[b]++] = {static_cast<std::int32_t>(p), ~a};  // b is the second player: sign -1
        }
    }
};

}  // namespace discrank
