// The one objective every model of discrank minimises, over the observed pairs only, and the scores
// it is made of.
//
// For observed pairs p = (i_p, j_p), i_p != j_p, each stored once, with target y_p = P(i_p beats j_p),
// weight w_p and an optional fixed offset o_p, the score is
//     A_p = o_p + (s_i - s_j) + sum_l (U_il V_jl - V_il U_jl)
// (the Elo term of Eq. (1) and the disc components of Eq. (4)), and the objective is
//     f = sum_p w_p L(y_p, A_p)
// with L one of the losses of losses.hpp. Missing pairs do not enter the sum (the paper's "Missing
// Entries" paragraph).
//
// Work per pair: the scores of a block of pairs are gathered into a small buffer (gather_scores), the
// loss, its derivative and its curvature are computed over the block by branch-free, vectorised code
// (loss_block), and the derivative is spread onto the two players' gradients, by scatter or gather
// (sums.hpp; chosen from the data alone, never from the thread count). Scatter: each chunk of pairs adds
// into its own gradient buffer (kChunks x n x (2k+1) doubles, in cache). Gather: the derivatives are
// stored per pair and each player sums its own pairs of each chunk from the Adjacency. Either way the
// chunks' sums are added pairwise (sums.hpp, fold).
//
// Order: any order of the pairs gives the objective (to rounding). The first player's terms are
// summed in registers over each run of pairs with the same first player, so runs should be long
// (pairs sorted by i); the second player's rows are read and updated at random, so they should stay
// in cache: the disc fits pass the pairs in tile order (pairs.hpp, tile_pairs), by the second player's
// tile of 2 048 players and then by (i, j).
//
// Determinism: the loss is summed with compensation in fixed blocks of pairs and the blocks in order;
// the gradient sums run in an order fixed by the data (sums.hpp). The result is therefore bitwise the
// same for any number of threads, not only for the same one. A PairObjective over a part of a larger
// set of pairs (Layout, sums.hpp) gives its blocks' loss partials (block_losses) and its nodes of the
// gradient sums' tree: a process adding its parts' results as the whole set's evaluation adds them gets
// the whole set's result bit for bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "discrank/checks.hpp"
#include "discrank/losses.hpp"
#include "discrank/pairs.hpp"
#include "discrank/rows.hpp"
#include "discrank/sums.hpp"
#include "discrank/threads.hpp"

