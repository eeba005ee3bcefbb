// Python glue of the disc game's row kernels (disc_rows.hpp).
#include "bind.hpp"
#include "discrank/disc_rows.hpp"

#include <algorithm>
#include <optional>
#include <string>

namespace discrank_py {

namespace {

// Owns the nodes so that the borrowed pointer in DiscRows stays valid; checks them once.
class PyDiscRows {
  public:
    PyDiscRows(IntIn nodes, std::int64_t size) : nodes_(std::move(nodes)), size_(size) {
        if (nodes_.ndim() != 3 || nodes_.shape(1) != 4)
            throw py::value_error("nodes must have shape (k, 4, m), got " + shape_str(nodes_));
        if (size < 0 || size > INT32_MAX) throw py::value_error("size must be in [0, 2^31 - 1], got " + std::to_string(size));
        core_.nodes = nodes_.data();
        core_.k = nodes_.shape(0);
        core_.m = nodes_.shape(2);
        const std::int32_t* p = nodes_.data();
        const std::int64_t total = core_.k * 4 * core_.m;
        const auto bad = std::find_if(p, p + total, [&](std::int32_t x) { return x < 0 || x >= size; });
        if (bad != p + total)
            throw py::value_error("node " + std::to_string(*bad) + " at flat position " + std::to_string(bad - p) +
                                  " is outside the block [0, " + std::to_string(size) + ")");
    }

    FloatArray term(const FloatIn& w, int n_threads) const {
        check_vector(w, size_, "w");
        FloatArray out(static_cast<py::ssize_t>(core_.m));
        double* po = out.mutable_data();
        py::gil_scoped_release release;
        core_.term(w.data(), po, n_threads);
        return out;
    }

    FloatArray along(const FloatIn& w, const FloatIn& v, int n_threads) const {
        check_vector(w, size_, "w");
        check_vector(v, size_, "v");
        FloatArray out(static_cast<py::ssize_t>(core_.m));
        double* po = out.mutable_data();
        py::gil_scoped_release release;
        core_.along(w.data(), v.data(), po, n_threads);
        return out;
    }

    void net(const FloatIn& w, const FloatIn& c, FloatArray out, const std::optional<FloatIn>& f,
             const std::optional<FloatIn>& v) const {
        check_vector(w, size_, "w");
        check_vector(c, core_.m, "c");
        check_vector(out, size_, "out");
        if (f.has_value() != v.has_value()) throw py::value_error("f and v must be given together");
        if (f) {
            check_vector(*f, core_.m, "f");
            check_vector(*v, size_, "v");
        }
        double* po = out.mutable_data();
        const double* pf = f ? f->data() : nullptr;
        const double* pv = v ? v->data() : nullptr;
        py::gil_scoped_release release;
        core_.net(w.data(), c.data(), pf, pv, po);
    }

  private:
    IntIn nodes_;
    std::int64_t size_;
    discrank::DiscRows core_{};
};

}  // namespace

void bind_disc_rows(py::module_& m) {
    py::class_<PyDiscRows>(m, "DiscRows",
                           "The disc game's terms of rows with nodes (k, 4, m) (u_lo, v_lo, u_hi, v_hi of each component) "
                           "into a parameter block of `size`")
        .def(py::init<IntIn, std::int64_t>(), py::arg("nodes").noconvert(), py::arg("size"))
        .def("term", &PyDiscRows::term, py::arg("w").noconvert(), py::arg("n_threads") = 0,
             "each row's term sum_j w[u_lo] w[v_hi] - w[v_lo] w[u_hi]")
        .def("along", &PyDiscRows::along, py::arg("w").noconvert(), py::arg("v").noconvert(), py::arg("n_threads") = 0,
             "each row's derivative at w along v (J v)")
        .def("net", &PyDiscRows::net, py::arg("w").noconvert(), py::arg("c").noconvert(), py::arg("out").noconvert(),
             py::arg("f") = py::none(), py::arg("v") = py::none(),
             "out += J^T c at w, and with f and v the second-order part sum_r f_r d''_r v (in place)");
}

}  // namespace discrank_py
