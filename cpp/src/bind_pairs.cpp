// Python glue of the pair orders and groupings (pairs.hpp): group_pairs, aggregate_games, tile_pairs.
#include <vector>

#include "bind.hpp"
#include "discrank/checks.hpp"
#include "discrank/pairs.hpp"
#include "discrank/threads.hpp"

namespace discrank_py {

namespace {

py::tuple group_pairs(std::int64_t n, const IntIn& lo, const IntIn& hi, int n_threads) {
    const std::int64_t m = common_length("lo and hi", {{"lo", &lo}, {"hi", &hi}});
    if (m > INT32_MAX) throw py::value_error("at most 2^31 - 1 entries are supported");
    check_player_count(n, 1);
    discrank::check_pairs(n, m, lo.data(), hi.data(), discrank::PairRule::increasing, "entry");
    IntArray inverse(static_cast<py::ssize_t>(m));
    std::int32_t* pinv = inverse.mutable_data();
    IntArray out_lo, out_hi;
    {
        py::gil_scoped_release release;
        discrank::group_pairs(
            n, m, lo.data(), hi.data(), pinv,
            [&](std::int64_t k) {
                py::gil_scoped_acquire acquire;
                out_lo = IntArray(static_cast<py::ssize_t>(k));
                out_hi = IntArray(static_cast<py::ssize_t>(k));
                return discrank::PairOut{out_lo.mutable_data(), out_hi.mutable_data(), nullptr, nullptr};
            },
            discrank::resolve_threads(n_threads));
    }
    return py::make_tuple(inverse, out_lo, out_hi);
}

py::tuple aggregate_games(std::int64_t n, const IntIn& a, const IntIn& b, const FloatIn& score,
                          const std::optional<FloatIn>& count, int n_threads) {
    const std::int64_t m = common_length("a, b and score", {{"a", &a}, {"b", &b}, {"score", &score}});
    if (count) check_vector(*count, m, "count");
    if (m > INT32_MAX) throw py::value_error("at most 2^31 - 1 games are supported");
    check_player_count(n, 1);
    discrank::check_pairs(n, m, a.data(), b.data(), discrank::PairRule::distinct, "game");
    IntArray olo, ohi;
    FloatArray og, ow;
    {
        py::gil_scoped_release release;
        discrank::aggregate_games(
            n, m, a.data(), b.data(), score.data(), count ? count->data() : nullptr,
            [&](std::int64_t k) {
                py::gil_scoped_acquire acquire;
                const auto size = static_cast<py::ssize_t>(k);
                olo = IntArray(size);
                ohi = IntArray(size);
                og = FloatArray(size);
                ow = FloatArray(size);
                return discrank::PairOut{olo.mutable_data(), ohi.mutable_data(), og.mutable_data(), ow.mutable_data()};
            },
            discrank::resolve_threads(n_threads));
    }
    return py::make_tuple(olo, ohi, og, ow);
}

py::tuple tile_pairs(std::int64_t n, const IntIn& i, const IntIn& j, const std::vector<FloatIn>& cols, int tile_bits,
                     int n_threads) {
    const std::int64_t m = common_length("i and j", {{"i", &i}, {"j", &j}});
    check_player_count(n, 0);
    discrank::check_pairs(n, m, i.data(), j.data(), discrank::PairRule::in_range, "pair");
    if (tile_bits < 0 || tile_bits > 30)
        throw py::value_error("tile_bits must be in [0, 30], got " + std::to_string(tile_bits));
    std::vector<const double*> in;
    std::vector<double*> out;
    py::list moved;
    for (std::size_t c = 0; c < cols.size(); ++c) {
        check_vector(cols[c], m, ("cols[" + std::to_string(c) + "]").c_str());
        FloatArray col(static_cast<py::ssize_t>(m));
        in.push_back(cols[c].data());
        out.push_back(col.mutable_data());
        moved.append(col);
    }
    IntArray oi(static_cast<py::ssize_t>(m)), oj(static_cast<py::ssize_t>(m));
    std::int32_t* pi = oi.mutable_data();
    std::int32_t* pj = oj.mutable_data();
    {
        py::gil_scoped_release release;
        discrank::tile_pairs(n, m, i.data(), j.data(), in.data(), static_cast<int>(in.size()), tile_bits, pi, pj,
                             out.data(), discrank::resolve_threads(n_threads));
    }
    return py::make_tuple(oi, oj, moved);
}

}  // namespace

void bind_pairs(py::module_& m) {
    m.def("group_pairs", &group_pairs, py::arg("n"), py::arg("lo").noconvert(), py::arg("hi").noconvert(),
          py::arg("n_threads") = 0);
    m.def("aggregate_games", &aggregate_games, py::arg("n"), py::arg("a").noconvert(), py::arg("b").noconvert(),
          py::arg("score").noconvert(), py::arg("count").noconvert() = py::none(), py::arg("n_threads") = 0);
    m.def("tile_pairs", &tile_pairs, py::arg("n"), py::arg("i").noconvert(), py::arg("j").noconvert(),
          py::arg("cols"), py::arg("tile_bits") = 11, py::arg("n_threads") = 0,
          "(i, j, [cols]) moved into the order that keeps the objective's accesses in cache: stable by "
          "j >> tile_bits");
}

}  // namespace discrank_py
