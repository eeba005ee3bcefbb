// The one objective every model of discrank minimises, over the observed pairs only.
//
// For observed pairs p = (i_p, j_p), i_p != j_p, each stored once, with target y_p = P(i_p beats j_p),
// weight w_p and an optional fixed offset o_p, the score is
//     A_p = o_p + (s_i - s_j) + sum_l (U_il V_jl - V_il U_jl)
// (the Elo term of Eq. (1) and the disc components of Eq. (4)), and the objective is
//     f = sum_p w_p L(y_p, A_p).
// Missing pairs do not enter the sum (the paper's "Missing Entries" paragraph).
//
// Determinism: the loss is summed in fixed blocks of pairs and the blocks in order; each player's
// gradient is gathered from its own pairs in a fixed order (an adjacency list built once). The result
// is therefore bitwise the same for any number of threads, not only for the same one.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include <Eigen/Core>

#include "discrank/losses.hpp"

namespace discrank {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstFactor = Eigen::Map<const RowMatrix>;
using Factor = Eigen::Map<RowMatrix>;

inline int resolve_threads(int n_threads) {
#ifdef _OPENMP
    return n_threads > 0 ? n_threads : omp_get_max_threads();
#else
    (void)n_threads;
    return 1;
#endif
}

inline void neumaier_add(double& sum, double& comp, double x) {
    const double t = sum + x;
    comp += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
}

class PairObjective {
  public:
    static constexpr std::int64_t kBlock = 4096;  // pairs per partial loss sum

    // The arrays are borrowed, not copied: the caller keeps them alive and unchanged.
    PairObjective(std::int64_t n_players, const std::int32_t* i, const std::int32_t* j, const double* y,
                  const double* w, std::int64_t n_pairs)
        : n_(n_players), m_(n_pairs), i_(i), j_(j), y_(y), w_(w) {
        if (n_players < 1) throw std::invalid_argument("n_players must be >= 1, got " + std::to_string(n_players));
        if (n_pairs > INT32_MAX) throw std::invalid_argument("at most 2^31 - 1 pairs are supported");
        for (std::int64_t p = 0; p < m_; ++p) {
            const std::int64_t a = i_[p], b = j_[p];
            if (a < 0 || a >= n_ || b < 0 || b >= n_)
                throw std::invalid_argument("pair " + std::to_string(p) + " has player index (" + std::to_string(a) +
                                            ", " + std::to_string(b) + ") outside [0, " + std::to_string(n_) + ")");
            if (a == b)
                throw std::invalid_argument("pair " + std::to_string(p) + " is player " + std::to_string(a) +
                                            " against themself");
        }
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
        partial_.resize((m_ + kBlock - 1) / kBlock);
    }

    std::int64_t n_players() const { return n_; }
    std::int64_t n_pairs() const { return m_; }

    // Loss and gradient. U, V: row-major n x k (k may be 0, then they are ignored); s: n or null;
    // offset: m or null. Gradients are written (not accumulated) into the non-null outputs.
    double evaluate(Loss loss, const double* offset, const double* U, const double* V, int k, const double* s,
                    double* gU, double* gV, double* gs, int n_threads) {
        std::lock_guard<std::mutex> guard(mutex_);  // the scratch buffers are per object
        const int nt = resolve_threads(n_threads);
        const std::int64_t n_blocks = static_cast<std::int64_t>(partial_.size());
        const bool want_grad = gU || gV || gs;
        double* r = residual_.data();
        const ConstFactor Um(U, k ? n_ : 0, k), Vm(V, k ? n_ : 0, k);
#pragma omp parallel for schedule(static) num_threads(nt)
        for (std::int64_t blk = 0; blk < n_blocks; ++blk) {
            const std::int64_t lo = blk * kBlock, hi = std::min(m_, lo + kBlock);
            // Neumaier-compensated sum: the line search compares objective values, so their
            // rounding sets how close to the optimum a fit can get.
            double acc = 0.0, comp = 0.0;
            for (std::int64_t p = lo; p < hi; ++p) {
                const std::int64_t a = i_[p], b = j_[p];
                double score = offset ? offset[p] : 0.0;
                if (s) score += s[a] - s[b];
                if (k) score += Um.row(a).dot(Vm.row(b)) - Vm.row(a).dot(Um.row(b));
                const LossPoint lp = eval_loss(loss, y_[p], score);
                neumaier_add(acc, comp, w_[p] * lp.value);
                r[p] = w_[p] * lp.deriv;
            }
            partial_[blk] = acc + comp;
        }
        double total = 0.0, comp = 0.0;
        for (std::int64_t blk = 0; blk < n_blocks; ++blk) neumaier_add(total, comp, partial_[blk]);
        total += comp;
        if (!want_grad) return total;

        Factor gUm(gU, gU ? n_ : 0, k), gVm(gV, gV ? n_ : 0, k);
#pragma omp parallel for schedule(dynamic, 256) num_threads(nt)
        for (std::int64_t a = 0; a < n_; ++a) {
            double gsa = 0.0;
            if (gU) gUm.row(a).setZero();
            if (gV) gVm.row(a).setZero();
            for (std::int64_t e = ptr_[a]; e < ptr_[a + 1]; ++e) {
                const Adj& ad = adj_[e];
                const bool first = ad.other >= 0;
                const std::int64_t b = first ? ad.other : ~ad.other;
                const double rp = first ? r[ad.pair] : -r[ad.pair];
                gsa += rp;
                // dA/dU_a = +-V_b and dA/dV_a = -+U_b, the sign being that of a's side of the pair.
                if (gU) gUm.row(a) += rp * Vm.row(b);
                if (gV) gVm.row(a) -= rp * Um.row(b);
            }
            if (gs) gs[a] = gsa;
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

    std::int64_t n_, m_;
    const std::int32_t* i_;
    const std::int32_t* j_;
    const double* y_;
    const double* w_;
    std::vector<std::int64_t> ptr_;
    std::vector<Adj> adj_;
    std::vector<double> residual_;
    std::vector<double> partial_;
    std::mutex mutex_;
};

}  // namespace discrank
