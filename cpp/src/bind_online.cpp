// Python glue of the sequential rating updates (online.hpp).
#include <cmath>

#include "bind.hpp"
#include "discrank/checks.hpp"
#include "discrank/online.hpp"

namespace discrank_py {

namespace {

// Runs the updates in place on `ratings` (Elo: s; disc: strength then consistency, 2 x n).
py::tuple online(bool disc, const IntIn& a, const IntIn& b, const FloatIn& score, double step, FloatArray ratings,
                 std::int64_t every) {
    if (ratings.ndim() != (disc ? 2 : 1) || (disc && ratings.shape(0) != 2))
        throw py::value_error(std::string("ratings must have shape ") + (disc ? "(2, n)" : "(n,)") + ", got " +
                              shape_str(ratings));
    const std::int64_t n = ratings.shape(ratings.ndim() - 1);
    const std::int64_t T = common_length("a, b and score", {{"a", &a}, {"b", &b}, {"score", &score}});
    discrank::check_pairs(n, T, a.data(), b.data(), discrank::PairRule::distinct, "game");
    if (!std::isfinite(step) || step <= 0) throw py::value_error("step must be a positive finite number");
    if (every < 0) throw py::value_error("every must be >= 0");
    FloatArray pred(static_cast<py::ssize_t>(T));
    const std::int64_t rows = every > 0 ? T / every : 0;
    FloatArray snaps({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(disc ? 2 * n : n)});
    double* r = ratings.mutable_data();
    {
        py::gil_scoped_release release;
        if (disc)
            discrank::online_disc(T, a.data(), b.data(), score.data(), step, n, r, r + n, pred.mutable_data(), every,
                                  snaps.mutable_data());
        else
            discrank::online_elo(T, a.data(), b.data(), score.data(), step, n, r, pred.mutable_data(), every,
                                 snaps.mutable_data());
    }
    return py::make_tuple(pred, snaps);
}

}  // namespace

void bind_online(py::module_& m) {
    for (const bool disc : {false, true})
        m.def(
            disc ? "online_disc" : "online_elo",
            [disc](const IntIn& a, const IntIn& b, const FloatIn& score, double step, FloatArray ratings,
                   std::int64_t every) { return online(disc, a, b, score, step, ratings, every); },
            py::arg("a").noconvert(), py::arg("b").noconvert(), py::arg("score").noconvert(), py::arg("step"),
            py::arg("ratings").noconvert(), py::arg("every") = 0);
}

}  // namespace discrank_py
