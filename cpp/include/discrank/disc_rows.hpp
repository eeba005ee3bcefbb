// The rows of the whole-history problem with a block after the ratings (python/discrank/_history_rows.py's
// Extra): row r is a game between the player-periods lo[r] and hi[r], and carries k >= 0 components of the
// disc game, each with four nodes into the block w (u of the row's first player, v of it, u of the second,
// v of it); the row's disc term is the paper's sum_j w[u_lo] w[v_hi] - w[v_lo] w[u_hi] (Section 3). Four
// kernels over the rows: the terms, their derivative along a direction (J v), the sum over the rows of a
// weight times each row's gradient (J^T c, with the bilinear term's second-order part sum_r f_r d''_r v
// when asked), and the games' whole Hessian product in the ratings and the disc (Rows.product's). The
// first two run the rows on threads, each row alone; the others add in the rows' order on one thread.
// Every result is bitwise the same for any thread count.
#pragma once

#include <cstdint>

#include "discrank/threads.hpp"

namespace discrank {

struct DiscRows {
    const std::int32_t* nodes;  // (k, 4, m): u_lo, v_lo, u_hi, v_hi of each component
    const std::int32_t* lo;     // (m,): each row's player-periods
    const std::int32_t* hi;
    std::int64_t k, m;

    const std::int32_t* node(std::int64_t j, int which) const { return nodes + (j * 4 + which) * m; }

    // out[r] = the row's term at w.
    void term(const double* w, double* out, int n_threads) const {
        const int threads = resolve_threads(n_threads);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t r = 0; r < m; ++r) {
            double s = 0.0;
            for (std::int64_t j = 0; j < k; ++j)
                s += w[node(j, 0)[r]] * w[node(j, 3)[r]] - w[node(j, 1)[r]] * w[node(j, 2)[r]];
            out[r] = s;
        }
    }

    // out[r] = the derivative of the row's term at w along v.
    void along(const double* w, const double* v, double* out, int n_threads) const {
        const int threads = resolve_threads(n_threads);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t r = 0; r < m; ++r) {
            double s = 0.0;
            for (std::int64_t j = 0; j < k; ++j) {
                const std::int32_t ul = node(j, 0)[r], vl = node(j, 1)[r], uh = node(j, 2)[r], vh = node(j, 3)[r];
                s += w[vh] * v[ul] - w[uh] * v[vl] - w[vl] * v[uh] + w[ul] * v[vh];
            }
            out[r] = s;
        }
    }

    // out += sum_r c[r] (the row's gradient at w); with f and v (both or neither), also
    // sum_r f[r] (the row's second derivative) v.
    void net(const double* w, const double* c, const double* f, const double* v, double* out) const {
        for (std::int64_t j = 0; j < k; ++j) {
            const std::int32_t *ul = node(j, 0), *vl = node(j, 1), *uh = node(j, 2), *vh = node(j, 3);
            if (f) {
                for (std::int64_t r = 0; r < m; ++r) {
                    const double cr = c[r], fr = f[r];
                    out[ul[r]] += cr * w[vh[r]] + fr * v[vh[r]];
                    out[vl[r]] -= cr * w[uh[r]] + fr * v[uh[r]];
                    out[uh[r]] -= cr * w[vl[r]] + fr * v[vl[r]];
                    out[vh[r]] += cr * w[ul[r]] + fr * v[ul[r]];
                }
            } else {
                for (std::int64_t r = 0; r < m; ++r) {
                    const double cr = c[r];
                    out[ul[r]] += cr * w[vh[r]];
                    out[vl[r]] -= cr * w[uh[r]];
                    out[uh[r]] -= cr * w[vl[r]];
                    out[vh[r]] += cr * w[ul[r]];
                }
            }
        }
    }

    // The games' Hessian times (vr, ve) at w (Rows.product, one pass over the rows): each row's derivative
    // d_r = vr[lo] - vr[hi] + (J v)_r + shift_r, weighed, a_r = f_dd_r d_r + add_r (shift, add: optional),
    // summed into the ratings' out (+ at lo, - at hi) and into the block's out_e (J^T a, with the disc's
    // second-order part f_d d'' ve); along[r] = a_r, and delta[r] = d_r where delta is given.
    void product(const double* w, const double* f_dd, const double* f_d, const double* vr, const double* ve,
                 const double* shift, const double* add, double* out, double* out_e, double* along,
                 double* delta) const {
        for (std::int64_t r = 0; r < m; ++r) {
            const std::int32_t a = lo[r], b = hi[r];
            double d = vr[a] - vr[b];
            for (std::int64_t j = 0; j < k; ++j) {
                const std::int32_t ul = node(j, 0)[r], vl = node(j, 1)[r], uh = node(j, 2)[r], vh = node(j, 3)[r];
                d += w[vh] * ve[ul] - w[uh] * ve[vl] - w[vl] * ve[uh] + w[ul] * ve[vh];
            }
            if (shift) d += shift[r];
            if (delta) delta[r] = d;
            double c = f_dd[r] * d;
            if (add) c += add[r];
            along[r] = c;
            out[a] += c;
            out[b] -= c;
            if (!k) continue;
            const double fr = f_d[r];
            for (std::int64_t j = 0; j < k; ++j) {
                const std::int32_t ul = node(j, 0)[r], vl = node(j, 1)[r], uh = node(j, 2)[r], vh = node(j, 3)[r];
                out_e[ul] += c * w[vh] + fr * ve[vh];
                out_e[vl] -= c * w[uh] + fr * ve[uh];
                out_e[uh] -= c * w[vl] + fr * ve[vl];
                out_e[vh] += c * w[ul] + fr * ve[ul];
            }
        }
    }
};

}  // namespace discrank
