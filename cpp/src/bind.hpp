// What the bind_*.cpp files share: the array types that cross into the core and the shape checks.
//
// Input arrays are In<T>: an ndarray of exactly the kernel's dtype crosses without a copy when it is
// C-contiguous and aligned (the no-copy contract the fits rely on: they pass such arrays on every
// call); a strided view of that dtype (s[::2], a column G[:, 2]) is copied once to C order at this
// boundary. A wrong dtype or a non-array is a TypeError, never a silent conversion of values. Arrays
// the core writes into (online's ratings, evaluate's curv) must be C-contiguous float64 themselves: a
// copy would lose the writes. Every kernel call releases the GIL; thread counts are clamped by the core
// (threads.hpp). Player indices are checked by discrank::check_pairs (checks.hpp), whose
// std::invalid_argument reaches Python as a ValueError.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>


namespace py = pybind11;

namespace discrank_py {

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

}  // namespace discrank_py

namespace pybind11::detail {

// Loads an ndarray whose dtype is equivalent to T, with any strides: as is when C-contiguous and aligned
// (no copy), else through numpy.require(..., "CA") (one copy in C order). Anything else does not load,
// so the call is a TypeError naming the expected signature.
template <class T>
struct pyobject_caster<discrank_py::In<T>> {
    bool load(handle src, bool /*convert*/) {
        if (!array_t<T, array::forcecast>::check_(src)) return false;  // an ndarray of dtype T, any layout
        const auto flags = reinterpret_borrow<array>(src).flags();
        if ((flags & npy_api::NPY_ARRAY_C_CONTIGUOUS_) && (flags & npy_api::NPY_ARRAY_ALIGNED_)) {
            value = reinterpret_borrow<discrank_py::In<T>>(src);
        } else {
            value = reinterpret_steal<discrank_py::In<T>>(
                module_::import("numpy").attr("require")(src, none(), "CA").release());
        }
        return true;
    }
    static handle cast(const handle& src, return_value_policy, handle) { return src.inc_ref(); }
    PYBIND11_TYPE_CASTER(discrank_py::In<T>, (handle_type_name<array_t<T, array::c_style>>::name));
};

}  // namespace pybind11::detail

namespace discrank_py {

// "(3,)", "(2, 4)": an array's shape as Python writes it.
inline std::string shape_str(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t d = 0; d < a.ndim(); ++d) s += (d ? ", " : "") + std::to_string(a.shape(d));
    return s + (a.ndim() == 1 ? ",)" : ")");
}

// Raises ValueError unless a has shape (len,).
inline void check_vector(const py::array& a, std::int64_t len, const char* name) {
    if (a.ndim() != 1 || a.shape(0) != len)
        throw py::value_error(std::string(name) + " must have shape (" + std::to_string(len) + ",), got " +
                              shape_str(a));
}

// The common length of 1-D arrays given as (name, array), the first one's; raises ValueError naming the
// first array that is not 1-D or not of that length ("i, j, y and w must have the same length 2, got
// (1,) for y").
inline std::int64_t common_length(const char* names, std::initializer_list<std::pair<const char*, const py::array*>> arrays) {
    const auto& [first_name, first] = *arrays.begin();
    if (first->ndim() != 1) throw py::value_error(std::string(first_name) + " must be 1-D, got shape " + shape_str(*first));
    const std::int64_t m = first->shape(0);
    for (const auto& [name, a] : arrays)
        if (a->ndim() != 1 || a->shape(0) != m)
            throw py::value_error(std::string(names) + " must have the same length " + std::to_string(m) + ", got " +
                                  shape_str(*a) + " for " + name);
    return m;
}

// Raises ValueError unless n is a player count the pair kernels take.
inline void check_player_count(std::int64_t n, std::int64_t least) {
    if (n < least || n > INT32_MAX)
        throw py::value_error("n must be in [" + std::to_string(least) + ", 2^31 - 1], got " + std::to_string(n));
}

void bind_objective(py::module_& m);
void bind_online(py::module_& m);
void bind_pairs(py::module_& m);
void bind_labels(py::module_& m);
void bind_graph(py::module_& m);
void bind_chains(py::module_& m);
void bind_resample(py::module_& m);
void bind_history(py::module_& m);

}  // namespace discrank_py
