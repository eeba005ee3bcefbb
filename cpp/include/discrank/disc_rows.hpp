// The rows of the whole-history problem with a block after the ratings (python/discrank/_history_rows.py's
// Extra): row r is a game between the player-periods lo[r] and hi[r], and carries k >= 0 components of the
// disc game, each with four nodes into the block w (u of the row's first player, v of it, u of the second,
// v of it); the row's disc term is the paper's sum_j w[u_lo] w[v_hi] - w[v_lo] w[u_hi] (Section 3). Three
// kernels over the rows: the terms, the sum over the rows of a weight times each row's gradient (J^T c, with
// the bilinear term's second-order part sum_r f_r d''_r v when asked), and the games' whole Hessian product
// in the ratings and the disc (Rows.product's; each row's derivative along the direction, J v, on the way).
//
// Every kernel runs on threads and gives bitwise the same result for any thread count: the per-row parts
// run each row alone; the sums into the ratings and the block are gathered, each entry adding its own
// rows' terms in a fixed order (the rows of each entry listed once, at construction, by a counting sort: the
// player-periods' by pairs.hpp's Adjacency), so that no two threads write one entry.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "discrank/pairs.hpp"
#include "discrank/threads.hpp"

namespace discrank {

class DiscRows {
  public:
    // nodes (k, 4, m): u_lo, v_lo, u_hi, v_hi of each component, in [0, size); lo, hi (m,) in [0, n_pp).
    DiscRows(const std::int32_t* nodes, const std::int32_t* lo, const std::int32_t* hi, std::int64_t k,
             std::int64_t m, std::int64_t size, std::int64_t n_pp)
        : nodes_(nodes), lo_(lo), hi_(hi), k_(k), m_(m), size_(size), n_pp_(n_pp), rows_(n_pp, m, lo, hi) {
        // each block entry's rows, signed as the entry's derivative (+ for u_lo and v_hi), and the partner
        // node whose value is that derivative
        if (!k) return;
        blk_start_.assign(size + 1, 0);
        for (std::int64_t s = 0; s < 4 * k; ++s)
            for (std::int64_t r = 0; r < m; ++r) ++blk_start_[nodes[s * m + r] + 1];
        for (std::int64_t e = 0; e < size; ++e) blk_start_[e + 1] += blk_start_[e];
        blk_row_.resize(4 * k * m);
        blk_partner_.resize(4 * k * m);
        std::vector<std::int64_t> at(blk_start_.begin(), blk_start_.end() - 1);
        static constexpr int kPartner[4] = {3, 2, 1, 0};
        for (std::int64_t r = 0; r < m; ++r)
            for (std::int64_t j = 0; j < k; ++j)
                for (int which = 0; which < 4; ++which) {
                    const std::int64_t slot = at[node(j, which)[r]]++;
                    const bool plus = which == 0 || which == 3;
                    blk_row_[slot] = plus ? static_cast<std::int32_t>(r + 1) : -static_cast<std::int32_t>(r + 1);
                    blk_partner_[slot] = node(j, kPartner[which])[r];
                }
    }

    std::int64_t k() const { return k_; }
    std::int64_t m() const { return m_; }

    // out[r] = the row's term at w.
    void term(const double* w, double* out, int n_threads) const {
        const int threads = resolve_threads(n_threads);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t r = 0; r < m_; ++r) out[r] = row_term(w, r);
    }

    // out += sum_r c[r] (the row's gradient at w); with f and v (both or neither), also
    // sum_r f[r] (the row's second derivative) v.
    void net(const double* w, const double* c, const double* f, const double* v, double* out, int n_threads) const {
        const int threads = resolve_threads(n_threads);
#pragma omp parallel for schedule(dynamic, kEntries) num_threads(threads)
        for (std::int64_t e = 0; e < size_; ++e) out[e] += block_sum(w, c, f, v, e);
    }

