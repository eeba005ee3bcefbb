// Python glue for the header-only core. Input arrays are In<T>: an ndarray of exactly the kernel's
// dtype crosses without a copy when it is C-contiguous and aligned (the no-copy contract the fits rely
// on: they pass such arrays on every call); a strided view of that dtype (s[::2], a column G[:, 2]) is
// copied once to C order at this boundary. A wrong dtype or a non-array is a TypeError, never a silent
// conversion of values. Arrays the core writes into (online's ratings, evaluate's curv) must be
// C-contiguous float64 themselves: a copy would lose the writes. Every kernel call releases the GIL;
// thread counts are clamped by the core (threads.hpp).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "discrank/checks.hpp"
#include "discrank/graph.hpp"
#include "discrank/labels.hpp"
#include "discrank/objective.hpp"
#include "discrank/online.hpp"

namespace py = pybind11;

namespace {

using IntArray = py::array_t<std::int32_t, py::array::c_style>;
using FloatArray = py::array_t<double, py::array::c_style>;

// An input array of dtype T, C-contiguous and aligned: see In's caster below.
template <class T>
class In : public py::array_t<T, py::array::c_style> {
  public:
    using py::array_t<T, py::array::c_style>::array_t;
};
using IntIn = In<std::int32_t>;
using FloatIn = In<double>;

}  // namespace

namespace pybind11::detail {

// Loads an ndarray whose dtype is equivalent to T, with any strides: as is when C-contiguous and aligned
// (no copy), else through numpy.require(..., "CA") (one copy in C order). Anything else does not load,
// so the call is a TypeError naming the expected signature.
template <class T>
struct pyobject_caster<In<T>> {
    bool load(handle src, bool /*convert*/) {
        if (!array_t<T, array::forcecast>::check_(src)) return false;  // an ndarray of dtype T, any layout
        const auto flags = reinterpret_borrow<array>(src).flags();
        if ((flags & npy_api::NPY_ARRAY_C_CONTIGUOUS_) && (flags & npy_api::NPY_ARRAY_ALIGNED_)) {
            value = reinterpret_borrow<In<T>>(src);
        } else {
            value = reinterpret_steal<In<T>>(
                module_::import("numpy").attr("require")(src, none(), "CA").release());
        }
        return true;
    }
    static handle cast(const handle& src, return_value_policy, handle) { return src.inc_ref(); }
    PYBIND11_TYPE_CASTER(In<T>, (handle_type_name<array_t<T, array::c_style>>::name));
};

}  // namespace pybind11::detail

namespace {

std::string shape_str(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) s += (d ? ", " : "") + std::to_string(a.shape(d));
    return s + (a.ndim() == 1 ? ",)" : ")");
}

void check_vector(const FloatArray& a, std::int64_t len, const char* name) {
    if (a.ndim() != 1 || a.shape(0) != len)
        throw py::value_error(std::string(name) + " must have shape (" + std::to_string(len) + ",), got " +
                              shape_str(a));
}

struct Factors {
    const double* U = nullptr;
    const double* V = nullptr;
    int k = 0;
    const double* s = nullptr;
};

Factors check_factors(std::int64_t n, const std::optional<FloatIn>& U, const std::optional<FloatIn>& V,
                      const std::optional<FloatIn>& s) {
    Factors f;
    if (U.has_value() != V.has_value()) throw py::value_error("U and V must be given together");
    if (U) {
        if (U->ndim() != 2 || U->shape(0) != n)
            throw py::value_error("U must have shape (" + std::to_string(n) + ", k), got " + shape_str(*U));
        if (V->ndim() != 2 || V->shape(0) != n || V->shape(1) != U->shape(1))
            throw py::value_error("V must have the shape of U " + shape_str(*U) + ", got " + shape_str(*V));
        f.U = U->data();
        f.V = V->data();
        f.k = static_cast<int>(U->shape(1));
    }
    if (s) {
        check_vector(*s, n, "s");
        f.s = s->data();
    }
    if (!f.s && f.k == 0) throw py::value_error("give U and V, s, or both");
    return f;
}

