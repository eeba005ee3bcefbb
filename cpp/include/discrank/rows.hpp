// Rows of K factors (one player's u or v) held in registers, for the objective's gather and scatter
// loops over the pairs (objective.hpp).
#pragma once

#include <cstring>

namespace discrank {

// A row of K factors (one player's u or v) held in registers: a plain array, or for K = 2 a two-lane
// vector of GCC and Clang, loaded, scaled and added by whole-vector (SSE2) instructions (measured a
// few per cent faster than the array for k = 2). Rows are moved by memcpy (no alignment or aliasing
// assumption). Lane by lane, the arithmetic is the scalar one.
template <int K>
struct Row {
    double v[K];
    Row& operator+=(const Row& o) {
        for (int l = 0; l < K; ++l) v[l] += o.v[l];
        return *this;
    }
    Row& operator-=(const Row& o) {
        for (int l = 0; l < K; ++l) v[l] -= o.v[l];
        return *this;
    }
    friend Row operator+(const Row& a, const Row& b) {
        Row out;
        for (int l = 0; l < K; ++l) out.v[l] = a.v[l] + b.v[l];
        return out;
    }
    friend Row operator*(double r, const Row& a) {
        Row out;
        for (int l = 0; l < K; ++l) out.v[l] = r * a.v[l];
        return out;
    }
    friend Row operator-(const Row& a, const Row& b) {
        Row out;
        for (int l = 0; l < K; ++l) out.v[l] = a.v[l] - b.v[l];
        return out;
    }
    friend Row operator*(const Row& a, const Row& b) {
        Row out;
        for (int l = 0; l < K; ++l) out.v[l] = a.v[l] * b.v[l];
        return out;
    }
};

template <int K>
struct Lanes {
    using type = Row<K>;
    static type zero() { return type{}; }
    static double sum(const type& a) {
        double s = a.v[0];
        for (int l = 1; l < K; ++l) s += a.v[l];
        return s;
    }
};
template <>
struct Lanes<1> {
    using type = double;
    static type zero() { return 0.0; }
    static double sum(double a) { return a; }
};
#if defined(__GNUC__)
template <>
struct Lanes<2> {
    typedef double type __attribute__((vector_size(16)));
    static type zero() { return type{}; }
    static double sum(const type& a) { return a[0] + a[1]; }
};
#endif

template <int K>
inline typename Lanes<K>::type load_row(const double* p) {
    typename Lanes<K>::type r;
    std::memcpy(&r, p, sizeof r);
    return r;
}

template <int K>
inline void store_row(double* p, const typename Lanes<K>::type& r) {
    std::memcpy(p, &r, sizeof r);
}

}  // namespace discrank
