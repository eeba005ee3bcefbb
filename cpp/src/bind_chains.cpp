// Python glue of the whole-history chains (chains.hpp).
#include "bind.hpp"
#include "discrank/chains.hpp"

namespace discrank_py {

namespace {

// Adds the chains' tridiagonal product to `out` in place.
void chain_add(const FloatIn& diag, const FloatIn& off, const FloatIn& x, FloatArray out, int n_threads) {
    const std::int64_t n = common_length("diag, x and out", {{"diag", &diag}, {"x", &x}, {"out", &out}});
    check_vector(off, n > 0 ? n - 1 : 0, "off");
    double* po = out.mutable_data();
    py::gil_scoped_release release;
    discrank::chain_add(n, diag.data(), off.data(), x.data(), po, n_threads);
}

// x solving L D L^T x = b (LAPACK dpttrf's factors d and e).
FloatArray chain_solve(const FloatIn& d, const FloatIn& e, const FloatIn& b, int n_threads) {
    const std::int64_t n = common_length("d and b", {{"d", &d}, {"b", &b}});
    check_vector(e, n > 0 ? n - 1 : 0, "e");
    FloatArray x(static_cast<py::ssize_t>(n));
    double* px = x.mutable_data();
    const double* pb = b.data();
    {
        py::gil_scoped_release release;
        std::copy(pb, pb + n, px);
        discrank::chain_solve(n, d.data(), e.data(), px, n_threads);
    }
    return x;
}

// (pivots, variances or None) of the blocks of the tridiagonal matrix (chains.hpp's chain_pivots).
py::tuple chain_pivots(const FloatIn& diag, const FloatIn& off, const py::array_t<bool, py::array::c_style>& first,
                       bool variances, int n_threads) {
    const std::int64_t n = diag.shape(0);
    check_vector(off, n > 0 ? n - 1 : 0, "off");
    if (first.ndim() != 1 || first.shape(0) != n)
        throw py::value_error("first must have the length of diag, " + std::to_string(n));
    FloatArray d(static_cast<py::ssize_t>(n));
    FloatArray var(static_cast<py::ssize_t>(variances ? n : 0));
    double* pd = d.mutable_data();
    double* pv = variances ? var.mutable_data() : nullptr;
    const auto* pf = reinterpret_cast<const std::uint8_t*>(first.data());
    {
        py::gil_scoped_release release;
        discrank::chain_pivots(n, diag.data(), off.data(), pf, pd, pv, n_threads);
    }
    return py::make_tuple(d, variances ? py::object(var) : py::none());
}

}  // namespace

void bind_chains(py::module_& m) {
    m.def("chain_add", &chain_add, py::arg("diag").noconvert(), py::arg("off").noconvert(), py::arg("x").noconvert(),
          py::arg("out").noconvert(), py::arg("n_threads") = 0,
          "out += T x for the symmetric tridiagonal T with diagonal diag and off-diagonal -off (in place)");
    m.def("chain_solve", &chain_solve, py::arg("d").noconvert(), py::arg("e").noconvert(), py::arg("b").noconvert(),
          py::arg("n_threads") = 0,
          "x with L D L^T x = b, from LAPACK dpttrf's factors d and e; the same bits for any n_threads");
    m.def("chain_pivots", &chain_pivots, py::arg("diag").noconvert(), py::arg("off").noconvert(),
          py::arg("first").noconvert(), py::arg("variances") = false, py::arg("n_threads") = 0,
          "(pivots, variances or None) of the players' blocks of the tridiagonal matrix (diag, -off), each block "
          "starting where first; the same bits for any n_threads");
}

}  // namespace discrank_py
