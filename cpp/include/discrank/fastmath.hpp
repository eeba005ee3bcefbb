// Branch-free exp and log1p on the ranges the losses need, written so that a compiler vectorises a
// loop over them (no calls, no table lookups, selects instead of branches).
//
//   exp_nonpos(x)  = exp(x)      for x <= 0 (x = -|A|), 0 below -745.2 where exp underflows;
//   log1p_unit(e)  = log1p(e)    for e in [0, 1].
//
// Both are within a few units in the last place of the correctly rounded value (tested against libm
// over the whole range in tests/test_core.py). GCC contracts a * b + c into a fused multiply-add in
// C++ (its default -ffp-contract=fast, even with -std=c++17), and the x86-64-v3 clones of the block
// kernels (DISCRANK_CLONES below: losses.hpp, sums.hpp) have FMA: the last bits of a result can differ between a CPU with AVX2 and
// one without (contraction is kept for speed). On one CPU the results are the same for any thread
// count.
#pragma once

#include <cstdint>
#include <cstring>

// Vectorised code paths: on x86-64 Linux with GCC, the block kernels marked DISCRANK_CLONES are compiled
// twice, for x86-64-v3 (AVX2) and for the baseline, and the loader picks one for the CPU at run time.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define DISCRANK_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define DISCRANK_CLONES
#endif

namespace discrank {
namespace fastmath {

inline std::int64_t bits_of(double x) {
    std::int64_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

inline double double_of(std::int64_t b) {
    double x;
    std::memcpy(&x, &b, sizeof x);
    return x;
}

// exp(x), x <= 0: x = k ln 2 + r with |r| <= ln(2)/2 (Cody and Waite), exp(r) by a degree-11
// polynomial (a Chebyshev fit on |r| <= 1.01 ln(2)/2 computed with mpmath at 50 digits; error
// 3.6e-18), times 2^k built in the exponent field. k >= -1075, so 2^(k + 54) is a normal number and
// the final product by 2^-54 rounds once into the subnormals.
inline double exp_nonpos(double x) {
    constexpr double kLog2e = 1.4426950408889634;
    constexpr double kLn2Hi = 6.93147180369123816490e-01;  // ln 2, top 32 bits: k * kLn2Hi is exact
    constexpr double kLn2Lo = 1.90821492927058770002e-10;
    constexpr double kMagic = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to an integer
    x = x < -745.2 ? -745.2 : x;
    const double shifted = x * kLog2e + kMagic;
    const double kd = shifted - kMagic;
    const std::int64_t k = bits_of(shifted) - bits_of(kMagic);
    const double r = (x - kd * kLn2Hi) - kd * kLn2Lo;
    double p = 2.511120325747114e-08;
    p = p * r + 2.7634155490989483e-07;
    p = p * r + 2.75572377367406e-06;
    p = p * r + 2.4801481344570324e-05;
    p = p * r + 0.00019841269893049545;
    p = p * r + 0.0013888888956219215;
    p = p * r + 0.008333333333318461;
    p = p * r + 0.04166666666647329;
    p = p * r + 0.16666666666666682;
    p = p * r + 0.500000000000002;
    p = p * r + 1.0;
    p = p * r + 1.0;
    const double scale = double_of((k + 54 + 1023) << 52);  // 2^(k + 54)
    const double result = (p * scale) * 5.551115123125783e-17;  // * 2^-54
    return x <= -745.2 ? 0.0 : result;
}

// log1p(e), e in [0, 1]: log1p(e) = 2 atanh(t), t = e / (2 + e) in [0, 1/3], written
// 2 t + 2 t z h(z) with z = t^2 and h(z) = (atanh(t) / t - 1) / z = 1/3 + z/5 + ... by a degree-9
// polynomial (Chebyshev fit on [0, 1.001/9] with mpmath; error 4.6e-17 in h). No 1 + e is formed,
// so small e keeps all its digits.
inline double log1p_ratio(double t);

inline double log1p_unit(double e) { return log1p_ratio(e / (2.0 + e)); }

// 2 atanh(t) for t = e / (2 + e) in [0, 1/3] already formed: log1p(e).
inline double log1p_ratio(double t) {
    const double z = t * t;
    double p = 0.08086486882582436;
    p = p * z + 0.04398263513337029;
    p = p * z + 0.06000948760351885;
    p = p * z + 0.06657028740061431;
    p = p * z + 0.07692787677757919;
    p = p * z + 0.09090894623795769;
    p = p * z + 0.11111111360589111;
    p = p * z + 0.14285714283535833;
    p = p * z + 0.20000000000007362;
    p = p * z + 0.3333333333333333;
    return 2.0 * t + 2.0 * t * (p * z);
}

}  // namespace fastmath
}  // namespace discrank
