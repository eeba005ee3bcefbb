// Python glue of the integer label coding (labels.hpp).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "bind.hpp"
#include "discrank/intern.hpp"
#include "discrank/labels.hpp"
#include "discrank/threads.hpp"

namespace discrank_py {

namespace {

// Integer labels of a compact range coded to 0..n-1 (see labels.hpp); None when the range is wider
// than max_range (then the caller sorts).
template <class T>
py::object factorize_ints_t(const In<T>& a, const In<T>& b, std::int64_t max_range, int n_threads) {
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

// Fixed-width unicode labels (numpy's "U" arrays, 4 bytes a code point, padded with zeros) of a then b coded
// by hashing (intern.hpp's LabelTable on each label's bytes less its padding): (codes of a then b, the index in
// a then b of each code's first occurrence), the codes in first-seen order. The caller sorts the distinct
// labels alone, where np.unique would sort every entry.
py::tuple factorize_fixed(const py::array& a, const py::array& b) {
    for (const py::array* x : {&a, &b})
        if (x->ndim() != 1 || x->dtype().kind() != 'U') throw py::type_error("a and b must be 1-D arrays of dtype U");
    const std::int64_t ma = a.shape(0), mb = b.shape(0);
    py::array_t<std::int64_t> codes(static_cast<py::ssize_t>(ma + mb));
    std::int64_t* out = codes.mutable_data();
    std::vector<std::int64_t> first;
    {
        py::gil_scoped_release release;
        discrank::LabelTable table(true);
        std::int64_t seen = 0;
        auto run = [&](const py::array& x, std::int64_t* out, std::int64_t offset) {
            const char* base = static_cast<const char*>(x.data());
            const std::size_t width = static_cast<std::size_t>(x.itemsize());
            const py::ssize_t stride = x.strides(0);
            for (std::int64_t t = 0; t < x.shape(0); ++t) {
                const char* p = base + t * stride;
                std::size_t n = width;  // the label's code points less the trailing zeros (numpy's padding)
                while (n >= 4 && p[n - 1] == 0 && p[n - 2] == 0 && p[n - 3] == 0 && p[n - 4] == 0) n -= 4;
                const std::int32_t c = table.code(std::string_view(p, n));
                out[t] = c;
                if (c == seen) {
                    first.push_back(offset + t);
                    ++seen;
                }
            }
        };
        run(a, out, 0);
        run(b, out + ma, ma);
    }
    py::array_t<std::int64_t> out_first(static_cast<py::ssize_t>(first.size()));
    std::copy(first.begin(), first.end(), out_first.mutable_data());
    return py::make_tuple(codes, out_first);
}

// LabelTable (intern.hpp) for Python: codes of chunks of labels, kept across calls.
class PyLabelTable {
  public:
    explicit PyLabelTable(const std::string& kind) : table_(check_kind(kind)) {}

    // Codes of a 1-D object array of str (checked labels), with the GIL held: the strings are Python's.
    IntArray code_strings(const py::array& values) {
        if (!table_.strings()) throw py::type_error("this table codes integer labels, not strings");
        if (values.ndim() != 1 || !values.dtype().is(py::dtype("O")))
            throw py::type_error("values must be a 1-D object array of str");
        const py::ssize_t n = values.shape(0);
        IntArray out(n);
        std::int32_t* po = out.mutable_data();
        auto* items = static_cast<PyObject* const*>(values.data());
        const py::ssize_t stride = values.strides(0) / static_cast<py::ssize_t>(sizeof(PyObject*));
        for (py::ssize_t t = 0; t < n; ++t) {
            PyObject* item = items[t * stride];
            if (!PyUnicode_Check(item)) throw py::type_error("label " + std::to_string(t) + " is not a str");
            Py_ssize_t len = 0;
            const char* text = PyUnicode_AsUTF8AndSize(item, &len);
            if (text == nullptr) throw py::error_already_set();
            po[t] = table_.code(std::string_view(text, static_cast<std::size_t>(len)));
        }
        return out;
    }

    // Codes of integer labels (int64, or uint64 given as its bit pattern), without the GIL.
    IntArray code_ints(const In<std::int64_t>& values) {
        if (table_.strings()) throw py::type_error("this table codes strings, not integer labels");
        if (values.ndim() != 1) throw py::value_error("values must be 1-D");
        const py::ssize_t n = values.shape(0);
        IntArray out(n);
        std::int32_t* po = out.mutable_data();
        const std::int64_t* pv = values.data();
        {
            py::gil_scoped_release release;
            for (py::ssize_t t = 0; t < n; ++t) po[t] = table_.code(pv[t]);
        }
        return out;
    }

    // The codes in the order of their labels.
    IntArray order(bool unsigned_ints) {
        std::vector<std::int32_t> o;
        {
            py::gil_scoped_release release;
            o = table_.order(unsigned_ints);
        }
        IntArray out(static_cast<py::ssize_t>(o.size()));
        std::copy(o.begin(), o.end(), out.mutable_data());
        return out;
    }

    // The labels of the given codes: an object array of str, or an int64 array.
    py::array labels(const IntIn& codes) {
        const py::ssize_t n = codes.shape(0);
        const std::int32_t* pc = codes.data();
        for (py::ssize_t t = 0; t < n; ++t)
            if (pc[t] < 0 || pc[t] >= table_.size()) throw py::value_error("code out of range");
        if (!table_.strings()) {
            py::array_t<std::int64_t> out(n);
            std::int64_t* po = out.mutable_data();
            for (py::ssize_t t = 0; t < n; ++t) po[t] = table_.int_at(pc[t]);
            return std::move(out);
        }
        py::array out(py::dtype("O"), {n}, {});
        auto* items = static_cast<PyObject**>(out.mutable_data());
        for (py::ssize_t t = 0; t < n; ++t) {
            const std::string_view s = table_.string_at(pc[t]);
            PyObject* item = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "strict");
            if (item == nullptr) throw py::error_already_set();
            Py_XDECREF(items[t]);
            items[t] = item;
        }
        return out;
    }

    std::int64_t size() const { return table_.size(); }
    std::int64_t nbytes() const { return table_.nbytes(); }
    bool strings() const { return table_.strings(); }

  private:
    static bool check_kind(const std::string& kind) {
        if (kind == "str") return true;
        if (kind == "int") return false;
        throw py::value_error("kind must be 'str' or 'int', got '" + kind + "'");
    }
    discrank::LabelTable table_;
};

}  // namespace

void bind_labels(py::module_& m) {
    py::class_<PyLabelTable>(m, "LabelTable")
        .def(py::init<const std::string&>(), py::arg("kind"))
        .def("code_strings", &PyLabelTable::code_strings, py::arg("values"))
        .def("code_ints", &PyLabelTable::code_ints, py::arg("values").noconvert())
        .def("order", &PyLabelTable::order, py::arg("unsigned_ints") = false)
        .def("labels", &PyLabelTable::labels, py::arg("codes").noconvert())
        .def_property_readonly("size", &PyLabelTable::size)
        .def_property_readonly("nbytes", &PyLabelTable::nbytes)
        .def_property_readonly("strings", &PyLabelTable::strings);
    m.def("factorize_fixed", &factorize_fixed, py::arg("a"), py::arg("b"),
          "Fixed-width unicode labels of a then b coded by hashing: (codes of a then b, the index in a then b of "
          "each code's first occurrence), codes in first-seen order.");
    m.def("factorize_ints", &factorize_ints, py::arg("a"), py::arg("b"), py::arg("max_range"),
          py::arg("n_threads") = 0,
          "Integer labels of a range narrower than max_range coded to 0..n-1: (distinct values, codes of a, "
          "codes of b), or None for a wider range or an empty a or b.");
}

}  // namespace discrank_py
