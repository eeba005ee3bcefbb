// The random-walk chains of the whole-history problem (python/discrank/_history.py): one symmetric
// tridiagonal matrix over player-periods numbered player by player, its off-diagonal 0 between two
// players. Two kernels: its product added to a vector, and the solve with its L D L^T factors (LAPACK
// dpttrf's d and e). The solve runs the players' blocks on threads: the ranges are cut where the
// off-diagonal is 0, so each block sees the same operations in the same order whatever the thread
// count (the result is bitwise the same for any n_threads).
#pragma once

#include <cstdint>
#include <vector>

#include "discrank/threads.hpp"

namespace discrank {

// out[k] += diag[k] x[k] - off[k-1] x[k-1] - off[k] x[k+1]: the tridiagonal matrix with diagonal diag
// and off-diagonal -off (off >= 0, the chains' link weights; n - 1 of them) times x, added to out.
inline void chain_add(std::int64_t n, const double* diag, const double* off, const double* x, double* out,
                      int n_threads) {
    const int threads = resolve_threads(n_threads);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t k = 0; k < n; ++k) {
        double v = diag[k] * x[k];
        if (k > 0) v -= off[k - 1] * x[k - 1];
        if (k + 1 < n) v -= off[k] * x[k + 1];
        out[k] += v;
    }
}

// The starts of up to `parts` ranges of [0, n), each beginning where e[k - 1] == 0 (or at 0), in order;
// the last entry is n.
inline std::vector<std::int64_t> block_ranges(std::int64_t n, const double* e, int parts) {
    std::vector<std::int64_t> cut{0};
    for (int t = 1; t < parts; ++t) {
        std::int64_t k = std::max(cut.back() + 1, n * t / parts);
        while (k < n && e[k - 1] != 0.0) ++k;
        if (k >= n) break;
        cut.push_back(k);
    }
    cut.push_back(n);
    return cut;
}

// Solves L D L^T x = b in place (x holds b on entry): L unit lower bidiagonal with subdiagonal e (n - 1),
// D = diag(d), as LAPACK's dptts2 does, block by block.
inline void chain_solve(std::int64_t n, const double* d, const double* e, double* x, int n_threads) {
    if (n == 0) return;
    const int threads = resolve_threads(n_threads);
    const std::vector<std::int64_t> cut = block_ranges(n, e, threads);
    const std::int64_t ranges = static_cast<std::int64_t>(cut.size()) - 1;
#pragma omp parallel for schedule(static, 1) num_threads(threads)
    for (std::int64_t r = 0; r < ranges; ++r) {
        const std::int64_t lo = cut[r], hi = cut[r + 1];
        for (std::int64_t i = lo + 1; i < hi; ++i) x[i] -= x[i - 1] * e[i - 1];
        x[hi - 1] /= d[hi - 1];
        for (std::int64_t i = hi - 2; i >= lo; --i) x[i] = x[i] / d[i] - x[i + 1] * e[i];
    }
}

// The pivots d of the forward elimination of each block (one per player, starting where first[k] != 0):
// d_k = diag_k - off_{k-1}^2 / d_{k-1} within a block, diag_k at its start. With var given, also the
// diagonal of the inverse (each block's variances): 1 / d at a block's last entry, and going back
// var_k = 1 / d_k + (off_k / d_k)^2 var_{k+1}. Blocks run on threads, each whole on one: the same bits for
// any n_threads.
inline void chain_pivots(std::int64_t n, const double* diag, const double* off, const std::uint8_t* first, double* d,
                         double* var, int n_threads) {
    std::vector<std::int64_t> start;
    for (std::int64_t k = 0; k < n; ++k)
        if (first[k] || k == 0) start.push_back(k);
    start.push_back(n);
    const std::int64_t blocks = static_cast<std::int64_t>(start.size()) - 1;
    const int threads = resolve_threads(n_threads);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t b = 0; b < blocks; ++b) {
        const std::int64_t lo = start[b], hi = start[b + 1];
        d[lo] = diag[lo];
        for (std::int64_t k = lo + 1; k < hi; ++k) d[k] = diag[k] - off[k - 1] * off[k - 1] / d[k - 1];
        if (!var) continue;
        var[hi - 1] = 1.0 / d[hi - 1];
        for (std::int64_t k = hi - 2; k >= lo; --k) {
            const double l = off[k] / d[k];
            var[k] = 1.0 / d[k] + l * l * var[k + 1];
        }
    }
}

}  // namespace discrank
