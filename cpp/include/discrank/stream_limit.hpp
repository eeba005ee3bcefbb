// The measured limit of a pass of the objective, for bench/bench_kernel.py: the same reads of the pair
// arrays (i, j, y, w) and the same loss code (exp and log count) as PairObjective::evaluate, with the
// score computed from i and j instead of gathered from the parameters, and no gradient spread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "discrank/losses.hpp"
#include "discrank/sums.hpp"
#include "discrank/threads.hpp"

namespace discrank {

// A checksum of the pass over the pairs of ps (its value means nothing).
inline double stream_limit(const PairSet& ps, Loss loss, int n_threads) {
    const int nt = resolve_threads(n_threads);
    const std::int64_t n_blocks = ps.n_blocks();
    double total = 0.0;
#pragma omp parallel num_threads(nt) reduction(+ : total)
    {
        std::vector<double> scratch(4 * kBlock);
        double* a = scratch.data();
        double* val = a + kBlock;
        double* res = val + kBlock;
        double* cscr = res + kBlock;
#pragma omp for schedule(static)
        for (std::int64_t blk = 0; blk < n_blocks; ++blk) {
            const std::int64_t lo = blk * kBlock, len = std::min(ps.m, lo + kBlock) - lo;
            for (std::int64_t t = 0; t < len; ++t) a[t] = 1e-4 * static_cast<double>(ps.i[lo + t] - ps.j[lo + t]);
            loss_block(loss, len, ps.y + lo, ps.w + lo, a, val, res, cscr);
            double r = 0.0;
            for (std::int64_t t = 0; t < len; ++t) r += res[t];
            total += block_sum(val, len) + r;
        }
    }
    return total;
}

}  // namespace discrank
