// Python glue of the whole-history problem (history.hpp).
#include "bind.hpp"
#include "discrank/history.hpp"

#include <iomanip>
#include <memory>
#include <sstream>
#include <optional>
#include <string>
#include <vector>

namespace discrank_py {

namespace {

// x as Python's repr writes a float in a message (up to 17 significant digits: 1.5, 0, -1, 1e-05).
std::string num(double x) {
    for (int digits = 15;; digits = 17) {  // the shorter form where it reads back as x
        std::ostringstream out;
        out << std::setprecision(digits) << x;
        if (digits == 17 || std::stod(out.str()) == x) return out.str();
    }
}

std::vector<double> to_vector(const FloatIn& a) { return std::vector<double>(a.data(), a.data() + a.shape(0)); }

// Owns the rows so that the borrowed pointers of discrank::HistoryProblem stay valid.
class PyHistoryProblem {
  public:
    PyHistoryProblem(std::int64_t n_pp, std::int64_t n_eff, IntIn lo, IntIn hi, FloatIn n, FloatIn win,
                     std::optional<FloatIn> scale, std::optional<IntIn> e_lo, std::optional<IntIn> e_hi,
                     const FloatIn& chain, const FloatIn& prior, const FloatIn& eff_prior, std::optional<IntIn> player,
                     std::int64_t n_players, std::optional<FloatIn> x, const std::optional<FloatIn>& beta_prior, int draws,
                     std::optional<FloatIn> draw, std::int64_t m_results, std::optional<IntIn> owner, std::int64_t n_disc,
                     bool propensity)
        : lo_(std::move(lo)), hi_(std::move(hi)), n_(std::move(n)), win_(std::move(win)), scale_(std::move(scale)),
          e_lo_(std::move(e_lo)), e_hi_(std::move(e_hi)), player_(std::move(player)), x_(std::move(x)),
          draw_(std::move(draw)), owner_(std::move(owner)) {
        check_player_count(n_pp, 1);
        if (n_eff < 0 || n_eff > INT32_MAX) throw py::value_error("n_eff must be in [0, 2^31 - 1], got " + std::to_string(n_eff));
        const std::int64_t m = common_length("lo, hi, n and win", {{"lo", &lo_}, {"hi", &hi_}, {"n", &n_}, {"win", &win_}});
        if (scale_) check_vector(*scale_, m, "scale");
        if (e_lo_.has_value() != e_hi_.has_value()) throw py::value_error("e_lo and e_hi must be given together");
        if (e_lo_) {
            check_vector(*e_lo_, m, "e_lo");
            check_vector(*e_hi_, m, "e_hi");
        } else if (n_eff) {
            throw py::value_error("n_eff = " + std::to_string(n_eff) + " context effects need e_lo and e_hi");
        }
        check_vector(chain, n_pp - 1, "chain");
        check_vector(prior, n_pp, "prior");
        if (n_disc < 0) throw py::value_error("n_disc must be at least 0, got " + std::to_string(n_disc));
        const std::int64_t n_block = n_eff + (2 * n_disc + (propensity ? 1 : 0)) * n_players;
        if (n_disc || propensity) {
            check_player_count(n_players, 1);
            if (!owner_) throw py::value_error("the disc and draw propensities need each player-period's owner");
            check_vector(*owner_, n_pp, "owner");
            if (n_pp + n_block > INT32_MAX)
                throw py::value_error("the block after the ratings has " + std::to_string(n_block) +
                                      " entries; the core takes at most 2^31 - 1 parameters: use fewer components");
        }
        check_vector(eff_prior, n_block, "eff_prior");
        if (player_) {
            check_vector(*player_, n_pp, "player");
            check_player_count(n_players, 1);
        }
        std::int64_t n_cov = 0;
        if (x_) {
            if (x_->ndim() != 2 || x_->shape(0) != m)
                throw py::value_error("x must have shape (" + std::to_string(m) + ", n_cov), got " + shape_str(*x_));
            n_cov = x_->shape(1);
        }
        std::vector<double> bp;
        if (n_cov) {
            if (!beta_prior) throw py::value_error("covariates need beta_prior");
            check_vector(*beta_prior, n_cov, "beta_prior");
            bp = to_vector(*beta_prior);
        }
        if (draws < -1 || draws > 1) throw py::value_error("draws must be -1 (none), 0 (Davidson) or 1 (Rao-Kupper), got " +
                                                          std::to_string(draws));
        if (draws >= 0) {
            if (!draw_) throw py::value_error("a draw model needs each row's draws");
            check_vector(*draw_, m, "draw");
        }
        if (m_results < 0 || m_results > m)
            throw py::value_error("m_results must be in [0, " + std::to_string(m) + "], got " + std::to_string(m_results));
        discrank::HistoryRows rows;
        rows.m = m;
        rows.lo = lo_.data();
        rows.hi = hi_.data();
        rows.n = n_.data();
        rows.win = win_.data();
        rows.scale = scale_ ? scale_->data() : nullptr;
        rows.e_lo = e_lo_ ? e_lo_->data() : nullptr;
        rows.e_hi = e_hi_ ? e_hi_->data() : nullptr;
        rows.player = player_ ? player_->data() : nullptr;
        rows.n_players = n_players;
        rows.n_cov = n_cov;
        rows.x = n_cov ? x_->data() : nullptr;
        rows.draws = draws;
        rows.draw = draws >= 0 ? draw_->data() : nullptr;
        rows.m_results = m_results;
        rows.owner = owner_ ? owner_->data() : nullptr;
        rows.n_disc = n_disc;
        rows.propensity = propensity;
        std::vector<double> c = to_vector(chain), p = to_vector(prior), ep = to_vector(eff_prior);
        py::gil_scoped_release release;
        try {
            core_ = std::make_unique<discrank::HistoryProblem>(n_pp, n_eff, rows, std::move(c), std::move(p),
                                                               std::move(ep), std::move(bp));
        } catch (const std::invalid_argument& e) {
            py::gil_scoped_acquire acquire;
            throw py::value_error(e.what());
        }
    }

