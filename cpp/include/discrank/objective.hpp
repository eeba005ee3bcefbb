// The one objective every model of discrank minimises, over the observed pairs only.
//
// For observed pairs p = (i_p, j_p), i_p != j_p, each stored once, with target y_p = P(i_p beats j_p),
// weight w_p and an optional fixed offset o_p, the score is
//     A_p = o_p + (s_i - s_j) + sum_l (U_il V_jl - V_il U_jl)
// (the Elo term of Eq. (1) and the disc components of Eq. (4)), and the objective is
//     f = sum_p w_p L(y_p, A_p).
// Missing pairs do not enter the sum (the paper's "Missing Entries" paragraph).
//
// Work per pair: the scores of a block of pairs are gathered into a small buffer, the loss, its
// derivative and (optionally) its curvature are computed over the block by branch-free, vectorised code
// (fastmath.hpp), and the derivative is spread onto the two players' gradients.
//
// Two ways to spread it, chosen from the data alone (never from the thread count):
//  - scatter, when the pairs outnumber kChunks x players: the pairs are cut into kChunks fixed chunks,
//    each adds into its own gradient buffer, and the buffers are summed in chunk order. Reads only the
//    pair arrays, sequentially; the gradient buffers (kChunks x n x (2k+1) doubles) stay in cache.
//  - gather, for sparse logs (many players, few pairs each): the derivatives are stored per pair and
//    each player sums its own pairs from an adjacency list built once (16 bytes per pair).
//
// Order: any order of the pairs gives the objective (to rounding). The first player's terms are
// summed in registers over each run of pairs with the same first player, so runs should be long
// (pairs sorted by i); the second player's rows are read and updated at random, so they should stay
// in cache: the disc fits pass the pairs in tile order (graph.hpp, tile_pairs), by the second player's
// tile of 2 048 players and then by (i, j).
//
// Determinism: the loss is summed with compensation in fixed blocks of pairs and the blocks in order;
// the gradient sums run in an order fixed by the data. The result is therefore bitwise the same for
// any number of threads, not only for the same one.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <Eigen/Core>

#include "discrank/checks.hpp"
#include "discrank/fastmath.hpp"
#include "discrank/losses.hpp"
#include "discrank/threads.hpp"

