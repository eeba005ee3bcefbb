// The _core module: its version, the thread counts, and the bindings of each topic (bind_*.cpp).
#include "bind.hpp"
#include "discrank/threads.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__GLIBC__)
#include <malloc.h>
#endif

PYBIND11_MODULE(_core, m) {
    m.doc() = "discrank's compiled core: the masked pairwise objective and its gradient.";
    m.attr("__version__") = DISCRANK_VERSION;
    m.def("max_threads", []() {
#ifdef _OPENMP
        return omp_get_max_threads();
#else
        return 1;
#endif
    });
    m.def("thread_limit", &discrank::thread_limit,
          "The most threads a kernel call starts (4 per processor, at most 1024); larger requests are clamped");
    // glibc keeps the memory of freed arrays up to its mmap threshold, which it raises to the size of each large
    // block freed: a fit that frees and allocates arrays of a million entries then holds the freed ones in its
    // resident set. malloc_trim(0) returns the free pages of every arena to the system (nothing elsewhere).
    m.def("trim_heap", []() {
#if defined(__GLIBC__)
        return malloc_trim(0) != 0;
#else
        return false;
#endif
    }, "Return the allocator's free pages to the system (glibc's malloc_trim); whether any were returned");
    discrank_py::bind_objective(m);
    discrank_py::bind_online(m);
    discrank_py::bind_pairs(m);
    discrank_py::bind_labels(m);
    discrank_py::bind_graph(m);
    discrank_py::bind_chains(m);
    discrank_py::bind_resample(m);
    discrank_py::bind_history(m);
}
