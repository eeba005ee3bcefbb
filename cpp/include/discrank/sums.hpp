// Sums in an order fixed by the data, never by the thread count, so that every result of the core is
// bitwise the same for any number of threads:
//  - compensated sums (Neumaier; Knuth's TwoSum in eight lanes for a block);
//  - the fixed partition of the pairs into blocks of kBlock pairs (the unit of the vectorised loss
//    code and of the partial loss sums) and kChunks chunks of whole blocks (the leaves of the per-player
//    sums' reduction tree);
//  - per-player sums over the pairs ("spread"): each chunk's sum per player, in one of two ways chosen
//    from the data alone: scatter, when the pairs outnumber kChunks x players: each chunk adds into its
//    own buffer of n per-player values (the pair arrays read sequentially, the buffers in cache); gather,
//    for sparse logs (many players, few pairs each): each player sums its own pairs from the Adjacency
//    (pairs.hpp) in pair order, chunk by chunk. The chunks' sums are then added pairwise (fold below).
//
// Parts. A PairSet may hold the chunks [leaf_lo, leaf_hi) of a larger set of pairs, cut at chunk
// boundaries (a part of a fit spread over several processes, python/discrank/dask.py). Its blocks and
// chunks are the larger set's, its loss partials are that set's blocks' partials, and its per-player sums
// are the values of the tree's nodes that cover its leaves (cover below): adding the parts' nodes
// pairwise, as fold does, gives the larger set's sums bit for bit, and adding its parts' block partials
// in order with neumaier_add gives its loss bit for bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
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

// Neumaier's compensated sum of x[0 .. len) in order (a set's loss from its blocks' losses).
inline double compensated_sum(const double* x, std::int64_t len) {
    double total = 0.0, comp = 0.0;
    for (std::int64_t t = 0; t < len; ++t) neumaier_add(total, comp, x[t]);
    return total + comp;
}

// The pairwise sum tree over the kChunks leaves (chunks): node (c, L), c a multiple of 2^L, covers the
// leaves [c, c + 2^L); its value is its left child's plus its right child's. fold: t[c - lo] holds
// leaf c's value for c in [lo, hi); on return, t[c - lo] holds the value of each node of cover(lo, hi)
// starting at c (for lo = 0, hi = kChunks: t[0] is the root, the sum of all leaves).
inline void fold(double* t, int lo, int hi) {
    for (int step = 1; step < kChunks; step *= 2)
        for (int c = 0; c + 2 * step <= kChunks; c += 2 * step)
            if (c >= lo && c + 2 * step <= hi) t[c - lo] += t[c - lo + step];
}

// The root of the tree over the leaves t[Lo, Lo + Len) (Len a power of 2): fold's t[0] for all the
// leaves, unrolled.
template <int Lo, int Len>
inline double tree_root(const double* t) {
    if constexpr (Len == 1)
        return t[Lo];
    else
        return tree_root<Lo, Len / 2>(t) + tree_root<Lo + Len / 2, Len / 2>(t);
}

// The largest nodes of the tree inside [lo, hi), left to right: (first leaf, level) each.
inline std::vector<std::pair<int, int>> cover(int lo, int hi) {
    std::vector<std::pair<int, int>> nodes;
    for (int c = lo; c < hi;) {
        int level = 0;
        while (c % (2 << level) == 0 && c + (2 << level) <= hi) ++level;
        nodes.emplace_back(c, level);
        c += 1 << level;
    }
    return nodes;
}

// Where a set of pairs sits in a larger one: it holds the larger set's pairs [first_pair, first_pair + m),
// which are its chunks [leaf_lo, leaf_hi). The whole set: total_pairs = m, first_pair = 0, leaves
// [0, kChunks).
struct Layout {
    std::int64_t total_pairs = -1;  // -1: the set is whole
    std::int64_t first_pair = 0;
    int leaf_lo = 0;
    int leaf_hi = static_cast<int>(kChunks);
};

// Borrowed arrays of m observed pairs (i[p], j[p]) of n players, with targets y and weights w; the chunks
// [leaf_lo, leaf_hi) of a set of total_pairs pairs (Layout).
struct PairSet {
    std::int64_t n = 0;
    std::int64_t m = 0;
    const std::int32_t* i = nullptr;
    const std::int32_t* j = nullptr;
    const double* y = nullptr;
    const double* w = nullptr;
    std::int64_t total_pairs = 0;
    std::int64_t block_offset = 0;  // the larger set's index of this set's first block
    int leaf_lo = 0;
    int leaf_hi = static_cast<int>(kChunks);
    std::vector<std::pair<int, int>> nodes;  // cover(leaf_lo, leaf_hi): the nodes its per-player sums give

