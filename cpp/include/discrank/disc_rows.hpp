// The disc game's terms in the rows of the whole-history problem (python/discrank/_history_rows.py's
// Extra): each row r carries k components, each with four nodes into one parameter block w (u of the
// row's first player, v of it, u of the second, v of it), and the row's term is the paper's disc game
// sum_j w[u_lo] w[v_hi] - w[v_lo] w[u_hi] (Section 3). Three kernels over the rows: the terms, their
// derivative along a direction (J v), and the sum over the rows of a weight times each row's gradient
// (J^T c), with the bilinear term's second-order part (sum_r f_r d''_r v) when asked. The first two run
// the rows on threads, each row alone; the third adds in the rows' order on one thread. Every result is
// bitwise the same for any thread count.
#pragma once

#include <cstdint>

#include "discrank/threads.hpp"

namespace discrank {

struct DiscRows {
    const std::int32_t* nodes;  // (k, 4, m): u_lo, v_lo, u_hi, v_hi of each component
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
};

}  // namespace discrank
