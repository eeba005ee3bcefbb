// Branch-free exp and log1p on the ranges the losses need, written so that a compiler vectorises a
// loop over them (no calls, no table lookups, selects instead of branches).
//
//   exp_nonpos(x)  = exp(x)      for x <= 0 (x = -|A|), 0 below -745.2 where exp underflows;
//   log1p_unit(e)  = log1p(e)    for e in [0, 1].
//
// Both are within a few units in the last place of the correctly rounded value (tested against libm
// over the whole range in tests/test_core.py). Floating-point contraction is off in ISO C++ mode, so
// the results do not depend on whether the CPU has FMA.
#pragma once

#include <cstdint>
#include <cstring>

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

// exp(x), x <= 0: x = k ln 2 + r with |r| <= ln(2)/2 (Cody and Waite), exp(r) by its Taylor series to
// degree 13 (truncation < 5e-18 relative), times 2^k built in the exponent field. k >= -1075, so
// 2^(k + 54) is a normal number and the final product by 2^-54 rounds once into the subnormals.
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
    double p = 1.0 / 6227020800.0;  // 1/13!
    p = p * r + 1.0 / 479001600.0;
    p = p * r + 1.0 / 39916800.0;
    p = p * r + 1.0 / 3628800.0;
    p = p * r + 1.0 / 362880.0;
    p = p * r + 1.0 / 40320.0;
    p = p * r + 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    const double scale = double_of((k + 54 + 1023) << 52);  // 2^(k + 54)
    const double result = (p * scale) * 5.551115123125783e-17;  // * 2^-54
    return x <= -745.2 ? 0.0 : result;
}

// log1p(e), e in [0, 1]: log1p(e) = 2 atanh(t), t = e / (2 + e) in [0, 1/3], by the odd series
// 2 t sum_q t^(2q) / (2q + 1) to q = 15 (truncation < 2e-17 relative). No 1 + e is formed, so small e
// keeps all its digits.
inline double log1p_unit(double e) {
    const double t = e / (2.0 + e);
    const double z = t * t;
    double p = 1.0 / 31.0;
    p = p * z + 1.0 / 29.0;
    p = p * z + 1.0 / 27.0;
    p = p * z + 1.0 / 25.0;
    p = p * z + 1.0 / 23.0;
    p = p * z + 1.0 / 21.0;
    p = p * z + 1.0 / 19.0;
    p = p * z + 1.0 / 17.0;
    p = p * z + 1.0 / 15.0;
    p = p * z + 1.0 / 13.0;
    p = p * z + 1.0 / 11.0;
    p = p * z + 1.0 / 9.0;
    p = p * z + 1.0 / 7.0;
    p = p * z + 1.0 / 5.0;
    p = p * z + 1.0 / 3.0;
    return 2.0 * t + 2.0 * t * (p * z);
}

}  // namespace fastmath
}  // namespace discrank