// Owns references to the pair arrays so that the borrowed pointers in PairObjective stay valid.
class PyObjective {
  public:
    PyObjective(std::int64_t n_players, IntIn i, IntIn j, FloatIn y, FloatIn w, const std::string& strategy)
        : i_(std::move(i)), j_(std::move(j)), y_(std::move(y)), w_(std::move(w)) {
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
        const std::int64_t m = i_.ndim() == 1 ? i_.shape(0) : -1;
        if (m < 0) throw py::value_error("i must be 1-D, got shape " + shape_str(i_));
        for (const py::array* a : {static_cast<const py::array*>(&j_), static_cast<const py::array*>(&y_),
                                   static_cast<const py::array*>(&w_)})
            if (a->ndim() != 1 || a->shape(0) != m)
                throw py::value_error("i, j, y and w must have the same length " + std::to_string(m) + ", got " +
                                      shape_str(*a));
        core_ = std::make_unique<discrank::PairObjective>(n_players, i_.data(), j_.data(), y_.data(), w_.data(), m,
                                                          strat);
    }

    py::tuple evaluate(int loss, const std::optional<FloatIn>& U, const std::optional<FloatIn>& V,
                       const std::optional<FloatIn>& s, const std::optional<FloatIn>& offset, bool grad_u,
                       bool grad_v, bool grad_s, std::optional<FloatArray> curv, int n_threads) {
        if (loss < 0 || loss > 3) throw py::value_error("unknown loss id " + std::to_string(loss));
        const std::int64_t n = core_->n_players();
        const Factors f = check_factors(n, U, V, s);
        if (offset) check_vector(*offset, core_->n_pairs(), "offset");
        if ((grad_u || grad_v) && f.k == 0) throw py::value_error("a gradient in U or V needs U and V");
        if (grad_s && !f.s) throw py::value_error("a gradient in s needs s");
        py::object gU = py::none(), gV = py::none(), gs = py::none();
        double* pgU = nullptr;
        double* pgV = nullptr;
        double* pgs = nullptr;
        if (grad_u) {
            FloatArray a({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(f.k)});
            pgU = a.mutable_data();
            gU = a;
        }
        if (grad_v) {
            FloatArray a({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(f.k)});
            pgV = a.mutable_data();
            gV = a;
        }
        if (grad_s) {
            FloatArray a(static_cast<py::ssize_t>(n));
            pgs = a.mutable_data();
            gs = a;
        }
        double* pcurv = nullptr;
        if (curv) {
            check_vector(*curv, core_->n_pairs(), "curv");
            if (!curv->writeable()) throw py::value_error("curv must be writeable");
            pcurv = curv->mutable_data();
        }
        discrank::Params x;
        x.offset = offset ? offset->data() : nullptr;
        x.U = f.U;
        x.V = f.V;
        x.k = f.k;
        x.s = f.s;
        discrank::Grads g;
        g.U = pgU;
        g.V = pgV;
        g.s = pgs;
        double value;
        {
            py::gil_scoped_release release;
            value = core_->evaluate(static_cast<discrank::Loss>(loss), x, g, pcurv, n_threads);
        }
        return py::make_tuple(value, gU, gV, gs);
    }

    FloatArray hessp_s(const FloatIn& curv, const FloatIn& x, int n_threads) {
        check_vector(curv, core_->n_pairs(), "curv");
        check_vector(x, core_->n_players(), "x");
        FloatArray out(static_cast<py::ssize_t>(core_->n_players()));
        double* po = out.mutable_data();
        {
            py::gil_scoped_release release;
            core_->hessp_s(curv.data(), x.data(), po, n_threads);
        }
        return out;
    }

    FloatArray player_sums(const FloatIn& v, int n_threads) {
        check_vector(v, core_->n_pairs(), "v");
        FloatArray out(static_cast<py::ssize_t>(core_->n_players()));
        double* po = out.mutable_data();
        {
            py::gil_scoped_release release;
            core_->player_sums(v.data(), po, n_threads);
        }
        return out;
    }

