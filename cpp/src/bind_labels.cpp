// Python glue of the integer label coding (labels.hpp).
#include <algorithm>
#include <vector>

#include "bind.hpp"
#include "discrank/labels.hpp"
#include "discrank/threads.hpp"

namespace discrank_py {

namespace {

// Integer labels of a compact range coded to 0..n-1 (see labels.hpp); None when the range is wider
// than max_range (then the caller sorts).
template <class T>
py::object factorize_ints_t(const In<T>& a, const In<T>& b, std::int64_t max_range, int n_threads) {
    const std::int64_t ma = a.shape(0), mb = b.shape(0);
    const int nt = discrank::resolve_threads(n_threads);
    std::pair<T, T> range;
    {
        py::gil_scoped_release release;
        range = discrank::min_max(a.data(), ma, b.data(), mb, nt);
    }
    const double width = static_cast<double>(range.second) - static_cast<double>(range.first);
    if (width >= static_cast<double>(std::min<std::int64_t>(max_range, INT32_MAX - 1))) return py::none();
    IntArray code_a(static_cast<py::ssize_t>(ma)), code_b(static_cast<py::ssize_t>(mb));
    std::vector<T> distinct;
    {
        py::gil_scoped_release release;
        distinct = discrank::code_ints(a.data(), ma, b.data(), mb, range.first, range.second, code_a.mutable_data(),
                                       code_b.mutable_data(), nt);
    }
    py::array_t<T> uniq(static_cast<py::ssize_t>(distinct.size()));
    std::copy(distinct.begin(), distinct.end(), uniq.mutable_data());
    return py::make_tuple(uniq, code_a, code_b);
}

py::object factorize_ints(const py::array& a, const py::array& b, std::int64_t max_range, int n_threads) {
    if (a.ndim() != 1 || b.ndim() != 1 || a.shape(0) + b.shape(0) == 0)
        throw py::value_error("a and b must be 1-D and not both empty");
    if (!a.dtype().is(b.dtype())) throw py::type_error("a and b must have the same dtype");
    if (a.shape(0) == 0 || b.shape(0) == 0) return py::none();
    if (a.dtype().is(py::dtype::of<std::int64_t>()))
        return factorize_ints_t<std::int64_t>(a.cast<In<std::int64_t>>(), b.cast<In<std::int64_t>>(), max_range,
                                              n_threads);
    if (a.dtype().is(py::dtype::of<std::int32_t>()))
        return factorize_ints_t<std::int32_t>(a.cast<In<std::int32_t>>(), b.cast<In<std::int32_t>>(), max_range,
                                              n_threads);
    throw py::type_error("a and b must be int32 or int64, got " + std::string(py::str(a.dtype())));
}

}  // namespace

void bind_labels(py::module_& m) {
    m.def("factorize_ints", &factorize_ints, py::arg("a"), py::arg("b"), py::arg("max_range"),
          py::arg("n_threads") = 0,
          "Integer labels of a range narrower than max_range coded to 0..n-1: (distinct values, codes of a, "
          "codes of b), or None for a wider range or an empty a or b.");
}

}  // namespace discrank_py
