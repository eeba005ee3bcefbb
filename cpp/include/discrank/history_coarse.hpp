// The coarse space of the whole-history problem's two-level preconditioner (history.hpp): one vector per
// player, the indicator of its player-periods (P, n_pp x n_players). On it the chains vanish, so the coarse
// matrix A_c = P^T (G + prior) P is the games' Laplacian between players plus each player's first-period
// prior (G: the games' Laplacian over player-periods at the rows' curvature). The chains' solve M smooths
// within each player's periods; the coarse space carries what M cannot: the level of each player against
// the others, set by the games alone. The balancing (BNN) preconditioner
//
//     z = Q r + (I - Q H^) M (I - H^ Q) r,   Q = P A~_c^-1 P^T,   H^ = G + prior + chains on the ratings,
//
// stays symmetric positive definite for any symmetric positive A~_c^-1: here a fixed Chebyshev polynomial
// in D^-1 A_c (D its diagonal) of kChebSteps steps on the interval kChebLow..kChebHigh (D^-1 A_c's spectrum
// lies in (0, 2] by Gershgorin; its lowest modes past the one the prior pins are near 0.05 on ATP). An exact
// factor of A_c is no option: a dense core of a few thousand tour players fills a sparse Cholesky factor
// (17.5M nonzeros on ATP under nested dissection, bench/bench_preconditioner.py).
//
// Every sum runs in an order fixed by the data (the scatter into players by fixed chunks of player-periods,
// summed in chunk order): the same bits for any thread count.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "discrank/threads.hpp"

namespace discrank {

class CoarsePlayers {
  public:
    static constexpr int kChebSteps = 4;
    static constexpr double kChebLow = 0.05;
    static constexpr double kChebHigh = 2.0;
    static constexpr int kMaxChunks = 16;

    // player: the player of each player-period, non-decreasing (player-periods numbered player by player);
    // ptr, adj: the problem's entries of each rating (adj[t] the row, bit-flipped where the player-period
    // is the row's hi); lo, hi: the rows.
    CoarsePlayers(std::int64_t n_pp, std::int64_t n_players, const std::int32_t* player, const std::int64_t* ptr,
                  const std::int32_t* adj, const std::int32_t* lo, const std::int32_t* hi, std::int64_t m)
        : n_pp_(n_pp), n_pl_(n_players), ptr_(ptr) {
        start_.assign(static_cast<std::size_t>(n_pl_ + 1), 0);
        for (std::int64_t k = 0; k < n_pp_; ++k) {
            if (player[k] < 0 || player[k] >= n_pl_ || (k > 0 && player[k] < player[k - 1]))
                throw std::invalid_argument("the player-periods must be numbered player by player, players in [0, " +
                                            std::to_string(n_pl_) + "); player-period " + std::to_string(k) +
                                            " has player " + std::to_string(player[k]));
            ++start_[player[k] + 1];
        }
        for (std::int64_t p = 0; p < n_pl_; ++p) start_[p + 1] += start_[p];
        player_.assign(player, player + n_pp_);
        const std::int64_t entries = ptr_[n_pp_];
        other_.resize(static_cast<std::size_t>(entries));
        for (std::int64_t t = 0; t < entries; ++t) {
            const std::int32_t e = adj[t];
            other_[t] = player[e >= 0 ? hi[e] : lo[~e]];
        }
        // A_c's pattern: each player's distinct opponents (CSR), and where each row's pair sits in it
        std::vector<std::int64_t> keys(static_cast<std::size_t>(2 * m));
        for (std::int64_t k = 0; k < m; ++k) {
            const std::int64_t a = player[lo[k]], b = player[hi[k]];
            keys[2 * k] = a * n_pl_ + b;
            keys[2 * k + 1] = b * n_pl_ + a;
        }
        std::vector<std::int64_t> uniq(keys);
        std::sort(uniq.begin(), uniq.end());
        uniq.erase(std::unique(uniq.begin(), uniq.end()), uniq.end());
        ac_ptr_.assign(static_cast<std::size_t>(n_pl_ + 1), 0);
        ac_idx_.resize(uniq.size());
        for (std::size_t u = 0; u < uniq.size(); ++u) {
            ++ac_ptr_[uniq[u] / n_pl_ + 1];
            ac_idx_[u] = static_cast<std::int32_t>(uniq[u] % n_pl_);
        }
        for (std::int64_t p = 0; p < n_pl_; ++p) ac_ptr_[p + 1] += ac_ptr_[p];
        if (uniq.size() > static_cast<std::size_t>(INT32_MAX))
            throw std::invalid_argument("the coarse matrix has more than 2^31 - 1 entries");
        pos_.resize(keys.size());
        for (std::size_t u = 0; u < keys.size(); ++u)
            pos_[u] = static_cast<std::int32_t>(std::lower_bound(uniq.begin(), uniq.end(), keys[u]) - uniq.begin());
        ac_val_.resize(uniq.size());
        ac_diag_.resize(static_cast<std::size_t>(n_pl_));
        ac_dinv_.resize(static_cast<std::size_t>(n_pl_));
        const std::int64_t per_chunk = std::max<std::int64_t>(1, 8 * n_pl_);
        chunks_ = static_cast<int>(std::clamp<std::int64_t>(entries / per_chunk, 1, kMaxChunks));
        buffer_.resize(static_cast<std::size_t>(chunks_) * static_cast<std::size_t>(n_pl_));
    }