    FloatArray opponent_sums(const FloatIn& v, const FloatIn& c, int n_threads) {
        check_vector(v, core_->n_pairs(), "v");
        check_vector(c, core_->n_players(), "c");
        FloatArray out(static_cast<py::ssize_t>(core_->n_players()));
        double* po = out.mutable_data();
        {
            py::gil_scoped_release release;
            core_->opponent_sums(v.data(), c.data(), po, n_threads);
        }
        return out;
    }

    double stream_limit(int loss, int n_threads) {
        if (loss < 0 || loss > 3) throw py::value_error("unknown loss id " + std::to_string(loss));
        py::gil_scoped_release release;
        return core_->stream_limit(static_cast<discrank::Loss>(loss), n_threads);
    }

    std::int64_t n_players() const { return core_->n_players(); }
    std::int64_t n_pairs() const { return core_->n_pairs(); }
    std::string strategy() const { return core_->scatter() ? "scatter" : "gather"; }
    py::tuple score_sums(int n_threads) {
        const auto n = static_cast<py::ssize_t>(core_->n_players());
        FloatArray total(n), scored(n), conceded(n);
        {
            py::gil_scoped_release release;
            core_->score_sums(total.mutable_data(), scored.mutable_data(), conceded.mutable_data(), n_threads);
        }
        return py::make_tuple(total, scored, conceded);
    }

  private:
    IntArray i_, j_;
    FloatArray y_, w_;
    std::unique_ptr<discrank::PairObjective> core_;
};

FloatArray scores(IntIn a, IntIn b, std::int64_t n_players, const std::optional<FloatIn>& U,
                  const std::optional<FloatIn>& V, const std::optional<FloatIn>& s, int n_threads) {
    const Factors f = check_factors(n_players, U, V, s);
    if (a.ndim() != 1 || b.ndim() != 1 || a.shape(0) != b.shape(0))
        throw py::value_error("a and b must be 1-D of the same length, got " + shape_str(a) + " and " +
                              shape_str(b));
    const std::int64_t q = a.shape(0);
    const std::int32_t* pa = a.data();
    const std::int32_t* pb = b.data();
    for (std::int64_t t = 0; t < q; ++t)
        if (pa[t] < 0 || pa[t] >= n_players || pb[t] < 0 || pb[t] >= n_players)
            throw py::value_error("player index (" + std::to_string(pa[t]) + ", " + std::to_string(pb[t]) +
                                  ") at position " + std::to_string(t) + " is outside [0, " +
                                  std::to_string(n_players) + ")");
    FloatArray out(static_cast<py::ssize_t>(q));
    double* po = out.mutable_data();
    {
        py::gil_scoped_release release;
        discrank::PairObjective::scores(n_players, q, pa, pb, f.U, f.V, f.k, f.s, po, n_threads);
    }
    return out;
}

void check_games(const IntArray& a, const IntArray& b, const FloatArray& score, std::int64_t n) {
    if (a.ndim() != 1 || b.ndim() != 1 || score.ndim() != 1 || a.shape(0) != b.shape(0) ||
        a.shape(0) != score.shape(0))
        throw py::value_error("a, b and score must be 1-D of the same length, got " + shape_str(a) + ", " +
                              shape_str(b) + " and " + shape_str(score));
    const std::int32_t* pa = a.data();
    const std::int32_t* pb = b.data();
    for (py::ssize_t t = 0; t < a.shape(0); ++t) {
        if (pa[t] < 0 || pa[t] >= n || pb[t] < 0 || pb[t] >= n)
            throw py::value_error("player index (" + std::to_string(pa[t]) + ", " + std::to_string(pb[t]) +
                                  ") of game " + std::to_string(t) + " is outside [0, " + std::to_string(n) + ")");
        if (pa[t] == pb[t])
            throw py::value_error("game " + std::to_string(t) + " is player " + std::to_string(pa[t]) +
                                  " against themself");
    }
}

