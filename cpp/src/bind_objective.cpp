// Python glue of the objective (objective.hpp): PairObjective, scores, the loss ids, and the
// vectorised exp and log1p of fastmath.hpp for their accuracy test.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "bind.hpp"
#include "discrank/checks.hpp"
#include "discrank/fastmath.hpp"
#include "discrank/losses.hpp"
#include "discrank/objective.hpp"
#include "discrank/stream_limit.hpp"

namespace discrank_py {

namespace {

// The parameters U, V (n x k, given together) and/or s (n) as the core reads them; raises
// ValueError for a wrong shape or when neither is given.
discrank::Params check_params(std::int64_t n, const std::optional<FloatIn>& U, const std::optional<FloatIn>& V,
                                     const std::optional<FloatIn>& s) {
    discrank::Params x;
    if (U.has_value() != V.has_value()) throw py::value_error("U and V must be given together");
    if (U) {
        if (U->ndim() != 2 || U->shape(0) != n)
            throw py::value_error("U must have shape (" + std::to_string(n) + ", k), got " + shape_str(*U));
        if (V->ndim() != 2 || V->shape(0) != n || V->shape(1) != U->shape(1))
            throw py::value_error("V must have the shape of U " + shape_str(*U) + ", got " + shape_str(*V));
        x.U = U->data();
        x.V = V->data();
        x.k = static_cast<int>(U->shape(1));
    }
    if (s) {
        check_vector(*s, n, "s");
        x.s = s->data();
    }
    if (!x.s && x.k == 0) throw py::value_error("give U and V, s, or both");
    return x;
}

discrank::Loss to_loss(int loss) {
    if (loss < 0 || loss > 3) throw py::value_error("unknown loss id " + std::to_string(loss));
    return static_cast<discrank::Loss>(loss);
}

discrank::DrawModel to_draw_model(int model) {
    if (model < 0 || model > 1) throw py::value_error("unknown draw model id " + std::to_string(model));
    return static_cast<discrank::DrawModel>(model);
}

// The draw model's per-pair terms (draw_block) at scores d: (w L, w dL/dd, w d2L/dd2, w dL/deta,
// w d2L/dd deta, w d2L/deta2), each of d's length.
py::tuple draw_terms(int model, const FloatIn& d, const FloatIn& y, const FloatIn& q, const FloatIn& w, double eta,
                     const std::optional<FloatIn>& eta_rows) {
    const discrank::DrawModel id = to_draw_model(model);
    const std::int64_t m = common_length("d, y, q and w", {{"d", &d}, {"y", &y}, {"q", &q}, {"w", &w}});
    if (eta_rows && eta_rows->size() != m)
        throw py::value_error("eta_rows has " + std::to_string(eta_rows->size()) + " entries for " + std::to_string(m) +
                              " games");
    const double* per_row = eta_rows ? eta_rows->data() : nullptr;
    const auto len = static_cast<py::ssize_t>(m);
    FloatArray f(len), fd(len), fdd(len), fe(len), fde(len), fee(len);
    {
        py::gil_scoped_release release;
        discrank::draw_block(id, m, y.data(), q.data(), w.data(), d.data(), eta, per_row, f.mutable_data(), fd.mutable_data(),
                             fdd.mutable_data(), fe.mutable_data(), fee.mutable_data(), fde.mutable_data());
    }
    return py::make_tuple(f, fd, fdd, fe, fde, fee);
}

// Owns references to the pair arrays so that the borrowed pointers in PairObjective stay valid.
class PyObjective {
  public:
    PyObjective(std::int64_t n_players, IntIn i, IntIn j, FloatIn y, FloatIn w, const std::string& strategy,
                const std::optional<std::tuple<std::int64_t, std::int64_t, int, int>>& part)
        : i_(std::move(i)), j_(std::move(j)), y_(std::move(y)), w_(std::move(w)), part_(part.has_value()) {
        using S = discrank::PairObjective::Strategy;
        S strat;
        if (strategy == "auto")
            strat = S::automatic;
        else if (strategy == "scatter")
            strat = S::scatter;
        else if (strategy == "gather")
            strat = S::gather;
        else
            throw py::value_error("strategy must be 'auto', 'scatter' or 'gather', got '" + strategy + "'");
        const std::int64_t m = common_length("i, j, y and w", {{"i", &i_}, {"j", &j_}, {"y", &y_}, {"w", &w_}});
        discrank::Layout layout;
        if (part) std::tie(layout.total_pairs, layout.first_pair, layout.leaf_lo, layout.leaf_hi) = *part;
        try {
            core_ = std::make_unique<discrank::PairObjective>(n_players, i_.data(), j_.data(), y_.data(), w_.data(),
                                                              m, strat, layout);
        } catch (const std::invalid_argument& e) {
            throw py::value_error(e.what());
        }
    }

