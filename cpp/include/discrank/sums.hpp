// Sums in an order fixed by the data, never by the thread count, so that every result of the core is
// bitwise the same for any number of threads:
//  - compensated sums (Neumaier; Knuth's TwoSum in eight lanes for a block);
//  - the fixed partition of the pairs into blocks of kBlock pairs (the unit of the vectorised loss
//    code and of the partial loss sums) and kChunks chunks of whole blocks (the unit of the scatter
//    spread below);
//  - per-player sums over the pairs ("spread"), in one of two ways chosen from the data alone:
//    scatter, when the pairs outnumber kChunks x players: each chunk adds into its own buffer of n
//    per-player values (the pair arrays read sequentially, the buffers in cache), and the buffers are
//    summed in chunk order; gather, for sparse logs (many players, few pairs each): each player sums
//    its own pairs from the Adjacency (pairs.hpp) in pair order.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "discrank/fastmath.hpp"
#include "discrank/pairs.hpp"

namespace discrank {

constexpr std::int64_t kBlock = 2048;  // pairs per vectorised block and partial loss sum
constexpr std::int64_t kChunks = 16;   // fixed pieces of the pairs in the scatter spread

inline void neumaier_add(double& sum, double& comp, double x) {
    const double t = sum + x;
    comp += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
}

// Compensated sum of a block: eight interleaved lanes, each adding with Knuth's TwoSum (branch-free,
// the exact rounding error of every addition kept), combined in a fixed order.
DISCRANK_CLONES
inline double block_sum(const double* __restrict v, std::int64_t len) {
    double acc[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, comp[8] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    std::int64_t t = 0;
    for (; t + 8 <= len; t += 8)
        for (int l = 0; l < 8; ++l) {
            const double x = v[t + l], s = acc[l], sum = s + x, bb = sum - s;
            comp[l] += (s - (sum - bb)) + (x - bb);
            acc[l] = sum;
        }
    for (; t < len; ++t) neumaier_add(acc[0], comp[0], v[t]);
    double total = 0.0, c = 0.0;
    for (int l = 0; l < 8; ++l) {
        neumaier_add(total, c, acc[l]);
        neumaier_add(total, c, comp[l]);
    }
    return total + c;
}

// Borrowed arrays of m observed pairs (i[p], j[p]) of n players, with targets y and weights w.
struct PairSet {
    std::int64_t n = 0;
    std::int64_t m = 0;
    const std::int32_t* i = nullptr;
    const std::int32_t* j = nullptr;
    const double* y = nullptr;
    const double* w = nullptr;

    std::int64_t n_blocks() const { return (m + kBlock - 1) / kBlock; }
    // Whether per-player sums take the scatter way (else gather, from an Adjacency).
    bool scatter() const { return kChunks * n <= m; }
    // The blocks [first, last) of chunk c.
    std::int64_t chunk_first_block(std::int64_t c) const { return c * n_blocks() / kChunks; }
    // The pairs [first, last) of chunk c.
    std::int64_t chunk_first_pair(std::int64_t c) const { return std::min(m, chunk_first_block(c) * kBlock); }
};

// What spread() sums per player a over a's pairs p, b being the other player of p.
enum class Spread {
    sum,               // v_p
    laplacian,         // v_p (x_a - x_b)
    opponent_squared,  // v_p x_b^2
    scores,            // three sums: w_p; w_p times a's score (y_p when first, 1 - y_p when second); w_p
                       // times b's score
};

// Per-player sums over the pairs into out[0 .. W) (W = 3 for Spread::scores, else 1), in an order fixed
// by the data: the kChunks chunk buffers, then their sum in chunk order (adj null: scatter), or each
// player's pairs in pair order (gather from adj). chunk: scratch, resized here.
template <Spread Mode>
void spread(const PairSet& ps, const Adjacency* adj, std::vector<double>& chunk, const double* v, const double* xs,
            double* const* out, int n_threads) {
    constexpr int W = Mode == Spread::scores ? 3 : 1;
    const std::int64_t n = ps.n;
    const std::int32_t* i = ps.i;
    const std::int32_t* j = ps.j;
    const double* y = ps.y;
    const double* w = ps.w;
    if (!adj) {
        chunk.resize(static_cast<std::size_t>(W * kChunks * n));
#pragma omp parallel num_threads(n_threads)
        {
#pragma omp for schedule(dynamic, 1)
            for (std::int64_t c = 0; c < kChunks; ++c) {
                double* buf = chunk.data() + c * W * n;  // W rows of n
                std::fill(buf, buf + W * n, 0.0);
                const std::int64_t hi = ps.chunk_first_pair(c + 1);
                for (std::int64_t p = ps.chunk_first_pair(c); p < hi; ++p) {
                    const std::int32_t a = i[p], b = j[p];
                    if constexpr (Mode == Spread::laplacian) {
                        const double d = v[p] * (xs[a] - xs[b]);
                        buf[a] += d;
                        buf[b] -= d;
                    } else if constexpr (Mode == Spread::opponent_squared) {
                        buf[a] += v[p] * (xs[b] * xs[b]);
                        buf[b] += v[p] * (xs[a] * xs[a]);
                    } else if constexpr (Mode == Spread::scores) {
                        const double wy = w[p] * y[p], wl = w[p] * (1.0 - y[p]);
                        buf[a] += w[p];
                        buf[b] += w[p];
                        buf[n + a] += wy;
                        buf[2 * n + b] += wy;
                        buf[n + b] += wl;
                        buf[2 * n + a] += wl;
                    } else {
                        buf[a] += v[p];
                        buf[b] += v[p];
                    }
                }
            }
#pragma omp for schedule(static)
            for (std::int64_t a = 0; a < n; ++a)
                for (int q = 0; q < W; ++q) {
                    double sum = 0.0;
                    for (std::int64_t c = 0; c < kChunks; ++c) sum += chunk[(c * W + q) * n + a];
                    out[q][a] = sum;
                }
        }
        return;
    }
#pragma omp parallel for schedule(dynamic, 256) num_threads(n_threads)
    for (std::int64_t a = 0; a < n; ++a) {
        double acc[W] = {};
        for (std::int64_t e = adj->ptr[a]; e < adj->ptr[a + 1]; ++e) {
            const Adjacency::Entry& ad = adj->entries[e];
            const std::int64_t b = ad.other >= 0 ? ad.other : ~ad.other;
            if constexpr (Mode == Spread::laplacian) {
                acc[0] += v[ad.pair] * (xs[a] - xs[b]);
            } else if constexpr (Mode == Spread::opponent_squared) {
                acc[0] += v[ad.pair] * (xs[b] * xs[b]);
            } else if constexpr (Mode == Spread::scores) {
                const double wy = w[ad.pair] * y[ad.pair], wl = w[ad.pair] * (1.0 - y[ad.pair]);
                acc[0] += w[ad.pair];
                acc[1] += ad.other >= 0 ? wy : wl;
                acc[2] += ad.other >= 0 ? wl : wy;
            } else {
                acc[0] += v[ad.pair];
            }
        }
        for (int q = 0; q < W; ++q) out[q][a] = acc[q];
    }
}

}  // namespace discrank