    // The games' Hessian times (vr, ve) at w (Rows.product): each row's derivative d_r = vr[lo] - vr[hi] +
    // (J ve)_r + shift_r, weighed, a_r = f_dd_r d_r + add_r (shift, add: optional), summed into the ratings'
    // out (+ at lo, - at hi) and into the block's out_e (J^T a, with the disc's second-order part
    // f_d d'' ve; 0 at the entries no disc node reaches); along[r] = a_r, and delta[r] = d_r where given.
    void product(const double* w, const double* f_dd, const double* f_d, const double* vr, const double* ve,
                 const double* shift, const double* add, double* out, double* out_e, double* along, double* delta,
                 int n_threads) const {
        const int threads = resolve_threads(n_threads);
#pragma omp parallel num_threads(threads)
        {
#pragma omp for schedule(static)
            for (std::int64_t r = 0; r < m_; ++r) {
                double d = vr[lo_[r]] - vr[hi_[r]];
                if (k_) d += row_along(w, ve, r);
                if (shift) d += shift[r];
                if (delta) delta[r] = d;
                along[r] = f_dd[r] * d + (add ? add[r] : 0.0);
            }
#pragma omp for schedule(static)
            for (std::int64_t p = 0; p < n_pp_; ++p) {
                double s = 0.0;
                for (std::int64_t i = rows_.ptr[p]; i < rows_.ptr[p + 1]; ++i) {
                    const Adjacency::Entry& e = rows_.entries[i];  // + where p is the row's lo, - where hi
                    s += e.other >= 0 ? along[e.pair] : -along[e.pair];
                }
                out[p] = s;
            }
#pragma omp for schedule(dynamic, kEntries)
            for (std::int64_t e = 0; e < size_; ++e) out_e[e] = k_ ? block_sum(w, along, f_d, ve, e) : 0.0;
        }
    }

  private:
    // block entries per scheduled chunk: a player's entries carry as many rows as their games, so the
    // chunks are handed out as the threads free up
    static constexpr std::int64_t kEntries = 256;

    const std::int32_t* node(std::int64_t j, int which) const { return nodes_ + (j * 4 + which) * m_; }

    double row_term(const double* w, std::int64_t r) const {
        double s = 0.0;
        for (std::int64_t j = 0; j < k_; ++j)
            s += w[node(j, 0)[r]] * w[node(j, 3)[r]] - w[node(j, 1)[r]] * w[node(j, 2)[r]];
        return s;
    }

    double row_along(const double* w, const double* v, std::int64_t r) const {
        double s = 0.0;
        for (std::int64_t j = 0; j < k_; ++j) {
            const std::int32_t ul = node(j, 0)[r], vl = node(j, 1)[r], uh = node(j, 2)[r], vh = node(j, 3)[r];
            s += w[vh] * v[ul] - w[uh] * v[vl] - w[vl] * v[uh] + w[ul] * v[vh];
        }
        return s;
    }

    // Block entry e's sum over its rows of c_r (its derivative at w), plus f_r v[partner] where f is given.
    double block_sum(const double* w, const double* c, const double* f, const double* v, std::int64_t e) const {
        if (!k_) return 0.0;
        double s = 0.0;
        for (std::int64_t i = blk_start_[e]; i < blk_start_[e + 1]; ++i) {
            const std::int32_t code = blk_row_[i], q = blk_partner_[i];
            const std::int64_t r = std::abs(code) - 1;
            double t = c[r] * w[q];
            if (f) t += f[r] * v[q];
            s += code > 0 ? t : -t;
        }
        return s;
    }

    const std::int32_t* nodes_;
    const std::int32_t* lo_;
    const std::int32_t* hi_;
    std::int64_t k_, m_, size_, n_pp_;
    Adjacency rows_;  // each player-period's rows (pairs.hpp)
    std::vector<std::int64_t> blk_start_;
    std::vector<std::int32_t> blk_row_, blk_partner_;
};

}  // namespace discrank