namespace discrank {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstFactor = Eigen::Map<const RowMatrix>;
using Factor = Eigen::Map<RowMatrix>;

// Vectorised code paths: on x86-64 Linux with GCC, the block kernels are compiled twice, for x86-64-v3
// (AVX2) and for the baseline, and the loader picks one for the CPU at run time.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define DISCRANK_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define DISCRANK_CLONES
#endif

inline void neumaier_add(double& sum, double& comp, double x) {
    const double t = sum + x;
    comp += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
}

// Loss, derivative and curvature of a block of pairs: a[t] is the score of pair t. Writes
// val[t] = w L, res[t] = w dL/dA and curv[t] = w d2L/dA2 (the Gauss-Newton curvature for
// sigmoid_squared). For squared_logit, y holds the targets' logits. Branch-free and on non-aliasing
// arrays: vectorised.
DISCRANK_CLONES
inline void loss_block(Loss loss, std::int64_t len, const double* __restrict y, const double* __restrict w,
                       const double* __restrict a, double* __restrict val, double* __restrict res,
                       double* __restrict curv) {
    switch (loss) {
        case Loss::bce:
            // y softplus(-a) + (1 - y) softplus(a) with one exp and one log1p of -|a|: no cancellation
            // for y in {0, 1} and |a| up to 1e4 and beyond, nothing overflows.
            for (std::int64_t t = 0; t < len; ++t) {
                const double at = a[t];
                const double e = fastmath::exp_nonpos(-std::fabs(at));
                // one division for 1 / (1 + e) and log1p's e / (2 + e)
                const double q = 1.0 / ((1.0 + e) * (2.0 + e));
                const double inv = (2.0 + e) * q;
                const double l1p = fastmath::log1p_ratio(e * ((1.0 + e) * q));
                const bool pos = at >= 0.0;
                const double sig = (pos ? 1.0 : e) * inv;
                const double lin = pos ? (1.0 - y[t]) * at : -y[t] * at;
                val[t] = w[t] * (lin + l1p);
                res[t] = w[t] * (sig - y[t]);
                curv[t] = w[t] * (e * inv * inv);
            }
            break;
        case Loss::squared_logit:
            for (std::int64_t t = 0; t < len; ++t) {
                const double r = y[t] - a[t];
                val[t] = w[t] * (r * r);
                res[t] = w[t] * (-2.0 * r);
                curv[t] = 2.0 * w[t];
            }
            break;
        case Loss::probability:
            for (std::int64_t t = 0; t < len; ++t) {
                const double r = y[t] - 0.5 - a[t];
                val[t] = w[t] * (0.5 * r * r);
                res[t] = w[t] * (-r);
                curv[t] = w[t];
            }
            break;
        case Loss::sigmoid_squared:
            for (std::int64_t t = 0; t < len; ++t) {
                const double at = a[t];
                const double e = fastmath::exp_nonpos(-std::fabs(at));
                const double inv = 1.0 / (1.0 + e);
                const double sig = (at >= 0.0 ? 1.0 : e) * inv;
                const double slope = e * inv * inv;  // sigmoid'(a), exact in both tails
                const double r = y[t] - sig;
                val[t] = w[t] * (0.5 * r * r);
                res[t] = w[t] * (-r * slope);
                curv[t] = w[t] * (slope * slope);
            }
            break;
    }
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

// A row of K factors (one player's u or v) held in registers: a plain array, or for K = 2 a two-lane
// vector of GCC and Clang, loaded, scaled and added by whole-vector (SSE2) instructions (measured a
// few per cent faster than the array for k = 2). Rows are moved by memcpy (no alignment or aliasing
// assumption). Lane by lane, the arithmetic is the scalar one.
template <int K>
struct Row {
    double v[K];
    Row& operator+=(const Row& o) {
        for (int l = 0; l < K; ++l) v[l] += o.v[l];
        return *this;
    }
    Row& operator-=(const Row& o) {
        for (int l = 0; l < K; ++l) v[l] -= o.v[l];
        return *this;
    }
    friend Row operator+(const Row& a, const Row& b) {
        Row out;
        for (int l = 0; l < K; ++l) out.v[l] = a.v[l] + b.v[l];
        return out;
    }
    friend Row operator*(double r, const Row& a) {
        Row out;
        for (int l = 0; l < K; ++l) out.v[l] = r * a.v[l];
        return out;
    }
    friend Row operator-(const Row& a, const Row& b) {
        Row out;
        for (int l = 0; l < K; ++l) out.v[l] = a.v[l] - b.v[l];
        return out;
    }
    friend Row operator*(const Row& a, const Row& b) {
        Row out;
        for (int l = 0; l < K; ++l) out.v[l] = a.v[l] * b.v[l];
        return out;
    }
};

template <int K>
struct Lanes {
    using type = Row<K>;
    static type zero() { return type{}; }
    static double sum(const type& a) {
        double s = a.v[0];
        for (int l = 1; l < K; ++l) s += a.v[l];
        return s;
    }
};
template <>
struct Lanes<1> {
    using type = double;
    static type zero() { return 0.0; }
    static double sum(double a) { return a; }
};
#if defined(__GNUC__)
template <>
struct Lanes<2> {
    typedef double type __attribute__((vector_size(16)));
    static type zero() { return type{}; }
    static double sum(const type& a) { return a[0] + a[1]; }
};
#endif

template <int K>
inline typename Lanes<K>::type load_row(const double* p) {
    typename Lanes<K>::type r;
    std::memcpy(&r, p, sizeof r);
    return r;
}

template <int K>
inline void store_row(double* p, const typename Lanes<K>::type& r) {
    std::memcpy(p, &r, sizeof r);
}

// The model's parameters: s (n) and/or row-major U, V (n x k); any may be null / k = 0.
struct Params {
    const double* offset = nullptr;
    const double* U = nullptr;
    const double* V = nullptr;
    int k = 0;
    const double* s = nullptr;
};

// Gradient outputs (null: not wanted), written, not accumulated.
struct Grads {
    double* U = nullptr;
    double* V = nullptr;
    double* s = nullptr;
    bool any() const { return U || V || s; }
};

class PairObjective {
  public:
    static constexpr std::int64_t kBlock = 2048;  // pairs per vectorised block and partial loss sum
    static constexpr std::int64_t kChunks = 16;   // fixed pieces of the pairs in the scatter strategy
    enum class Strategy : int { automatic = 0, scatter = 1, gather = 2 };

    // The arrays are borrowed, not copied: the caller keeps them alive and unchanged.
    PairObjective(std::int64_t n_players, const std::int32_t* i, const std::int32_t* j, const double* y,
                  const double* w, std::int64_t n_pairs, Strategy strategy = Strategy::automatic)
        : n_(n_players), m_(n_pairs), i_(i), j_(j), y_(y), w_(w) {
        if (n_players < 1) throw std::invalid_argument("n_players must be >= 1, got " + std::to_string(n_players));
        if (n_pairs > INT32_MAX) throw std::invalid_argument("at most 2^31 - 1 pairs are supported");
        // The checks at the speed of a pass; the first bad pair is then named.
        const std::int64_t p = first_bad_pair(n_, m_, i_, j_, true);
        if (p < m_) {
            const std::int64_t a = i_[p], b = j_[p];
            if (a == b && a >= 0 && a < n_)
                throw std::invalid_argument("pair " + std::to_string(p) + " is player " + std::to_string(a) +
                                            " against themself");
            throw std::invalid_argument("pair " + std::to_string(p) + " has player index (" + std::to_string(a) +
                                        ", " + std::to_string(b) + ") outside [0, " + std::to_string(n_) + ")");
        }
        scatter_ = strategy == Strategy::scatter || (strategy == Strategy::automatic && kChunks * n_ <= m_);
        n_blocks_ = (m_ + kBlock - 1) / kBlock;
        partial_.resize(n_blocks_);
        if (scatter_) return;
        // Adjacency (CSR) over both endpoints, by counting sort: O(m), pairs in increasing order.
        ptr_.assign(n_ + 1, 0);
        for (std::int64_t p = 0; p < m_; ++p) {
            ++ptr_[i_[p] + 1];
            ++ptr_[j_[p] + 1];
        }
        for (std::int64_t a = 0; a < n_; ++a) ptr_[a + 1] += ptr_[a];
        adj_.resize(2 * m_);
        std::vector<std::int64_t> fill(ptr_.begin(), ptr_.end() - 1);
        for (std::int64_t p = 0; p < m_; ++p) {
            const std::int32_t a = i_[p], b = j_[p];
            adj_[fill[a]++] = {static_cast<std::int32_t>(p), b};   // a is the first player: sign +1
            adj_[fill[b]++] = {static_cast<std::int32_t>(p), ~a};  // b is the second player: sign -1
        }
        residual_.resize(m_);
    }

    std::int64_t n_players() const { return n_; }
    std::int64_t n_pairs() const { return m_; }
    bool scatter() const { return scatter_; }

    // Objective value; gradients into the non-null outputs of g; per-pair curvature w_p L''(A_p) into
    // curv (length m) when it is not null.
    double evaluate(Loss loss, const Params& x, const Grads& g, double* curv, int n_threads) {
        std::lock_guard<std::mutex> guard(mutex_);  // the scratch buffers are per object
        const int nt = resolve_threads(n_threads);
        const double* target = y_;
        if (loss == Loss::squared_logit) {
            if (logit_.empty()) {
                logit_.resize(m_);
                for (std::int64_t p = 0; p < m_; ++p) logit_[p] = std::log(y_[p]) - std::log1p(-y_[p]);
            }
            target = logit_.data();
        }
        const int k = x.k;
        const std::int64_t width = (g.s ? 1 : 0) + (g.U ? k : 0) + (g.V ? k : 0);
        const bool grad = g.any();
        if (scatter_ && grad) chunk_.resize(static_cast<std::size_t>(kChunks * n_ * width));
        const std::int64_t n_units = scatter_ ? kChunks : n_blocks_;
#pragma omp parallel num_threads(nt)
        {
            std::vector<double> scratch(4 * kBlock);
            double* a = scratch.data();
            double* val = a + kBlock;
            double* res = val + kBlock;
            double* cscr = res + kBlock;
#pragma omp for schedule(dynamic, 1)
            for (std::int64_t unit = 0; unit < n_units; ++unit) {
                // scatter: a chunk of blocks with its own gradient buffer; gather: one block.
                const std::int64_t b0 = scatter_ ? unit * n_blocks_ / kChunks : unit;
                const std::int64_t b1 = scatter_ ? (unit + 1) * n_blocks_ / kChunks : unit + 1;
                double* buf = scatter_ && grad ? chunk_.data() + unit * n_ * width : nullptr;
                if (buf) std::fill(buf, buf + n_ * width, 0.0);
                for (std::int64_t blk = b0; blk < b1; ++blk) {
                    const std::int64_t lo = blk * kBlock, len = std::min(m_, lo + kBlock) - lo;
                    gather_scores(x, lo, len, a);
                    loss_block(loss, len, target + lo, w_ + lo, a, val, res, curv ? curv + lo : cscr);
                    partial_[blk] = block_sum(val, len);
                    if (!grad) continue;
                    if (buf)
                        scatter_block(x, g, lo, len, res, buf);
                    else
                        std::copy(res, res + len, residual_.data() + lo);
                }
            }
            if (grad) {
                if (scatter_)
                    reduce_chunks(g, k, width);
                else
                    gather_gradients(x, g);
            }
        }
        double total = 0.0, comp = 0.0;
        for (std::int64_t blk = 0; blk < n_blocks_; ++blk) neumaier_add(total, comp, partial_[blk]);
        return total + comp;
    }

    // Product of the Hessian of an s-only (Elo) objective with x: out_a = sum over a's pairs of
    // curv_p (x_a - x_b), the weighted graph Laplacian, for the curvature from evaluate().
    void hessp_s(const double* curv, const double* xs, double* out, int n_threads) {
        double* outs[1] = {out};
        spread<kLaplacian>(curv, xs, outs, n_threads);
    }

    // out_a = sum over a's pairs of v_p (the diagonal of the Laplacian when v is the curvature).
    void player_sums(const double* v, double* out, int n_threads) {
        double* outs[1] = {out};
        spread<kSum>(v, nullptr, outs, n_threads);
    }

    // One pass over the pairs, three sums per player a: total_a = sum of w_p over a's pairs; scored_a =
    // sum of w_p times a's score (y_p when a is the first player, 1 - y_p when second); conceded_a =
    // the same with the opponent's score. With w > 0, a player ever scored iff scored_a > 0 (a sum of
    // non-negative terms), ever conceded iff conceded_a > 0; and the gradient of the bce Elo objective
    // at s = 0 is total_a / 2 - scored_a. Summed in a fixed order: the same for any thread count.
    void score_sums(double* total, double* scored, double* conceded, int n_threads) {
        double* outs[3] = {total, scored, conceded};
        spread<kScores>(nullptr, nullptr, outs, n_threads);
    }

    // out_a = sum over a's pairs of v_p c_b^2, b the other player (a factor's curvature scale).
    void opponent_sums(const double* v, const double* c, double* out, int n_threads) {
        double* outs[1] = {out};
        spread<kOpponentSquared>(v, c, outs, n_threads);
    }

    // The measured limit of a pass: the same reads of the pair arrays (i, j, y, w) and the same loss
    // code (exp and log count) as evaluate(), with the score computed from i and j instead of gathered
    // from the parameters and no gradient spread. Returns a checksum.
    double stream_limit(Loss loss, int n_threads) {
        std::lock_guard<std::mutex> guard(mutex_);
        const int nt = resolve_threads(n_threads);
        double total = 0.0;
#pragma omp parallel num_threads(nt) reduction(+ : total)
        {
            std::vector<double> scratch(4 * kBlock);
            double* a = scratch.data();
            double* val = a + kBlock;
            double* res = val + kBlock;
            double* cscr = res + kBlock;
#pragma omp for schedule(static)
            for (std::int64_t blk = 0; blk < n_blocks_; ++blk) {
                const std::int64_t lo = blk * kBlock, len = std::min(m_, lo + kBlock) - lo;
                for (std::int64_t t = 0; t < len; ++t) a[t] = 1e-4 * static_cast<double>(i_[lo + t] - j_[lo + t]);
                loss_block(loss, len, y_ + lo, w_ + lo, a, val, res, cscr);
                double r = 0.0;
                for (std::int64_t t = 0; t < len; ++t) r += res[t];
                total += block_sum(val, len) + r;
            }
        }
        return total;
    }

    // Scores A for arbitrary (a, b) index pairs (bounds checked by the caller).
    static void scores(std::int64_t n_players, std::int64_t n_out, const std::int32_t* a_idx,
                       const std::int32_t* b_idx, const double* U, const double* V, int k, const double* s,
                       double* out, int n_threads) {
        const int nt = resolve_threads(n_threads);
        const ConstFactor Um(U, k ? n_players : 0, k), Vm(V, k ? n_players : 0, k);
#pragma omp parallel for schedule(static) num_threads(nt)
        for (std::int64_t q = 0; q < n_out; ++q) {
            const std::int64_t a = a_idx[q], b = b_idx[q];
            double score = s ? s[a] - s[b] : 0.0;
            if (k) score += Um.row(a).dot(Vm.row(b)) - Vm.row(a).dot(Um.row(b));
            out[q] = score;
        }
    }

  private:
    struct Adj {
        std::int32_t pair;
        std::int32_t other;  // the other player, bitwise-negated when this player is the pair's second
    };

    static constexpr int kSum = 0, kLaplacian = 1, kOpponentSquared = 2, kScores = 3;

    // Per-player sums over the pairs into out[0 .. W) (W = 3 for kScores: total, scored, conceded;
    // 1 otherwise), in an order fixed by the data: 16 chunk buffers, then their sum in chunk order
    // (scatter), or each player's pairs in pair order (gather).
    template <int Mode>
    void spread(const double* v, const double* xs, double* const* out, int n_threads) {
        constexpr int W = Mode == kScores ? 3 : 1;
        std::lock_guard<std::mutex> guard(mutex_);
        const int nt = resolve_threads(n_threads);
        if (scatter_) {
            chunk_.resize(static_cast<std::size_t>(W * kChunks * n_));
#pragma omp parallel num_threads(nt)
            {
#pragma omp for schedule(dynamic, 1)
                for (std::int64_t c = 0; c < kChunks; ++c) {
                    double* buf = chunk_.data() + c * W * n_;  // W rows of n
                    std::fill(buf, buf + W * n_, 0.0);
                    const std::int64_t lo = std::min(m_, c * n_blocks_ / kChunks * kBlock);
                    const std::int64_t hi = std::min(m_, (c + 1) * n_blocks_ / kChunks * kBlock);
                    for (std::int64_t p = lo; p < hi; ++p) {
                        const std::int32_t a = i_[p], b = j_[p];
                        if constexpr (Mode == kLaplacian) {
                            const double d = v[p] * (xs[a] - xs[b]);
                            buf[a] += d;
                            buf[b] -= d;
                        } else if constexpr (Mode == kOpponentSquared) {
                            buf[a] += v[p] * (xs[b] * xs[b]);
                            buf[b] += v[p] * (xs[a] * xs[a]);
                        } else if constexpr (Mode == kScores) {
                            const double wy = w_[p] * y_[p], wl = w_[p] * (1.0 - y_[p]);
                            buf[a] += w_[p];
                            buf[b] += w_[p];
                            buf[n_ + a] += wy;
                            buf[2 * n_ + b] += wy;
                            buf[n_ + b] += wl;
                            buf[2 * n_ + a] += wl;
                        } else {
                            buf[a] += v[p];
                            buf[b] += v[p];
                        }
                    }
                }
#pragma omp for schedule(static)
                for (std::int64_t a = 0; a < n_; ++a)
                    for (int q = 0; q < W; ++q) {
                        double sum = 0.0;
                        for (std::int64_t c = 0; c < kChunks; ++c) sum += chunk_[(c * W + q) * n_ + a];
                        out[q][a] = sum;
                    }
            }
            return;
        }
#pragma omp parallel for schedule(dynamic, 256) num_threads(nt)
        for (std::int64_t a = 0; a < n_; ++a) {
            double acc[W] = {};
            for (std::int64_t e = ptr_[a]; e < ptr_[a + 1]; ++e) {
                const Adj& ad = adj_[e];
                const std::int64_t b = ad.other >= 0 ? ad.other : ~ad.other;
                if constexpr (Mode == kLaplacian) {
                    acc[0] += v[ad.pair] * (xs[a] - xs[b]);
                } else if constexpr (Mode == kOpponentSquared) {
                    acc[0] += v[ad.pair] * (xs[b] * xs[b]);
                } else if constexpr (Mode == kScores) {
                    const double wy = w_[ad.pair] * y_[ad.pair], wl = w_[ad.pair] * (1.0 - y_[ad.pair]);
                    acc[0] += w_[ad.pair];
                    acc[1] += ad.other >= 0 ? wy : wl;
                    acc[2] += ad.other >= 0 ? wl : wy;
                } else {
                    acc[0] += v[ad.pair];
                }
            }
            for (int q = 0; q < W; ++q) out[q][a] = acc[q];
        }
    }

    void gather_scores(const Params& x, std::int64_t lo, std::int64_t len, double* a) const {
        const std::int32_t* ip = i_ + lo;
        const std::int32_t* jp = j_ + lo;
        for (std::int64_t t = 0; t < len; ++t) a[t] = x.offset ? x.offset[lo + t] : 0.0;
        if (x.s)
            for (std::int64_t t = 0; t < len; ++t) a[t] += x.s[ip[t]] - x.s[jp[t]];
        switch (x.k) {
            case 0: return;
            case 1: return gather_factors<1>(x, ip, jp, len, a);
            case 2: return gather_factors<2>(x, ip, jp, len, a);
            case 3: return gather_factors<3>(x, ip, jp, len, a);
            case 4: return gather_factors<4>(x, ip, jp, len, a);
            default: break;
        }
        const int k = x.k;
        for (std::int64_t t = 0; t < len; ++t) {
            const double* Up = x.U + ip[t] * std::int64_t{k};
            const double* Vp = x.V + ip[t] * std::int64_t{k};
            const double* Uq = x.U + jp[t] * std::int64_t{k};
            const double* Vq = x.V + jp[t] * std::int64_t{k};
            double d = 0.0;
            for (int l = 0; l < k; ++l) d += Up[l] * Vq[l] - Vp[l] * Uq[l];
            a[t] += d;
        }
    }

    // a[t] += u_p . v_q - v_p . u_q for K factors per player, a row at a time.
    template <int K>
    static void gather_factors(const Params& x, const std::int32_t* __restrict ip, const std::int32_t* __restrict jp,
                               std::int64_t len, double* __restrict a) {
        const double* __restrict U = x.U;
        const double* __restrict V = x.V;
        for (std::int64_t t = 0; t < len; ++t) {
            const std::int64_t p = std::int64_t{ip[t]} * K, q = std::int64_t{jp[t]} * K;
            a[t] += Lanes<K>::sum(load_row<K>(U + p) * load_row<K>(V + q) - load_row<K>(V + p) * load_row<K>(U + q));
        }
    }

    // Buffer layout: [s (n) | U (n x k) | V (n x k)], the blocks present in g only.
    void scatter_block(const Params& x, const Grads& g, std::int64_t lo, std::int64_t len, const double* res,
                       double* buf) const {
        const int k = x.k;
        double* bs = g.s ? buf : nullptr;
        double* bU = g.U ? buf + (g.s ? n_ : 0) : nullptr;
        double* bV = g.V ? buf + (g.s ? n_ : 0) + (g.U ? n_ * k : 0) : nullptr;
        const std::int32_t* ip = i_ + lo;
        const std::int32_t* jp = j_ + lo;
        // The pairs come in runs of one first player (PairwiseData sorts them by (i, j); the disc fits'
        // tile order by (tile of j, i, j)), so the first player's terms are summed over each run in
        // registers: adding them one by one into memory would chain every addition through a store and
        // a reload of the same address.
        if (bs) {
            std::int32_t cur = ip[0];
            double acc = 0.0;
            for (std::int64_t t = 0; t < len; ++t) {
                if (ip[t] != cur) {
                    bs[cur] += acc;
                    cur = ip[t];
                    acc = 0.0;
                }
                acc += res[t];
            }
            bs[cur] += acc;
            for (std::int64_t t = 0; t < len; ++t) bs[jp[t]] -= res[t];
        }
        if (!k || !(bU || bV)) return;
        // dA/dU_a = V_b, dA/dV_a = -U_b for the first player a; the opposite for the second b.
        if (k >= 1 && k <= 4) {
            if (bU && bV) return scatter_factors_k<true, true>(k, x, lo, len, res, bU, bV);
            if (bU) return scatter_factors_k<true, false>(k, x, lo, len, res, bU, bV);
            return scatter_factors_k<false, true>(k, x, lo, len, res, bU, bV);
        }
        for (std::int64_t t = 0; t < len; ++t) {
            const std::int64_t p = ip[t] * std::int64_t{k}, q = jp[t] * std::int64_t{k};
            const double r = res[t];
            for (int l = 0; l < k; ++l) {
                if (bU) {
                    bU[p + l] += r * x.V[q + l];
                    bU[q + l] -= r * x.V[p + l];
                }
                if (bV) {
                    bV[p + l] -= r * x.U[q + l];
                    bV[q + l] += r * x.U[p + l];
                }
            }
        }
    }

    // The factor gradients for a fixed number of components K: the first player's terms summed over
    // its run of pairs in registers, the second player's added in place.
    template <bool GU, bool GV>
    void scatter_factors_k(int k, const Params& x, std::int64_t lo, std::int64_t len, const double* res, double* bU,
                           double* bV) const {
        switch (k) {
            case 1: return scatter_factors<1, GU, GV>(x, lo, len, res, bU, bV);
            case 2: return scatter_factors<2, GU, GV>(x, lo, len, res, bU, bV);
            case 3: return scatter_factors<3, GU, GV>(x, lo, len, res, bU, bV);
            default: return scatter_factors<4, GU, GV>(x, lo, len, res, bU, bV);
        }
    }

    template <int K, bool GU, bool GV>
    void scatter_factors(const Params& x, std::int64_t lo, std::int64_t len, const double* __restrict res,
                         double* __restrict bU, double* __restrict bV) const {
        using R = typename Lanes<K>::type;
        const std::int32_t* __restrict ip = i_ + lo;
        const std::int32_t* __restrict jp = j_ + lo;
        const double* __restrict U = x.U;  // the gradient buffers are never the parameters
        const double* __restrict V = x.V;
        std::int64_t cur = ip[0];
        R Up = load_row<K>(U + cur * K), Vp = load_row<K>(V + cur * K);
        R accU = Lanes<K>::zero(), accV = accU;
        auto flush = [&]() {
            if (GU) store_row<K>(bU + cur * K, load_row<K>(bU + cur * K) + accU);
            if (GV) store_row<K>(bV + cur * K, load_row<K>(bV + cur * K) + accV);
        };
        for (std::int64_t t = 0; t < len; ++t) {
            if (ip[t] != cur) {
                flush();
                accU = accV = Lanes<K>::zero();
                cur = ip[t];
                Up = load_row<K>(U + cur * K);
                Vp = load_row<K>(V + cur * K);
            }
            const std::int64_t q = std::int64_t{jp[t]} * K;
            const double r = res[t];
            if (GU) {
                accU += r * load_row<K>(V + q);
                store_row<K>(bU + q, load_row<K>(bU + q) - r * Vp);
            }
            if (GV) {
                accV -= r * load_row<K>(U + q);
                store_row<K>(bV + q, load_row<K>(bV + q) + r * Up);
            }
        }
        flush();
    }

    // Inside a parallel region: the gradient as the chunk buffers' sum, in chunk order.
    void reduce_chunks(const Grads& g, int k, std::int64_t width) {
        const std::int64_t len = n_ * width, stride = n_ * width;
        const double* base = chunk_.data();
        const std::int64_t off_U = g.s ? n_ : 0, off_V = off_U + (g.U ? n_ * k : 0);
#pragma omp for schedule(static)
        for (std::int64_t e = 0; e < len; ++e) {
            double sum = 0.0;
            for (std::int64_t c = 0; c < kChunks; ++c) sum += base[c * stride + e];
            if (g.s && e < n_)
                g.s[e] = sum;
            else if (g.U && e >= off_U && e < off_U + n_ * k)
                g.U[e - off_U] = sum;
            else
                g.V[e - off_V] = sum;
        }
    }

    // Inside a parallel region: each player's gradient from its own pairs, in pair order.
    void gather_gradients(const Params& x, const Grads& g) {
        const int k = x.k;
        const double* r = residual_.data();
#pragma omp for schedule(dynamic, 256)
        for (std::int64_t a = 0; a < n_; ++a) {
            double gsa = 0.0;
            double* gUa = g.U ? g.U + a * k : nullptr;
            double* gVa = g.V ? g.V + a * k : nullptr;
            for (int l = 0; l < k; ++l) {
                if (gUa) gUa[l] = 0.0;
                if (gVa) gVa[l] = 0.0;
            }
            for (std::int64_t e = ptr_[a]; e < ptr_[a + 1]; ++e) {
                const Adj& ad = adj_[e];
                const bool first = ad.other >= 0;
                const std::int64_t b = first ? ad.other : ~ad.other;
                const double rp = first ? r[ad.pair] : -r[ad.pair];
                gsa += rp;
                // dA/dU_a = +-V_b and dA/dV_a = -+U_b, the sign being that of a's side of the pair.
                for (int l = 0; l < k; ++l) {
                    if (gUa) gUa[l] += rp * x.V[b * k + l];
                    if (gVa) gVa[l] -= rp * x.U[b * k + l];
                }
            }
            if (g.s) g.s[a] = gsa;
        }
    }

    std::int64_t n_, m_;
    const std::int32_t* i_;
    const std::int32_t* j_;
    const double* y_;
    const double* w_;
    bool scatter_ = false;
    std::int64_t n_blocks_ = 0;
    std::vector<std::int64_t> ptr_;
    std::vector<Adj> adj_;
    std::vector<double> residual_;
    std::vector<double> partial_;
    std::vector<double> chunk_;
    std::vector<double> logit_;
    std::mutex mutex_;
};

}  // namespace discrank