    std::int64_t n_players() const { return n_pl_; }

    // A_c at the rows' curvature f (each row's), each rating's games' diagonal gdiag and prior precision.
    // weight: the problem's entries' weights (-f of the entry's row), kept for the products.
    void refresh(const double* f, std::int64_t m, const double* gdiag, const double* prior, const double* weight,
                 int threads) {
        weight_ = weight;
        std::fill(ac_val_.begin(), ac_val_.end(), 0.0);
        for (std::int64_t k = 0; k < m; ++k) {
            ac_val_[pos_[2 * k]] -= f[k];
            ac_val_[pos_[2 * k + 1]] -= f[k];
        }
        own_.resize(static_cast<std::size_t>(n_pp_));
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t k = 0; k < n_pp_; ++k) own_[k] = gdiag[k] + prior[k];
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t p = 0; p < n_pl_; ++p) {
            double d = 0.0;
            for (std::int64_t k = start_[p]; k < start_[p + 1]; ++k) d += own_[k];
            ac_diag_[p] = d;
            ac_dinv_[p] = d > 0.0 ? 1.0 / d : 0.0;  // (a player's first period carries the prior: d > 0)
        }
    }

    // out = P^T x (each player's sum over its player-periods).
    void restrict_to(const double* x, double* out, int threads) const {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t p = 0; p < n_pl_; ++p) {
            double acc = 0.0;
            for (std::int64_t k = start_[p]; k < start_[p + 1]; ++k) acc += x[k];
            out[p] = acc;
        }
    }

    // out_k = ((G + prior) P y)_k for each player-period k.
    void expand_product(const double* y, double* out, int threads) const {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t k = 0; k < n_pp_; ++k) {
            double acc = own_[k] * y[player_[k]];
            for (std::int64_t t = ptr_[k]; t < ptr_[k + 1]; ++t) acc += weight_[t] * y[other_[t]];
            out[k] = acc;
        }
    }

    // out = P^T (G + prior) z: each entry's -f z_k scattered to its opponent, by fixed chunks of
    // player-periods summed in order.
    void restricted_product(const double* z, double* out, int threads) {
        const std::int64_t n = n_pl_;
#pragma omp parallel for schedule(static, 1) num_threads(threads)
        for (int c = 0; c < chunks_; ++c) {
            double* buf = buffer_.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(n);
            std::fill(buf, buf + n, 0.0);
            const std::int64_t lo = n_pp_ * c / chunks_, hi = n_pp_ * (c + 1) / chunks_;
            for (std::int64_t k = lo; k < hi; ++k) {
                const double zk = z[k];
                for (std::int64_t t = ptr_[k]; t < ptr_[k + 1]; ++t) buf[other_[t]] += weight_[t] * zk;
            }
        }
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t p = 0; p < n; ++p) {
            double acc = 0.0;
            for (std::int64_t k = start_[p]; k < start_[p + 1]; ++k) acc += own_[k] * z[k];
            for (int c = 0; c < chunks_; ++c) acc += buffer_[static_cast<std::size_t>(c) * n + p];
            out[p] = acc;
        }
    }

    // x = p(D^-1 A_c) D^-1 b: kChebSteps Chebyshev steps from 0 on [kChebLow, kChebHigh].
    void solve(const double* b, double* x, int threads) {
        const std::int64_t n = n_pl_;
        const double theta = 0.5 * (kChebHigh + kChebLow), delta = 0.5 * (kChebHigh - kChebLow);
        const double sigma = theta / delta;
        double rho = 1.0 / sigma;
        r_.assign(b, b + n);
        d_.resize(static_cast<std::size_t>(n));
        ad_.resize(static_cast<std::size_t>(n));
        for (std::int64_t p = 0; p < n; ++p) {
            d_[p] = ac_dinv_[p] * r_[p] / theta;
            x[p] = 0.0;
        }
        for (int i = 0; i < kChebSteps; ++i) {
            for (std::int64_t p = 0; p < n; ++p) x[p] += d_[p];
            if (i == kChebSteps - 1) break;
            ac_product(d_.data(), ad_.data(), threads);
            const double rho_new = 1.0 / (2.0 * sigma - rho);
            for (std::int64_t p = 0; p < n; ++p) {
                r_[p] -= ad_[p];
                d_[p] = rho_new * rho * d_[p] + (2.0 * rho_new / delta) * (ac_dinv_[p] * r_[p]);
            }
            rho = rho_new;
        }
    }

  private:
    // out = A_c y.
    void ac_product(const double* y, double* out, int threads) const {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t p = 0; p < n_pl_; ++p) {
            double acc = ac_diag_[p] * y[p];
            for (std::int64_t u = ac_ptr_[p]; u < ac_ptr_[p + 1]; ++u) acc += ac_val_[u] * y[ac_idx_[u]];
            out[p] = acc;
        }
    }

    std::int64_t n_pp_, n_pl_;
    const std::int64_t* ptr_;
    const double* weight_ = nullptr;
    std::vector<std::int32_t> player_, other_, ac_idx_;
    std::vector<std::int64_t> start_, ac_ptr_;
    std::vector<std::int32_t> pos_;  // each row's two entries of A_c
    std::vector<double> ac_val_, ac_diag_, ac_dinv_, own_, buffer_, r_, d_, ad_;
    int chunks_ = 1;
};

}  // namespace discrank