namespace discrank {

// The model's parameters: s (n) and/or row-major U, V (n x k); any may be null (k = 0: no U, V).
struct Params {
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

// A draw model's terms of an evaluation (PairObjective::evaluate): the model, the pairs' draw shares q
// (length m, borrowed), the draw parameter eta, and the outputs of its sums over the pairs, summed as
// the loss is (compensated, per block, the blocks in order): grad = dL/deta, curv = d2L/deta2.
struct DrawTerms {
    DrawModel model = DrawModel::davidson;
    const double* q = nullptr;
    double eta = 0.0;
    double grad = 0.0;
    double curv = 0.0;
};

namespace detail {

// a[t] += u_p . v_q - v_p . u_q for K factors per player, a row at a time.
template <int K>
void gather_factors(const Params& x, const std::int32_t* __restrict ip, const std::int32_t* __restrict jp,
                    std::int64_t len, double* __restrict a) {
    const double* __restrict U = x.U;
    const double* __restrict V = x.V;
    for (std::int64_t t = 0; t < len; ++t) {
        const std::int64_t p = std::int64_t{ip[t]} * K, q = std::int64_t{jp[t]} * K;
        a[t] += Lanes<K>::sum(load_row<K>(U + p) * load_row<K>(V + q) - load_row<K>(V + p) * load_row<K>(U + q));
    }
}

}  // namespace detail

// a[t] = o_t + s_a - s_b + sum_l (U_al V_bl - V_al U_bl) for the pairs (a, b) = (ip[t], jp[t]),
// t in [0, len); offset (o_t = offset[t]) may be null (o_t = 0), and so may x.s.
inline void gather_scores(const Params& x, const std::int32_t* ip, const std::int32_t* jp, const double* offset,
                          std::int64_t len, double* a) {
    for (std::int64_t t = 0; t < len; ++t) a[t] = offset ? offset[t] : 0.0;
    if (x.s)
        for (std::int64_t t = 0; t < len; ++t) a[t] += x.s[ip[t]] - x.s[jp[t]];
    switch (x.k) {
        case 0: return;
        case 1: return detail::gather_factors<1>(x, ip, jp, len, a);
        case 2: return detail::gather_factors<2>(x, ip, jp, len, a);
        case 3: return detail::gather_factors<3>(x, ip, jp, len, a);
        case 4: return detail::gather_factors<4>(x, ip, jp, len, a);
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

// out[q] = the score A of the pair (a_idx[q], b_idx[q]), q in [0, n_out), without offset (indices in
// range: checked by the caller).
inline void scores(const Params& x, std::int64_t n_out, const std::int32_t* a_idx, const std::int32_t* b_idx,
                   double* out, int n_threads) {
    const std::int64_t n_blocks = (n_out + kBlock - 1) / kBlock;
#pragma omp parallel for schedule(static) num_threads(resolve_threads(n_threads))
    for (std::int64_t blk = 0; blk < n_blocks; ++blk) {
        const std::int64_t lo = blk * kBlock, len = std::min(n_out, lo + kBlock) - lo;
        gather_scores(x, a_idx + lo, b_idx + lo, nullptr, len, out + lo);
    }
}

class PairObjective {
  public:
    enum class Strategy : int { automatic = 0, scatter = 1, gather = 2 };

    // The arrays are borrowed, not copied: the caller keeps them alive and unchanged. strategy forces
    // the scatter or gather way (automatic: PairSet::scatter(), from the data). layout: where the pairs
    // sit in a larger set (default: they are the whole set); the per-player outputs then hold n_nodes()
    // rows of the tree's nodes, node-major.
    PairObjective(std::int64_t n_players, const std::int32_t* i, const std::int32_t* j, const double* y,
                  const double* w, std::int64_t n_pairs, Strategy strategy = Strategy::automatic,
                  const Layout& layout = Layout())
        : ps_(n_players, n_pairs, i, j, y, w, layout) {
        if (n_players < 1) throw std::invalid_argument("n_players must be >= 1, got " + std::to_string(n_players));
        if (n_pairs > INT32_MAX) throw std::invalid_argument("at most 2^31 - 1 pairs are supported");
        check_pairs(n_players, n_pairs, i, j, PairRule::distinct, "pair");
        scatter_ = strategy == Strategy::scatter || (strategy == Strategy::automatic && ps_.scatter());
        partial_.resize(ps_.n_blocks());
        if (scatter_) return;
        adj_ = Adjacency(n_players, n_pairs, i, j);
        residual_.resize(n_pairs);
    }

    std::int64_t n_players() const { return ps_.n; }
    std::int64_t n_pairs() const { return ps_.m; }
    bool scatter() const { return scatter_; }
    const PairSet& pairs() const { return ps_; }
    // The nodes of the gradient sums' tree the outputs hold (first leaf, level): one, the root, for a whole set.
    const std::vector<std::pair<int, int>>& nodes() const { return ps_.nodes; }
    std::int64_t n_nodes() const { return static_cast<std::int64_t>(ps_.nodes.size()); }
    // The last evaluation's loss per block of pairs (its value is their compensated sum in block order).
    const std::vector<double>& block_losses() const { return partial_; }

    // Objective value at the parameters x with the per-pair offset (length m; null: 0); gradients into
    // the non-null outputs of g; per-pair curvature w_p L''(A_p) into curv (length m) when it is not null.
    // With draw terms (not null), the loss is their draw model's (draw_block, the targets y being the
    // score shares), and draw->grad and draw->curv are set.
    double evaluate(Loss loss, const Params& x, const double* offset, const Grads& g, double* curv, int n_threads,
                    DrawTerms* draw = nullptr) {
        std::lock_guard<std::mutex> guard(mutex_);  // the scratch buffers are per object
        const int nt = resolve_threads(n_threads);
        const std::int64_t n = ps_.n, m = ps_.m, n_blocks = ps_.n_blocks();
        const double* target = ps_.y;
        if (loss == Loss::squared_logit) {
            if (logit_.empty()) {
                logit_.resize(m);
                for (std::int64_t p = 0; p < m; ++p) logit_[p] = std::log(ps_.y[p]) - std::log1p(-ps_.y[p]);
            }
            target = logit_.data();
        }
        const int k = x.k;
        const std::int64_t width = (g.s ? 1 : 0) + (g.U ? k : 0) + (g.V ? k : 0);
        const bool grad = g.any();
        const int n_leaves = ps_.n_leaves();
        if (scatter_ && grad) chunk_.resize(static_cast<std::size_t>(n_leaves * n * width));
        if (draw) {
            partial_e_.resize(n_blocks);
            partial_ee_.resize(n_blocks);
        }
        const std::int64_t n_units = scatter_ ? n_leaves : n_blocks;
#pragma omp parallel num_threads(nt)
        {
            std::vector<double> scratch((draw ? 6 : 4) * kBlock);
            double* a = scratch.data();
            double* val = a + kBlock;
            double* res = val + kBlock;
            double* cscr = res + kBlock;
            double* de = draw ? cscr + kBlock : nullptr;
            double* dee = draw ? de + kBlock : nullptr;
#pragma omp for schedule(dynamic, 1)
            for (std::int64_t unit = 0; unit < n_units; ++unit) {
                // scatter: a chunk of blocks with its own gradient buffer; gather: one block.
                const std::int64_t b0 = scatter_ ? ps_.chunk_first_block(ps_.leaf_lo + unit) : unit;
                const std::int64_t b1 = scatter_ ? ps_.chunk_first_block(ps_.leaf_lo + unit + 1) : unit + 1;
                double* buf = scatter_ && grad ? chunk_.data() + unit * n * width : nullptr;
                if (buf) std::fill(buf, buf + n * width, 0.0);
                for (std::int64_t blk = b0; blk < b1; ++blk) {
                    const std::int64_t lo = blk * kBlock, len = std::min(m, lo + kBlock) - lo;
                    gather_scores(x, ps_.i + lo, ps_.j + lo, offset ? offset + lo : nullptr, len, a);
                    if (draw) {
                        draw_block(draw->model, len, ps_.y + lo, draw->q + lo, ps_.w + lo, a, draw->eta, nullptr, val, res,
                                   curv ? curv + lo : cscr, de, dee, nullptr);
                        partial_e_[blk] = block_sum(de, len);
                        partial_ee_[blk] = block_sum(dee, len);
                    } else {
                        loss_block(loss, len, target + lo, ps_.w + lo, a, val, res, curv ? curv + lo : cscr);
                    }
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
        if (draw && draw->model == DrawModel::rao_kupper && !(draw->eta > 0.0)) {
            // outside the model: +inf (the compensated sums of infinite terms would be NaN)
            draw->grad = draw->curv = HUGE_VAL;
            return HUGE_VAL;
        }
        if (draw) {
            draw->grad = compensated_sum(partial_e_.data(), n_blocks);
            draw->curv = compensated_sum(partial_ee_.data(), n_blocks);
        }
        return compensated_sum(partial_.data(), n_blocks);
    }

    // Product of the Hessian of an s-only (Elo) objective with x: out_a = sum over a's pairs of
    // curv_p (x_a - x_b), the weighted graph Laplacian, for the curvature from evaluate().
    void hessp_s(const double* curv, const double* xs, double* out, int n_threads) {
        double* outs[1] = {out};
        spread<Spread::laplacian>(curv, xs, outs, n_threads);
    }

    // out_a = sum over a's pairs of v_p (the diagonal of the Laplacian when v is the curvature).
    void player_sums(const double* v, double* out, int n_threads) {
        double* outs[1] = {out};
        spread<Spread::sum>(v, nullptr, outs, n_threads);
    }

    // One pass over the pairs, three sums per player a: total_a = sum of w_p over a's pairs; scored_a =
    // sum of w_p times a's score (y_p when a is the first player, 1 - y_p when second); conceded_a =
    // the same with the opponent's score. With w > 0, a player ever scored iff scored_a > 0 (a sum of
    // non-negative terms), ever conceded iff conceded_a > 0; and the gradient of the bce Elo objective
    // at s = 0 is total_a / 2 - scored_a. Summed in a fixed order: the same for any thread count.
    void score_sums(double* total, double* scored, double* conceded, int n_threads) {
        double* outs[3] = {total, scored, conceded};
        spread<Spread::scores>(nullptr, nullptr, outs, n_threads);
    }

    // out_a = sum over a's pairs of v_p c_b^2, b the other player (a factor's curvature scale).
    void opponent_sums(const double* v, const double* c, double* out, int n_threads) {
        double* outs[1] = {out};
        spread<Spread::opponent_squared>(v, c, outs, n_threads);
    }

  private:
    template <Spread Mode>
    void spread(const double* v, const double* xs, double* const* out, int n_threads) {
        std::lock_guard<std::mutex> guard(mutex_);  // chunk_ is per object
        discrank::spread<Mode>(ps_, scatter_ ? nullptr : &adj_, chunk_, v, xs, out, resolve_threads(n_threads));
    }

    // Buffer layout: [s (n) | U (n x k) | V (n x k)], the blocks present in g only.
    void scatter_block(const Params& x, const Grads& g, std::int64_t lo, std::int64_t len, const double* res,
                       double* buf) const {
        const int k = x.k;
        const std::int64_t n = ps_.n;
        double* bs = g.s ? buf : nullptr;
        double* bU = g.U ? buf + (g.s ? n : 0) : nullptr;
        double* bV = g.V ? buf + (g.s ? n : 0) + (g.U ? n * k : 0) : nullptr;
        const std::int32_t* ip = ps_.i + lo;
        const std::int32_t* jp = ps_.j + lo;
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
        const std::int32_t* __restrict ip = ps_.i + lo;
        const std::int32_t* __restrict jp = ps_.j + lo;
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

    // Inside a parallel region: the gradient as the chunk buffers folded (each node r of the tree into
    // row r of the outputs).
    void reduce_chunks(const Grads& g, int k, std::int64_t width) {
        const std::int64_t n = ps_.n, nk = n * k;
        const std::int64_t off_U = g.s ? n : 0, off_V = off_U + (g.U ? nk : 0);
        fold_leaves(ps_, chunk_.data(), n * width, n * width, [&](int r, std::int64_t e, double sum) {
            if (g.s && e < n)
                g.s[r * n + e] = sum;
            else if (g.U && e >= off_U && e < off_U + nk)
                g.U[r * nk + e - off_U] = sum;
            else
                g.V[r * nk + e - off_V] = sum;
        });
    }

    // Inside a parallel region: each player's gradient from its own pairs, in pair order within each
    // chunk, the chunks folded.
    void gather_gradients(const Params& x, const Grads& g) {
        const int k = x.k;
        const std::int64_t n = ps_.n, nk = n * k;
        const double* r = residual_.data();
        const LeafOfBlock leaves(ps_);
        const std::uint8_t* leaf_of = leaves.table();
        const int width = 1 + 2 * k;  // s, then U_l and V_l of each l: leaf u's sums at t[q * kChunks + u]
        std::vector<double> t(static_cast<std::size_t>(width * kChunks));
        auto put = [&](double* out, std::int64_t at, std::int64_t stride, double* tq) {  // tq's nodes
            if (out) put_nodes(ps_, tq, [&](int q, double v) { out[q * stride + at] = v; });
        };
#pragma omp for schedule(dynamic, 256)
        for (std::int64_t a = 0; a < n; ++a) {
            std::fill(t.begin(), t.end(), 0.0);  // the leaves the player has no pair in stay 0
            double* ts = t.data();
            for (std::int64_t e = adj_.ptr[a]; e < adj_.ptr[a + 1]; ++e) {
                const Adjacency::Entry& ad = adj_.entries[e];
                const int u = leaf_of[LeafOfBlock::block_of(ad.pair)];
                const bool first = ad.other >= 0;
                const std::int64_t b = first ? ad.other : ~ad.other;
                const double rp = first ? r[ad.pair] : -r[ad.pair];
                ts[u] += rp;
                // dA/dU_a = +-V_b and dA/dV_a = -+U_b, the sign being that of a's side of the pair.
                for (int l = 0; l < k; ++l) {
                    if (g.U) ts[(1 + l) * kChunks + u] += rp * x.V[b * k + l];
                    if (g.V) ts[(1 + k + l) * kChunks + u] -= rp * x.U[b * k + l];
                }
            }
            put(g.s, a, n, t.data());
            for (int l = 0; l < k; ++l) {
                put(g.U, a * k + l, nk, t.data() + (1 + l) * kChunks);
                put(g.V, a * k + l, nk, t.data() + (1 + k + l) * kChunks);
            }
        }
    }

    PairSet ps_;
    bool scatter_ = false;
    Adjacency adj_;
    std::vector<double> residual_;
    std::vector<double> partial_;
    std::vector<double> partial_e_, partial_ee_;  // a draw model's per-block sums of dL/deta and d2L/deta2
    std::vector<double> chunk_;
    std::vector<double> logit_;
    std::mutex mutex_;
};

}  // namespace discrank