    py::tuple evaluate(int loss, const std::optional<FloatIn>& U, const std::optional<FloatIn>& V,
                       const std::optional<FloatIn>& s, const std::optional<FloatIn>& offset, bool grad_u,
                       bool grad_v, bool grad_s, std::optional<FloatArray> curv, int n_threads) {
        return run(to_loss(loss), U, V, s, offset, grad_u, grad_v, grad_s, std::move(curv), n_threads, nullptr);
    }

    // evaluate with a draw model: the pairs' targets are their score shares, q their draw shares.
    py::tuple evaluate_draws(int model, const FloatIn& q, double eta, const std::optional<FloatIn>& U,
                             const std::optional<FloatIn>& V, const std::optional<FloatIn>& s,
                             const std::optional<FloatIn>& offset, bool grad_u, bool grad_v, bool grad_s,
                             std::optional<FloatArray> curv, int n_threads) {
        discrank::DrawTerms draw;
        draw.model = to_draw_model(model);
        check_vector(q, core_->n_pairs(), "q");
        draw.q = q.data();
        draw.eta = eta;
        py::tuple out = run(discrank::Loss::bce, U, V, s, offset, grad_u, grad_v, grad_s, std::move(curv), n_threads,
                            &draw);
        return py::make_tuple(out[0], out[1], out[2], out[3], draw.grad, draw.curv);
    }

    py::tuple run(discrank::Loss id, const std::optional<FloatIn>& U, const std::optional<FloatIn>& V,
                  const std::optional<FloatIn>& s, const std::optional<FloatIn>& offset, bool grad_u, bool grad_v,
                  bool grad_s, std::optional<FloatArray> curv, int n_threads, discrank::DrawTerms* draw) {
        const std::int64_t n = core_->n_players();
        const discrank::Params x = check_params(n, U, V, s);
        if (offset) check_vector(*offset, core_->n_pairs(), "offset");
        if ((grad_u || grad_v) && x.k == 0) throw py::value_error("a gradient in U or V needs U and V");
        if (grad_s && !x.s) throw py::value_error("a gradient in s needs s");
        const auto rows = static_cast<py::ssize_t>(n), cols = static_cast<py::ssize_t>(x.k);
        py::object gU = py::none(), gV = py::none(), gs = py::none();
        discrank::Grads g;
        if (grad_u) {
            FloatArray a = per_node({rows, cols});
            g.U = a.mutable_data();
            gU = a;
        }
        if (grad_v) {
            FloatArray a = per_node({rows, cols});
            g.V = a.mutable_data();
            gV = a;
        }
        if (grad_s) {
            FloatArray a = per_node({rows});
            g.s = a.mutable_data();
            gs = a;
        }
        double* pcurv = nullptr;
        if (curv) {
            check_vector(*curv, core_->n_pairs(), "curv");
            if (!curv->writeable()) throw py::value_error("curv must be writeable");
            pcurv = curv->mutable_data();
        }
        double value;
        {
            py::gil_scoped_release release;
            value = core_->evaluate(id, x, offset ? offset->data() : nullptr, g, pcurv, n_threads, draw);
        }
        return py::make_tuple(value, gU, gV, gs);
    }

    FloatArray hessp_s(const FloatIn& curv, const FloatIn& x, int n_threads) {
        check_vector(curv, core_->n_pairs(), "curv");
        check_vector(x, core_->n_players(), "x");
        return per_player([&](double* out) { core_->hessp_s(curv.data(), x.data(), out, n_threads); });
    }

    FloatArray player_sums(const FloatIn& v, int n_threads) {
        check_vector(v, core_->n_pairs(), "v");
        return per_player([&](double* out) { core_->player_sums(v.data(), out, n_threads); });
    }

    FloatArray opponent_sums(const FloatIn& v, const FloatIn& c, int n_threads) {
        check_vector(v, core_->n_pairs(), "v");
        check_vector(c, core_->n_players(), "c");
        return per_player([&](double* out) { core_->opponent_sums(v.data(), c.data(), out, n_threads); });
    }