    py::tuple value_grad(const FloatIn& theta, int n_threads) {
        check_vector(theta, core_->size(), "theta");
        FloatArray grad(static_cast<py::ssize_t>(core_->size()));
        double* pg = grad.mutable_data();
        double value;
        {
            py::gil_scoped_release release;
            value = core_->value_grad(theta.data(), pg, n_threads);
        }
        return py::make_tuple(value, grad);
    }

    FloatArray hessp(const FloatIn& v, int n_threads) {
        check_vector(v, core_->size(), "v");
        FloatArray out(static_cast<py::ssize_t>(core_->size()));
        double* po = out.mutable_data();
        py::gil_scoped_release release;
        core_->hessp(v.data(), po, n_threads);
        return out;
    }

    FloatArray games_diagonal(int n_threads) const {
        FloatArray out(static_cast<py::ssize_t>(core_->local_size()));
        double* po = out.mutable_data();
        py::gil_scoped_release release;
        core_->games_diagonal(po, n_threads);
        return out;
    }

    // The global block of the Hessian at the last value_grad (covariates, then the draw parameter), with the
    // covariates' prior.
    FloatArray global_block(int n_threads) const {
        const py::ssize_t G = static_cast<py::ssize_t>(core_->size() - core_->local_size());
        std::vector<double> C;
        {
            py::gil_scoped_release release;
            C = core_->global_block(discrank::resolve_threads(n_threads));
        }
        FloatArray out({G, G});
        std::copy(C.begin(), C.end(), out.mutable_data());
        return out;
    }

    FloatArray precondition(const FloatIn& r, int n_threads) {
        check_vector(r, core_->size(), "r");
        FloatArray out(static_cast<py::ssize_t>(core_->size()));
        double* po = out.mutable_data();
        py::gil_scoped_release release;
        const int threads = discrank::resolve_threads(n_threads);
        core_->factor_preconditioner(threads);
        core_->precondition(r.data(), po, threads);
        return out;
    }