// Runs the updates in place on `ratings` (Elo: s; disc: strength then consistency, 2 x n).
py::tuple online(bool disc, IntIn a, IntIn b, FloatIn score, double step, FloatArray ratings,
                 std::int64_t every) {
    if (ratings.ndim() != (disc ? 2 : 1) || (disc && ratings.shape(0) != 2))
        throw py::value_error(std::string("ratings must have shape ") + (disc ? "(2, n)" : "(n,)") + ", got " +
                              shape_str(ratings));
    const std::int64_t n = ratings.shape(ratings.ndim() - 1);
    check_games(a, b, score, n);
    if (!std::isfinite(step) || step <= 0) throw py::value_error("step must be a positive finite number");
    if (every < 0) throw py::value_error("every must be >= 0");
    const std::int64_t T = a.shape(0);
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

py::tuple group_pairs(std::int64_t n, IntIn lo, IntIn hi, int n_threads) {
    if (lo.ndim() != 1 || hi.ndim() != 1 || lo.shape(0) != hi.shape(0))
        throw py::value_error("lo and hi must be 1-D of the same length, got " + shape_str(lo) + " and " +
                              shape_str(hi));
    const std::int64_t m = lo.shape(0);
    if (m > INT32_MAX) throw py::value_error("at most 2^31 - 1 entries are supported");
    if (n < 1 || n > INT32_MAX) throw py::value_error("n must be in [1, 2^31 - 1], got " + std::to_string(n));
    const std::int32_t* pl = lo.data();
    const std::int32_t* ph = hi.data();
    for (std::int64_t t = 0; t < m; ++t)
        if (pl[t] < 0 || ph[t] >= n || pl[t] >= ph[t])
            throw py::value_error("entry " + std::to_string(t) + " is (" + std::to_string(pl[t]) + ", " +
                                  std::to_string(ph[t]) + "); need 0 <= lo < hi < " + std::to_string(n));
    IntArray inverse(static_cast<py::ssize_t>(m));
    std::int32_t* pinv = inverse.mutable_data();
    IntArray out_lo, out_hi;
    {
        py::gil_scoped_release release;
        discrank::group_pairs(
            n, m, pl, ph, pinv,
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

py::tuple aggregate_games(std::int64_t n, IntIn a, IntIn b, FloatIn score, const std::optional<FloatIn>& count,
                          int n_threads) {
    const std::int64_t m = a.ndim() == 1 ? a.shape(0) : -1;
    if (m < 0 || b.ndim() != 1 || b.shape(0) != m || score.ndim() != 1 || score.shape(0) != m ||
        (count && (count->ndim() != 1 || count->shape(0) != m)))
        throw py::value_error("a, b, score (and count) must be 1-D of the same length");
    if (m > INT32_MAX) throw py::value_error("at most 2^31 - 1 games are supported");
    if (n < 1 || n > INT32_MAX) throw py::value_error("n must be in [1, 2^31 - 1], got " + std::to_string(n));
    const std::int32_t* pa = a.data();
    const std::int32_t* pb = b.data();
    const std::int64_t t = discrank::first_bad_pair(n, m, pa, pb, true);
    if (t < m)
        throw py::value_error("game " + std::to_string(t) + " is (" + std::to_string(pa[t]) + ", " +
                              std::to_string(pb[t]) + "); need two different players in [0, " + std::to_string(n) +
                              ")");
    IntArray olo, ohi;
    FloatArray og, ow;
    {
        py::gil_scoped_release release;
        discrank::aggregate_games(
            n, m, pa, pb, score.data(), count ? count->data() : nullptr,
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

// Integer labels of a compact range coded to 0..n-1 (see labels.hpp); None when the range is wider
// than max_range (then the caller sorts).
template <class T>
py::object factorize_ints_t(const py::array_t<T, py::array::c_style>& a, const py::array_t<T, py::array::c_style>& b,
                            std::int64_t max_range, int n_threads) {
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

// The pair arrays of the graph helpers: 1-D, the same length, every index in [0, n).
std::int64_t check_pair_indices(std::int64_t n, const IntArray& i, const IntArray& j) {
    if (i.ndim() != 1 || j.ndim() != 1 || i.shape(0) != j.shape(0))
        throw py::value_error("i and j must be 1-D of the same length, got " + shape_str(i) + " and " + shape_str(j));
    if (n < 0 || n > INT32_MAX) throw py::value_error("n must be in [0, 2^31 - 1], got " + std::to_string(n));
    const std::int64_t m = i.shape(0);
    const std::int32_t* pi = i.data();
    const std::int32_t* pj = j.data();
    const std::int64_t p = discrank::first_bad_pair(n, m, pi, pj, false);
    if (p < m)
        throw py::value_error("pair " + std::to_string(p) + " has player index (" + std::to_string(pi[p]) + ", " +
                              std::to_string(pj[p]) + ") outside [0, " + std::to_string(n) + ")");
    return m;
}

py::tuple beat_pieces(std::int64_t n, IntIn i, IntIn j, FloatIn p) {
    const std::int64_t m = check_pair_indices(n, i, j);
    check_vector(p, m, "p");
    const std::int32_t* pi = i.data();
    const std::int32_t* pj = j.data();
    IntArray comp(static_cast<py::ssize_t>(n));
    std::int32_t* pc = comp.mutable_data();
    std::int64_t count;
    {
        py::gil_scoped_release release;
        count = discrank::beat_pieces(n, m, pi, pj, p.data(), pc);
    }
    return py::make_tuple(count, comp);
}

py::tuple tile_pairs(std::int64_t n, IntIn i, IntIn j, const std::vector<FloatIn>& cols, int tile_bits,
                     int n_threads) {
    const std::int64_t m = check_pair_indices(n, i, j);
    if (tile_bits < 0 || tile_bits > 30) throw py::value_error("tile_bits must be in [0, 30], got " + std::to_string(tile_bits));
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

py::tuple connected_pieces(std::int64_t n, IntIn i, IntIn j) {
    const std::int64_t m = check_pair_indices(n, i, j);
    const std::int32_t* pi = i.data();
    const std::int32_t* pj = j.data();
    IntArray piece(static_cast<py::ssize_t>(n));
    std::int32_t* pp = piece.mutable_data();
    std::int64_t count;
    {
        py::gil_scoped_release release;
        count = discrank::connected_pieces(n, m, pi, pj, pp);
    }
    return py::make_tuple(count, piece);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
    m.doc() = "discrank's compiled core: the masked pairwise objective and its gradient.";
    m.attr("__version__") = DISCRANK_VERSION;
    m.attr("LOSS_BCE") = static_cast<int>(discrank::Loss::bce);
    m.attr("LOSS_SQUARED_LOGIT") = static_cast<int>(discrank::Loss::squared_logit);
    m.attr("LOSS_PROBABILITY") = static_cast<int>(discrank::Loss::probability);
    m.attr("LOSS_SIGMOID_SQUARED") = static_cast<int>(discrank::Loss::sigmoid_squared);
#ifdef _OPENMP
    m.attr("openmp") = true;
    m.def("max_threads", []() { return omp_get_max_threads(); });
#else
    m.attr("openmp") = false;
    m.def("max_threads", []() { return 1; });
#endif
    m.def("thread_limit", &discrank::thread_limit,
          "The most threads a kernel call starts (4 per processor, at most 1024); larger requests are clamped");

    py::class_<PyObjective>(m, "PairObjective")
        .def(py::init<std::int64_t, IntIn, IntIn, FloatIn, FloatIn, const std::string&>(),
             py::arg("n_players"), py::arg("i").noconvert(), py::arg("j").noconvert(), py::arg("y").noconvert(),
             py::arg("w").noconvert(), py::arg("strategy") = "auto")
        .def_property_readonly("n_players", &PyObjective::n_players)
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
        .def_property_readonly("n_pairs", &PyObjective::n_pairs)
        .def("evaluate", &PyObjective::evaluate, py::arg("loss"), py::arg("U").noconvert() = py::none(),
             py::arg("V").noconvert() = py::none(), py::arg("s").noconvert() = py::none(),
             py::arg("offset").noconvert() = py::none(), py::arg("grad_u") = false, py::arg("grad_v") = false,
             py::arg("grad_s") = false, py::arg("curv").noconvert() = py::none(),
             py::arg("n_threads") = 0);

    // The vectorised exp and log1p of fastmath.hpp, for their accuracy test.
    m.def(
        "fast_exp_log1p",
        [](const FloatIn& x) {
            const py::ssize_t len = x.ndim() == 1 ? x.shape(0) : -1;
            if (len < 0) throw py::value_error("x must be 1-D");
            FloatArray e(len), l(len);
            const double* px = x.data();
            double* pe = e.mutable_data();
            double* pl = l.mutable_data();
            for (py::ssize_t t = 0; t < len; ++t) {
                pe[t] = discrank::fastmath::exp_nonpos(-std::fabs(px[t]));
                pl[t] = discrank::fastmath::log1p_unit(pe[t]);
            }
            return py::make_tuple(e, l);
        },
        py::arg("x").noconvert());

    m.def(
        "online_elo",
        [](IntIn a, IntIn b, FloatIn score, double step, FloatArray ratings, std::int64_t every) {
            return online(false, a, b, score, step, ratings, every);
        },
        py::arg("a").noconvert(), py::arg("b").noconvert(), py::arg("score").noconvert(), py::arg("step"),
        py::arg("ratings").noconvert(), py::arg("every") = 0);
    m.def(
        "online_disc",
        [](IntIn a, IntIn b, FloatIn score, double step, FloatArray ratings, std::int64_t every) {
            return online(true, a, b, score, step, ratings, every);
        },
        py::arg("a").noconvert(), py::arg("b").noconvert(), py::arg("score").noconvert(), py::arg("step"),
        py::arg("ratings").noconvert(), py::arg("every") = 0);

    m.def("factorize_ints", &factorize_ints, py::arg("a"), py::arg("b"), py::arg("max_range"),
          py::arg("n_threads") = 0,
          "Integer labels of a range narrower than max_range coded to 0..n-1: (distinct values, codes of a, "
          "codes of b), or None for a wider range or an empty a or b.");
    m.def("group_pairs", &group_pairs, py::arg("n"), py::arg("lo").noconvert(), py::arg("hi").noconvert(),
          py::arg("n_threads") = 0);
    m.def("aggregate_games", &aggregate_games, py::arg("n"), py::arg("a").noconvert(), py::arg("b").noconvert(),
          py::arg("score").noconvert(), py::arg("count").noconvert() = py::none(), py::arg("n_threads") = 0);
    m.def("beat_pieces", &beat_pieces, py::arg("n"), py::arg("i").noconvert(), py::arg("j").noconvert(),
          py::arg("p").noconvert());
    m.def("tile_pairs", &tile_pairs, py::arg("n"), py::arg("i").noconvert(), py::arg("j").noconvert(),
          py::arg("cols"), py::arg("tile_bits") = 11, py::arg("n_threads") = 0,
          "(i, j, [cols]) moved into the order that keeps the objective's accesses in cache: stable by "
          "j >> tile_bits");
    m.def("connected_pieces", &connected_pieces, py::arg("n"), py::arg("i").noconvert(), py::arg("j").noconvert());
    m.def("scores", &scores, py::arg("a").noconvert(), py::arg("b").noconvert(), py::arg("n_players"),
          py::arg("U").noconvert() = py::none(), py::arg("V").noconvert() = py::none(),
          py::arg("s").noconvert() = py::none(), py::arg("n_threads") = 0);
}