    PairSet() = default;
    PairSet(std::int64_t n_, std::int64_t m_, const std::int32_t* i_, const std::int32_t* j_, const double* y_,
            const double* w_, const Layout& layout = Layout())
        : n(n_), m(m_), i(i_), j(j_), y(y_), w(w_), total_pairs(layout.total_pairs < 0 ? m_ : layout.total_pairs),
          leaf_lo(layout.leaf_lo), leaf_hi(layout.leaf_hi), nodes(cover(leaf_lo, leaf_hi)) {
        const std::string at = " (a part of " + std::to_string(total_pairs) + " pairs, leaves [" +
                               std::to_string(leaf_lo) + ", " + std::to_string(leaf_hi) + "))";
        if (leaf_lo < 0 || leaf_lo >= leaf_hi || leaf_hi > kChunks)
            throw std::invalid_argument("the leaves must satisfy 0 <= leaf_lo < leaf_hi <= " +
                                        std::to_string(kChunks) + at);
        block_offset = total_first_block(leaf_lo);
        const std::int64_t first = std::min(total_pairs, block_offset * kBlock);
        const std::int64_t last = std::min(total_pairs, total_first_block(leaf_hi) * kBlock);
        if (layout.first_pair != first || m != last - first)
            throw std::invalid_argument("a part holding those leaves holds the pairs [" + std::to_string(first) + ", " +
                                        std::to_string(last) + "), got " + std::to_string(m) + " pairs from " +
                                        std::to_string(layout.first_pair) + at);
    }

    std::int64_t total_blocks() const { return (total_pairs + kBlock - 1) / kBlock; }
    std::int64_t total_first_block(std::int64_t c) const { return c * total_blocks() / kChunks; }
    std::int64_t n_blocks() const { return (m + kBlock - 1) / kBlock; }
    int n_leaves() const { return leaf_hi - leaf_lo; }
    bool whole() const { return leaf_lo == 0 && leaf_hi == kChunks; }
    // Whether per-player sums take the scatter way (else gather, from an Adjacency): the larger set's choice.
    bool scatter() const { return kChunks * n <= total_pairs; }
    // The blocks [first, last) of chunk c (c in [leaf_lo, leaf_hi]), in this set's numbering.
    std::int64_t chunk_first_block(std::int64_t c) const { return total_first_block(c) - block_offset; }
    // The pairs [first, last) of chunk c, in this set's numbering.
    std::int64_t chunk_first_pair(std::int64_t c) const { return std::min(m, chunk_first_block(c) * kBlock); }
};

// The leaf of each block of a PairSet (relative to leaf_lo), for the gather way: a pair's leaf is a
// table lookup, no branch.
struct LeafOfBlock {
    std::vector<std::uint8_t> leaf;
    explicit LeafOfBlock(const PairSet& ps) : leaf(static_cast<std::size_t>(ps.n_blocks())) {
        for (int u = 0; u < ps.n_leaves(); ++u)
            for (std::int64_t blk = ps.chunk_first_block(ps.leaf_lo + u); blk < ps.chunk_first_block(ps.leaf_lo + u + 1);
                 ++blk)
                leaf[static_cast<std::size_t>(blk)] = static_cast<std::uint8_t>(u);
    }
    const std::uint8_t* table() const { return leaf.data(); }
    static std::uint32_t block_of(std::int32_t pair) { return static_cast<std::uint32_t>(pair) / kBlock; }
};

// The nodes of cover(leaf_lo, leaf_hi) from the leaves' values t (t[c - leaf_lo]: leaf c, folded in
// place): put(r, value) for the node of rank r (for a whole set one node, the root).
template <class Put>
inline void put_nodes(const PairSet& ps, double* t, Put put) {
    if (ps.whole()) return put(0, tree_root<0, kChunks>(t));
    fold(t, ps.leaf_lo, ps.leaf_hi);
    for (std::size_t r = 0; r < ps.nodes.size(); ++r) put(static_cast<int>(r), t[ps.nodes[r].first - ps.leaf_lo]);
}

