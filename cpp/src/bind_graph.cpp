// Python glue of the graph pieces (graph.hpp).
#include "bind.hpp"
#include "discrank/checks.hpp"
#include "discrank/graph.hpp"

namespace discrank_py {

namespace {

// The pair arrays of the graph kernels: 1-D, the same length, every index in [0, n). Returns their length.
std::int64_t check_graph(std::int64_t n, const IntIn& i, const IntIn& j) {
    const std::int64_t m = common_length("i and j", {{"i", &i}, {"j", &j}});
    check_player_count(n, 0);
    discrank::check_pairs(n, m, i.data(), j.data(), discrank::PairRule::in_range, "pair");
    return m;
}

py::tuple connected_pieces(std::int64_t n, const IntIn& i, const IntIn& j) {
    const std::int64_t m = check_graph(n, i, j);
    IntArray piece(static_cast<py::ssize_t>(n));
    std::int32_t* pp = piece.mutable_data();
    std::int64_t count;
    {
        py::gil_scoped_release release;
        count = discrank::connected_pieces(n, m, i.data(), j.data(), pp);
    }
    return py::make_tuple(count, piece);
}

py::tuple beat_pieces(std::int64_t n, const IntIn& i, const IntIn& j, const FloatIn& p) {
    const std::int64_t m = check_graph(n, i, j);
    check_vector(p, m, "p");
    IntArray comp(static_cast<py::ssize_t>(n));
    std::int32_t* pc = comp.mutable_data();
    std::int64_t count;
    {
        py::gil_scoped_release release;
        count = discrank::beat_pieces(n, m, i.data(), j.data(), p.data(), pc);
    }
    return py::make_tuple(count, comp);
}

}  // namespace

void bind_graph(py::module_& m) {
    m.def("connected_pieces", &connected_pieces, py::arg("n"), py::arg("i").noconvert(), py::arg("j").noconvert());
    m.def("beat_pieces", &beat_pieces, py::arg("n"), py::arg("i").noconvert(), py::arg("j").noconvert(),
          py::arg("p").noconvert());
}

}  // namespace discrank_py