    py::tuple score_sums(int n_threads) {
        const auto n = static_cast<py::ssize_t>(core_->n_players());
        FloatArray total = per_node({n}), scored = per_node({n}), conceded = per_node({n});
        {
            py::gil_scoped_release release;
            core_->score_sums(total.mutable_data(), scored.mutable_data(), conceded.mutable_data(), n_threads);
        }
        return py::make_tuple(total, scored, conceded);
    }

    double stream_limit(int loss, int n_threads) {
        const discrank::Loss id = to_loss(loss);
        py::gil_scoped_release release;
        return discrank::stream_limit(core_->pairs(), id, n_threads);
    }

    std::int64_t n_players() const { return core_->n_players(); }
    std::int64_t n_pairs() const { return core_->n_pairs(); }
    std::string strategy() const { return core_->scatter() ? "scatter" : "gather"; }
    py::list nodes() const {
        py::list out;
        for (const auto& [first, level] : core_->nodes()) out.append(py::make_tuple(first, level));
        return out;
    }
    FloatArray block_losses() const {
        const std::vector<double>& b = core_->block_losses();
        FloatArray out(static_cast<py::ssize_t>(b.size()));
        std::copy(b.begin(), b.end(), out.mutable_data());
        return out;
    }

  private:
    // A new array of the given shape; built with a part, of one such row per node.
    FloatArray per_node(std::vector<py::ssize_t> shape) const {
        if (part_) shape.insert(shape.begin(), static_cast<py::ssize_t>(core_->n_nodes()));
        return FloatArray(shape);
    }

    // A new array of one value per player (per node and player when built with a part), filled by
    // fill(data) without the GIL.
    template <class Fill>
    FloatArray per_player(Fill fill) {
        FloatArray out = per_node({static_cast<py::ssize_t>(core_->n_players())});
        double* po = out.mutable_data();
        {
            py::gil_scoped_release release;
            fill(po);
        }
        return out;
    }

