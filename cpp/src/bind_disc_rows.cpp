// Python glue of the disc game's row kernels (disc_rows.hpp).
#include "bind.hpp"
#include "discrank/checks.hpp"
#include "discrank/disc_rows.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>

namespace discrank_py {

namespace {

// Owns the nodes and the rows so that the borrowed pointers in DiscRows stay valid; checks them once (and
// DiscRows lists each entry's rows once).
class PyDiscRows {
  public:
    PyDiscRows(IntIn nodes, std::int64_t size, IntIn lo, IntIn hi, std::int64_t n_pp)
        : nodes_(std::move(nodes)), lo_(std::move(lo)), hi_(std::move(hi)), size_(size), n_pp_(n_pp) {
        if (nodes_.ndim() != 3 || nodes_.shape(1) != 4)
            throw py::value_error("nodes must have shape (k, 4, m), got " + shape_str(nodes_));
        if (size < 0 || size > INT32_MAX) throw py::value_error("size must be in [0, 2^31 - 1], got " + std::to_string(size));
        check_player_count(n_pp, 1);
        if (nodes_.shape(2) >= INT32_MAX) throw py::value_error("at most 2^31 - 2 rows, got " + std::to_string(nodes_.shape(2)));
        check_vector(lo_, nodes_.shape(2), "lo");
        check_vector(hi_, nodes_.shape(2), "hi");
        try {
            discrank::check_pairs(n_pp, lo_.shape(0), lo_.data(), hi_.data(), discrank::PairRule::distinct, "row");
        } catch (const std::invalid_argument& e) {
            throw py::value_error(e.what());
        }
        const std::int32_t* p = nodes_.data();
        const std::int64_t k = nodes_.shape(0), m = nodes_.shape(2), total = k * 4 * m;
        const auto bad = std::find_if(p, p + total, [&](std::int32_t x) { return x < 0 || x >= size; });
        if (bad != p + total)
            throw py::value_error("node " + std::to_string(*bad) + " at flat position " + std::to_string(bad - p) +
                                  " is outside the block [0, " + std::to_string(size) + ")");
        py::gil_scoped_release release;
        core_ = std::make_unique<discrank::DiscRows>(p, lo_.data(), hi_.data(), k, m, size, n_pp);
    }

    FloatArray term(const FloatIn& w, int n_threads) const {
        check_vector(w, size_, "w");
        FloatArray out(static_cast<py::ssize_t>(core_->m()));
        double* po = out.mutable_data();
        py::gil_scoped_release release;
        core_->term(w.data(), po, n_threads);
        return out;
    }

    void net(const FloatIn& w, const FloatIn& c, FloatArray out, const std::optional<FloatIn>& f,
             const std::optional<FloatIn>& v, int n_threads) const {
        check_vector(w, size_, "w");
        check_vector(c, core_->m(), "c");
        check_vector(out, size_, "out");
        if (f.has_value() != v.has_value()) throw py::value_error("f and v must be given together");
        if (f) {
            check_vector(*f, core_->m(), "f");
            check_vector(*v, size_, "v");
        }
        double* po = out.mutable_data();
        const double* pf = f ? f->data() : nullptr;
        const double* pv = v ? v->data() : nullptr;
        py::gil_scoped_release release;
        core_->net(w.data(), c.data(), pf, pv, po, n_threads);
    }

    // (out, out_e, along, delta or None) of DiscRows::product.
    py::tuple product(const std::optional<FloatIn>& w, const FloatIn& f_dd, const std::optional<FloatIn>& f_d,
                      const FloatIn& vr, const FloatIn& ve, const std::optional<FloatIn>& shift,
                      const std::optional<FloatIn>& add, bool keep_delta, int n_threads) const {
        if (core_->k() && !(w && f_d)) throw py::value_error("w and f_d are needed with disc components");
        if (w) check_vector(*w, size_, "w");
        if (f_d) check_vector(*f_d, core_->m(), "f_d");
        check_vector(f_dd, core_->m(), "f_dd");
        check_vector(vr, n_pp_, "vr");
        check_vector(ve, size_, "ve");
        if (shift) check_vector(*shift, core_->m(), "shift");
        if (add) check_vector(*add, core_->m(), "add");
        FloatArray out(static_cast<py::ssize_t>(n_pp_)), out_e(static_cast<py::ssize_t>(size_));
        FloatArray along(static_cast<py::ssize_t>(core_->m()));
        FloatArray delta(static_cast<py::ssize_t>(keep_delta ? core_->m() : 0));
        double *po = out.mutable_data(), *pe = out_e.mutable_data(), *pa = along.mutable_data();
        double* pd = keep_delta ? delta.mutable_data() : nullptr;
        {
            py::gil_scoped_release release;
            core_->product(w ? w->data() : nullptr, f_dd.data(), f_d ? f_d->data() : nullptr, vr.data(), ve.data(),
                          shift ? shift->data() : nullptr, add ? add->data() : nullptr, po, pe, pa, pd, n_threads);
        }
        return py::make_tuple(out, out_e, along, keep_delta ? py::object(delta) : py::object(py::none()));
    }

  private:
    IntIn nodes_, lo_, hi_;
    std::int64_t size_, n_pp_;
    std::unique_ptr<discrank::DiscRows> core_;
};

}  // namespace

void bind_disc_rows(py::module_& m) {
    py::class_<PyDiscRows>(m, "DiscRows",
                           "The rows (lo, hi) between player-periods (n_pp) with k disc components, nodes (k, 4, m) "
                           "(u_lo, v_lo, u_hi, v_hi of each) into a parameter block of `size`")
        .def(py::init<IntIn, std::int64_t, IntIn, IntIn, std::int64_t>(), py::arg("nodes").noconvert(), py::arg("size"),
             py::arg("lo").noconvert(), py::arg("hi").noconvert(), py::arg("n_pp"))
        .def("term", &PyDiscRows::term, py::arg("w").noconvert(), py::arg("n_threads") = 0,
             "each row's term sum_j w[u_lo] w[v_hi] - w[v_lo] w[u_hi]")
        .def("net", &PyDiscRows::net, py::arg("w").noconvert(), py::arg("c").noconvert(), py::arg("out").noconvert(),
             py::arg("f") = py::none(), py::arg("v") = py::none(), py::arg("n_threads") = 0,
             "out += J^T c at w, and with f and v the second-order part sum_r f_r d''_r v (in place)")
        .def("product", &PyDiscRows::product, py::arg("w").noconvert(), py::arg("f_dd").noconvert(),
             py::arg("f_d").noconvert(), py::arg("vr").noconvert(), py::arg("ve").noconvert(),
             py::arg("shift") = py::none(), py::arg("add") = py::none(), py::arg("keep_delta") = false,
             py::arg("n_threads") = 0,
             "(out, out_e, along, delta or None): the games' Hessian times (vr, ve) in the ratings and the block's disc");
}

}  // namespace discrank_py
