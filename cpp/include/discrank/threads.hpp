// Thread counts of the core's parallel regions. Every region runs on at most thread_limit() threads:
// 4 per processor available to the process (omp_get_num_procs, which honours the affinity mask), and
// never more than kThreadCeiling. A larger request (n_threads = 10^6, or OMP_NUM_THREADS = 10^6, which
// omp_get_max_threads() returns) is clamped silently: libgomp would try to create every thread and
// segfault, exit the process on a failed allocation, or abort with "Thread creation failed" under a
// memory cap. The Python layer warns (discrank.exceptions.ThreadCountWarning) before it gets here;
// this is the last line of defence for direct calls of the bindings.
#pragma once

#include <algorithm>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace discrank {

constexpr int kThreadsPerProc = 4;
constexpr int kThreadCeiling = 1024;

// The most threads a parallel region of the core starts.
inline int thread_limit() {
#ifdef _OPENMP
    const int procs = std::max(1, omp_get_num_procs());
    return std::min(kThreadCeiling, kThreadsPerProc * std::min(procs, kThreadCeiling));
#else
    return 1;
#endif
}

// A thread count already resolved by the caller (0 or less: one thread), clamped to [1, thread_limit()].
inline int clamp_threads(int n_threads) { return std::clamp(n_threads, 1, thread_limit()); }

// The threads of a kernel call: n_threads when positive, else OpenMP's default (OMP_NUM_THREADS when
// set, else all processors); clamped to [1, thread_limit()].
inline int resolve_threads(int n_threads) {
#ifdef _OPENMP
    return clamp_threads(n_threads > 0 ? n_threads : omp_get_max_threads());
#else
    (void)n_threads;
    return 1;
#endif
}

}  // namespace discrank