    // (theta, value, grad, n_cg, t, fallback) after one Newton step from theta (its value and gradient the
    // last value_grad's).
    py::tuple newton_step(const FloatIn& theta, double value, const FloatIn& grad, double scale, double forcing_cap,
                          double rounding, int max_cg, int n_threads, double target) {
        check_vector(theta, core_->size(), "theta");
        check_vector(grad, core_->size(), "grad");
        if (!(scale > 0.0)) throw py::value_error("scale must be positive, got " + num(scale));
        if (!(forcing_cap > 0.0 && forcing_cap < 1.0))
            throw py::value_error("forcing_cap must be in (0, 1), got " + num(forcing_cap));
        if (max_cg < 1) throw py::value_error("max_cg must be at least 1, got " + std::to_string(max_cg));
        const py::ssize_t size = static_cast<py::ssize_t>(core_->size());
        FloatArray th(size), g(size);
        double* pt = th.mutable_data();
        double* pg = g.mutable_data();
        discrank::HistoryStep step;
        {
            py::gil_scoped_release release;
            std::copy(theta.data(), theta.data() + size, pt);
            std::copy(grad.data(), grad.data() + size, pg);
            try {
                step = core_->newton_step(pt, value, pg, scale, forcing_cap, rounding, max_cg, n_threads, target);
            } catch (const std::runtime_error& e) {
                py::gil_scoped_acquire acquire;
                throw py::value_error(e.what());
            }
        }
        return py::make_tuple(th, value, g, step.n_cg, step.t, step.fallback);
    }

  private:
    IntIn lo_, hi_;
    FloatIn n_, win_;
    std::optional<FloatIn> scale_;
    std::optional<IntIn> e_lo_, e_hi_, player_;
    std::optional<FloatIn> x_, draw_;
    std::optional<IntIn> owner_;
    std::unique_ptr<discrank::HistoryProblem> core_;
};

}  // namespace

void bind_history(py::module_& m) {
    py::class_<PyHistoryProblem>(m, "HistoryProblem",
                                 "The whole-history problem's rows over player-periods (with context effects, the disc, draw "
                                 "propensities), its chains and priors: value, gradient, Hessian products and Newton steps")
        .def(py::init<std::int64_t, std::int64_t, IntIn, IntIn, FloatIn, FloatIn, std::optional<FloatIn>,
                      std::optional<IntIn>, std::optional<IntIn>, const FloatIn&, const FloatIn&, const FloatIn&,
                      std::optional<IntIn>, std::int64_t, std::optional<FloatIn>, const std::optional<FloatIn>&, int,
                      std::optional<FloatIn>, std::int64_t, std::optional<IntIn>, std::int64_t, bool>(),
             py::arg("n_pp"), py::arg("n_eff"), py::arg("lo").noconvert(), py::arg("hi").noconvert(),
             py::arg("n").noconvert(), py::arg("win").noconvert(), py::arg("scale").noconvert().none(true),
             py::arg("e_lo").noconvert().none(true), py::arg("e_hi").noconvert().none(true),
             py::arg("chain").noconvert(), py::arg("prior").noconvert(), py::arg("eff_prior").noconvert(),
             py::arg("player").noconvert().none(true) = py::none(), py::arg("n_players") = 0,
             py::arg("x").noconvert().none(true) = py::none(), py::arg("beta_prior").noconvert().none(true) = py::none(),
             py::arg("draws") = -1, py::arg("draw").noconvert().none(true) = py::none(), py::arg("m_results") = 0,
             py::arg("owner").noconvert().none(true) = py::none(), py::arg("n_disc") = 0, py::arg("propensity") = false)
        .def("value_grad", &PyHistoryProblem::value_grad, py::arg("theta").noconvert(), py::arg("n_threads") = 0,
             "(value, gradient) at theta; keeps each row's curvature for the Hessian")
        .def("hessp", &PyHistoryProblem::hessp, py::arg("v").noconvert(), py::arg("n_threads") = 0,
             "The Hessian at the last value_grad times v")
        .def("games_diagonal", &PyHistoryProblem::games_diagonal, py::arg("n_threads") = 0,
             "The games' part of the Hessian's diagonal at the last value_grad")
        .def("global_block", &PyHistoryProblem::global_block, py::arg("n_threads") = 0,
             "The Hessian's global block (covariates, draw parameter) at the last value_grad, with the covariates' prior")
        .def("precondition", &PyHistoryProblem::precondition, py::arg("r").noconvert(), py::arg("n_threads") = 0,
             "The Newton step's preconditioner at the last value_grad applied to r")
        .def("newton_step", &PyHistoryProblem::newton_step, py::arg("theta").noconvert(), py::arg("value"),
             py::arg("grad").noconvert(), py::arg("scale"), py::arg("forcing_cap"), py::arg("rounding"),
             py::arg("max_cg") = 500, py::arg("n_threads") = 0, py::arg("target") = 0.0,
             "(theta, value, grad, n_cg, t, fallback) after one inexact Newton step with its line search");
}

}  // namespace discrank_py