    IntArray i_, j_;
    FloatArray y_, w_;
    bool part_;  // built with a part: every per-player output has a leading node axis
    std::unique_ptr<discrank::PairObjective> core_;
};

// The compensated sum of x in order (PairObjective's sum of its blocks' losses).
double compensated_sum(const FloatIn& x) {
    if (x.ndim() != 1) throw py::value_error("x must be 1-D, got shape " + shape_str(x));
    return discrank::compensated_sum(x.data(), x.shape(0));
}

FloatArray scores(IntIn a, IntIn b, std::int64_t n_players, const std::optional<FloatIn>& U,
                  const std::optional<FloatIn>& V, const std::optional<FloatIn>& s, int n_threads) {
    const discrank::Params x = check_params(n_players, U, V, s);
    const std::int64_t q = common_length("a and b", {{"a", &a}, {"b", &b}});
    discrank::check_pairs(n_players, q, a.data(), b.data(), discrank::PairRule::in_range, "pair");
    FloatArray out(static_cast<py::ssize_t>(q));
    double* po = out.mutable_data();
    {
        py::gil_scoped_release release;
        discrank::scores(x, q, a.data(), b.data(), po, n_threads);
    }
    return out;
}

py::tuple fast_exp_log1p(const FloatIn& x) {
    if (x.ndim() != 1) throw py::value_error("x must be 1-D, got shape " + shape_str(x));
    const py::ssize_t len = x.shape(0);
    FloatArray e(len), l(len);
    const double* px = x.data();
    double* pe = e.mutable_data();
    double* pl = l.mutable_data();
    for (py::ssize_t t = 0; t < len; ++t) {
        pe[t] = discrank::fastmath::exp_nonpos(-std::fabs(px[t]));
        pl[t] = discrank::fastmath::log1p_unit(pe[t]);
    }
    return py::make_tuple(e, l);
}

}  // namespace

void bind_objective(py::module_& m) {
    m.attr("REDUCTION_LEAVES") = discrank::kChunks;
    m.attr("BLOCK_PAIRS") = discrank::kBlock;
    m.def("compensated_sum", &compensated_sum, py::arg("x").noconvert());
    m.attr("LOSS_BCE") = static_cast<int>(discrank::Loss::bce);
    m.attr("LOSS_SQUARED_LOGIT") = static_cast<int>(discrank::Loss::squared_logit);
    m.attr("LOSS_PROBABILITY") = static_cast<int>(discrank::Loss::probability);
    m.attr("LOSS_SIGMOID_SQUARED") = static_cast<int>(discrank::Loss::sigmoid_squared);
    m.attr("DRAW_DAVIDSON") = static_cast<int>(discrank::DrawModel::davidson);
    m.attr("DRAW_RAO_KUPPER") = static_cast<int>(discrank::DrawModel::rao_kupper);
    m.def("draw_terms", &draw_terms, py::arg("model"), py::arg("d").noconvert(), py::arg("y").noconvert(),
          py::arg("q").noconvert(), py::arg("w").noconvert(), py::arg("eta"),
          py::arg("eta_rows").noconvert() = py::none(),
          "a draw model's per-pair terms at scores d: (w L, w dL/dd, w d2L/dd2, w dL/deta, w d2L/dd deta, "
          "w d2L/deta2), y the score shares, q the draw shares, w the weights, eta the draw parameter (eta_rows: "
          "each game's own, in place of eta)");

    py::class_<PyObjective>(m, "PairObjective")
        .def(py::init<std::int64_t, IntIn, IntIn, FloatIn, FloatIn, const std::string&,
                      const std::optional<std::tuple<std::int64_t, std::int64_t, int, int>>&>(),
             py::arg("n_players"), py::arg("i").noconvert(), py::arg("j").noconvert(), py::arg("y").noconvert(),
             py::arg("w").noconvert(), py::arg("strategy") = "auto", py::arg("part") = py::none(),
             "part: (total_pairs, first_pair, leaf_lo, leaf_hi), the pairs being those of a larger set that are "
             "its leaves [leaf_lo, leaf_hi) of the reduction tree; each per-player output then has a leading "
             "axis, one row per node of `nodes` (one, the sum itself, for a part holding every leaf)")
        .def_property_readonly("nodes", &PyObjective::nodes,
                               "the (first leaf, level) of each node of the reduction tree the outputs hold")
        .def("block_losses", &PyObjective::block_losses,
             "the last evaluation's loss per block of pairs (its value is their compensated_sum)")
        .def_property_readonly("n_players", &PyObjective::n_players)
        .def_property_readonly("n_pairs", &PyObjective::n_pairs)
        .def_property_readonly("strategy", &PyObjective::strategy)
        .def("score_sums", &PyObjective::score_sums, py::arg("n_threads") = 0,
             "(total, scored, conceded) per player: the sums over their pairs of w, of w times their score, "
             "of w times the opponent's score")
        .def("hessp_s", &PyObjective::hessp_s, py::arg("curv").noconvert(), py::arg("x").noconvert(),
             py::arg("n_threads") = 0)
        .def("player_sums", &PyObjective::player_sums, py::arg("v").noconvert(), py::arg("n_threads") = 0)
        .def("opponent_sums", &PyObjective::opponent_sums, py::arg("v").noconvert(), py::arg("c").noconvert(),
             py::arg("n_threads") = 0)
        .def("stream_limit", &PyObjective::stream_limit, py::arg("loss"), py::arg("n_threads") = 0)
        .def("evaluate", &PyObjective::evaluate, py::arg("loss"), py::arg("U").noconvert() = py::none(),
             py::arg("V").noconvert() = py::none(), py::arg("s").noconvert() = py::none(),
             py::arg("offset").noconvert() = py::none(), py::arg("grad_u") = false, py::arg("grad_v") = false,
             py::arg("grad_s") = false, py::arg("curv").noconvert() = py::none(), py::arg("n_threads") = 0)
        .def("evaluate_draws", &PyObjective::evaluate_draws, py::arg("model"), py::arg("q").noconvert(),
             py::arg("eta"), py::arg("U").noconvert() = py::none(), py::arg("V").noconvert() = py::none(),
             py::arg("s").noconvert() = py::none(), py::arg("offset").noconvert() = py::none(),
             py::arg("grad_u") = false, py::arg("grad_v") = false, py::arg("grad_s") = false,
             py::arg("curv").noconvert() = py::none(), py::arg("n_threads") = 0,
             "evaluate with a draw model (DRAW_DAVIDSON, DRAW_RAO_KUPPER): the targets y are the pairs' score "
             "shares, q their draw shares, eta the draw parameter; returns (value, grad U, grad V, grad s, "
             "dL/deta, d2L/deta2)");

    m.def("scores", &scores, py::arg("a").noconvert(), py::arg("b").noconvert(), py::arg("n_players"),
          py::arg("U").noconvert() = py::none(), py::arg("V").noconvert() = py::none(),
          py::arg("s").noconvert() = py::none(), py::arg("n_threads") = 0);
    m.def("fast_exp_log1p", &fast_exp_log1p, py::arg("x").noconvert());
}

}  // namespace discrank_py