// For e in [0, len): the leaves' values leaves[u * stride + e] (u = c - leaf_lo) folded, and each node of
// cover(leaf_lo, leaf_hi) written to out(r, e) (r: the node's rank). Inside a parallel region.
template <class Out>
void fold_leaves(const PairSet& ps, const double* leaves, std::int64_t stride, std::int64_t len, Out out) {
    const int n_leaves = ps.n_leaves();
#pragma omp for schedule(static)
    for (std::int64_t e = 0; e < len; ++e) {
        double t[kChunks];
        for (int u = 0; u < n_leaves; ++u) t[u] = leaves[u * stride + e];
        put_nodes(ps, t, [&](int r, double x) { out(r, e, x); });
    }
}

// What spread() sums per player a over a's pairs p, b being the other player of p.
enum class Spread {
    sum,               // v_p
    laplacian,         // v_p (x_a - x_b)
    opponent_squared,  // v_p x_b^2
    scores,            // three sums: w_p; w_p times a's score (y_p when first, 1 - y_p when second); w_p
                       // times b's score
};

// Per-player sums over the pairs into out[0 .. W) (W = 3 for Spread::scores, else 1), in an order fixed
// by the data: each chunk's sums (in its own buffer: scatter, adj null; or each player's pairs of the
// chunk in pair order: gather, from adj), folded pairwise. out[q] holds the nodes of cover(leaf_lo,
// leaf_hi), n values each (one node, the sum itself, for a whole set). chunk: scratch, resized here.
template <Spread Mode>
void spread(const PairSet& ps, const Adjacency* adj, std::vector<double>& chunk, const double* v, const double* xs,
            double* const* out, int n_threads) {
    constexpr int W = Mode == Spread::scores ? 3 : 1;
    const std::int64_t n = ps.n;
    const int lo = ps.leaf_lo, n_leaves = ps.n_leaves();
    const std::int32_t* i = ps.i;
    const std::int32_t* j = ps.j;
    const double* y = ps.y;
    const double* w = ps.w;
    if (!adj) {
        chunk.resize(static_cast<std::size_t>(W * n_leaves * n));
#pragma omp parallel num_threads(n_threads)
        {
#pragma omp for schedule(dynamic, 1)
            for (int u = 0; u < n_leaves; ++u) {
                double* buf = chunk.data() + u * W * n;  // W rows of n
                std::fill(buf, buf + W * n, 0.0);
                const std::int64_t hi = ps.chunk_first_pair(lo + u + 1);
                for (std::int64_t p = ps.chunk_first_pair(lo + u); p < hi; ++p) {
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
            // element e = q n + a of the W rows: leaf u's value at chunk[u W n + e]
            fold_leaves(ps, chunk.data(), W * n, W * n,
                        [&](int r, std::int64_t e, double x) { out[e / n][r * n + e % n] = x; });
        }
        return;
    }
    const LeafOfBlock leaves(ps);
    const std::uint8_t* leaf_of = leaves.table();
#pragma omp parallel for schedule(dynamic, 256) num_threads(n_threads)
    for (std::int64_t a = 0; a < n; ++a) {
        double t[W][kChunks];  // the leaves' sums: the leaves the player has no pair in stay 0
        for (int q = 0; q < W; ++q) std::fill(t[q], t[q] + kChunks, 0.0);
        for (std::int64_t e = adj->ptr[a]; e < adj->ptr[a + 1]; ++e) {
            const Adjacency::Entry& ad = adj->entries[e];
            const int u = leaf_of[LeafOfBlock::block_of(ad.pair)];
            const std::int64_t b = ad.other >= 0 ? ad.other : ~ad.other;
            if constexpr (Mode == Spread::laplacian) {
                t[0][u] += v[ad.pair] * (xs[a] - xs[b]);
            } else if constexpr (Mode == Spread::opponent_squared) {
                t[0][u] += v[ad.pair] * (xs[b] * xs[b]);
            } else if constexpr (Mode == Spread::scores) {
                const double wy = w[ad.pair] * y[ad.pair], wl = w[ad.pair] * (1.0 - y[ad.pair]);
                t[0][u] += w[ad.pair];
                t[1][u] += ad.other >= 0 ? wy : wl;
                t[2][u] += ad.other >= 0 ? wl : wy;
            } else {
                t[0][u] += v[ad.pair];
            }
        }
        for (int q = 0; q < W; ++q) put_nodes(ps, t[q], [&](int r, double x) { out[q][r * n + a] = x; });
    }
}

}  // namespace discrank
