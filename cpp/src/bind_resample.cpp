// Python glue of the bootstrap by resampled counts (resample.hpp).
#include "bind.hpp"
#include "discrank/checks.hpp"
#include "discrank/resample.hpp"

namespace discrank_py {

namespace {

// Raises ValueError unless a is 2-D with shape (rows, cols).
void check_matrix(const py::array& a, std::int64_t rows, std::int64_t cols, const char* name) {
    if (a.ndim() != 2 || a.shape(0) != rows || a.shape(1) != cols)
        throw py::value_error(std::string(name) + " must have shape (" + std::to_string(rows) + ", " +
                              std::to_string(cols) + "), got " + shape_str(a));
}

py::tuple bt_bootstrap(std::int64_t n, const IntIn& a, const IntIn& b, const FloatIn& y, const FloatIn& count,
                       const FloatIn& mult, const FloatIn& z, const FloatIn& x0, const FloatIn& l0, double rating_prec,
                       double beta_prec, std::uint64_t seed, std::int64_t first, std::int64_t n_boot, double tol,
                       int max_chord, int max_newton, int n_threads) {
    const std::int64_t m = common_length("a, b, y, count and mult",
                                         {{"a", &a}, {"b", &b}, {"y", &y}, {"count", &count}, {"mult", &mult}});
    check_player_count(n, 1);
    discrank::check_pairs(n, m, a.data(), b.data(), discrank::PairRule::distinct, "row");
    if (z.ndim() != 2 || z.shape(0) != m) throw py::value_error("z must have shape (" + std::to_string(m) + ", k), got " + shape_str(z));
    const std::int64_t k = z.shape(1), p = n + k;
    check_vector(x0, p, "x0");
    check_matrix(l0, p, p, "l0");
    if (n_boot < 0 || first < 0) throw py::value_error("n_boot and first must be >= 0");
    if (!(rating_prec >= 0.0) || !(beta_prec >= 0.0)) throw py::value_error("the precisions must be >= 0");
    discrank::BTRows d;
    d.m = m;
    d.n = n;
    d.k = k;
    d.a = a.data();
    d.b = b.data();
    d.y = y.data();
    d.count = count.data();
    d.mult = mult.data();
    d.z = z.data();
    d.rating_prec = rating_prec;
    d.beta_prec = beta_prec;
    FloatArray out({static_cast<py::ssize_t>(n_boot), static_cast<py::ssize_t>(p)});
    IntArray steps(static_cast<py::ssize_t>(n_boot));
    double* po = out.mutable_data();
    std::int32_t* ps = steps.mutable_data();
    {
        py::gil_scoped_release release;
        discrank::bt_bootstrap(d, x0.data(), l0.data(), seed, first, n_boot, tol, max_chord, max_newton, po, ps,
                               n_threads);
    }
    return py::make_tuple(out, steps);
}

}  // namespace

void bind_resample(py::module_& m) {
    m.def("bt_bootstrap", &bt_bootstrap, py::arg("n"), py::arg("a").noconvert(), py::arg("b").noconvert(),
          py::arg("y").noconvert(), py::arg("count").noconvert(), py::arg("mult").noconvert(), py::arg("z").noconvert(),
          py::arg("x0").noconvert(), py::arg("l0").noconvert(), py::arg("rating_prec"), py::arg("beta_prec"),
          py::arg("seed"), py::arg("first"), py::arg("n_boot"), py::arg("tol"), py::arg("max_chord"),
          py::arg("max_newton"), py::arg("n_threads") = 0,
          "Bootstrap replicates of a (contextual) Bradley-Terry fit by Poisson counts on the rows: (x, steps)");
}

}  // namespace discrank_py
