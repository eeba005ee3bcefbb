// Coding integer player ids to indices 0..n-1 (the sorted distinct ids), without sorting: a presence
// table over the ids' range, then a prefix count. Used for game logs whose labels are integers of a
// compact range (the common case for large logs); anything else is coded by numpy's sort.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "discrank/buffer.hpp"
#include "discrank/threads.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace discrank {

// min and max of a[0..ma) and b[0..mb) together (both non-empty).
template <class T>
std::pair<T, T> min_max(const T* a, std::int64_t ma, const T* b, std::int64_t mb, int n_threads) {
    T lo = a[0], hi = a[0];
#pragma omp parallel for reduction(min : lo) reduction(max : hi) num_threads(clamp_threads(n_threads)) schedule(static)
    for (std::int64_t t = 0; t < ma + mb; ++t) {
        const T x = t < ma ? a[t] : b[t - ma];
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    }
    return {lo, hi};
}

// Codes a and b given their range [lo, hi] (hi - lo < 2^31 - 1): code[t] = the rank of a[t] among the
// distinct values of a and b together. Returns the distinct values (sorted).
template <class T>
std::vector<T> code_ints(const T* a, std::int64_t ma, const T* b, std::int64_t mb, T lo, T hi, std::int32_t* code_a,
                         std::int32_t* code_b, int n_threads) {
    const std::int64_t range = static_cast<std::int64_t>(hi) - static_cast<std::int64_t>(lo) + 1;
    Buffer<std::int32_t> table(static_cast<std::size_t>(range));
    std::fill(table.get(), table.get() + range, 0);
    for (std::int64_t t = 0; t < ma; ++t) table[a[t] - lo] = 1;
    for (std::int64_t t = 0; t < mb; ++t) table[b[t] - lo] = 1;
    std::vector<T> distinct;
    std::int32_t next = 0;
    for (std::int64_t v = 0; v < range; ++v) {
        if (table[v]) {
            distinct.push_back(static_cast<T>(lo + v));
            table[v] = next++;
        }
    }
    const int nt = clamp_threads(n_threads);
#pragma omp parallel for num_threads(nt) schedule(static)
    for (std::int64_t t = 0; t < ma; ++t) code_a[t] = table[a[t] - lo];
#pragma omp parallel for num_threads(nt) schedule(static)
    for (std::int64_t t = 0; t < mb; ++t) code_b[t] = table[b[t] - lo];
    return distinct;
}

}  // namespace discrank
