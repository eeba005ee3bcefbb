// The bootstrap of a Bradley-Terry fit (with advantage covariates: the contextual model of the arena
// boards) by resampled counts, never by refitting games.
//
// The rows r of the data are cells (a[r], b[r], y[r], z[r]): a pair, an outcome in [0, 1] and the r-th row
// of the covariates (k of them), standing for count[r] games of loss weight mult[r] each. Replicate t
// draws w[r] = mult[r] * Poisson(count[r]) (the Poisson bootstrap of the games: a cell of c games gets
// the sum of c Poisson(1) draws) and minimises
//
//   L_t(x) = sum_r w[r] (softplus(d_r) - y[r] d_r) + rating_prec/2 |theta|^2 + beta_prec/2 |beta|^2,
//   d_r = theta[a[r]] - theta[b[r]] + z[r] . beta,   x = (theta, beta),
//
// from the point estimate x0: chord steps with the point estimate's Hessian factor L0 (given), then
// Newton steps with the replicate's own Hessian where the chord steps stall. With rating_prec = 0 the
// ratings have mean 0 (the direction of the all-ones ratings is fixed by a term c 1 1^T in each
// factored matrix, which leaves every step's ratings with sum 0).
//
// Replicate t draws from its own generator, seeded by (seed, t): the result is the same for any number
// of threads, bit for bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "discrank/fastmath.hpp"
#include "discrank/threads.hpp"

namespace discrank {

// xoshiro256** seeded by splitmix64 of (seed, stream).
class Rng {
  public:
    Rng(std::uint64_t seed, std::uint64_t stream) {
        std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL ^ (stream + 0x632BE59BD9B4E019ULL);
        for (auto& w : s_) w = splitmix(x);
    }
    std::uint64_t next() {
        const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
        const std::uint64_t t = s_[1] << 17;
        s_[2] ^= s_[0];
        s_[3] ^= s_[1];
        s_[1] ^= s_[2];
        s_[0] ^= s_[3];
        s_[2] ^= t;
        s_[3] = rotl(s_[3], 45);
        return result;
    }
    // Uniform on [0, 1).
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  private:
    static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
    static std::uint64_t splitmix(std::uint64_t& x) {
        std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }
    std::uint64_t s_[4];
};

// A Poisson(mu) draw: inversion below mu = 10, Hormann's transformed rejection (PTRS, 1993) above.
inline double poisson(Rng& rng, double mu) {
    if (!(mu > 0.0)) return 0.0;
    if (mu < 10.0) {
        double p = std::exp(-mu), f = p, u = rng.uniform();
        double k = 0.0;
        while (u > f && k < 1000.0) {
            k += 1.0;
            p *= mu / k;
            f += p;
        }
        return k;
    }
    const double smu = std::sqrt(mu), b = 0.931 + 2.53 * smu, a = -0.059 + 0.02483 * b;
    const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
    const double log_mu = std::log(mu);
    for (;;) {
        const double u = rng.uniform() - 0.5, v = rng.uniform(), us = 0.5 - std::fabs(u);
        const double k = std::floor((2.0 * a / us + b) * u + mu + 0.43);
        if (us >= 0.07 && v <= vr) return k;
        if (k < 0.0 || (us < 0.013 && v > us)) continue;
        if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <= -mu + k * log_mu - std::lgamma(k + 1.0))
            return k;
    }
}

// The data and penalties of the bootstrap's problem (the arrays are borrowed).
struct BTRows {
    std::int64_t m = 0;           // rows
    std::int64_t n = 0;           // players
    std::int64_t k = 0;           // covariates
    const std::int32_t* a = nullptr;
    const std::int32_t* b = nullptr;
    const double* y = nullptr;
    const double* count = nullptr;
    const double* mult = nullptr;
    const double* z = nullptr;  // m x k, row-major; null when k == 0
    double rating_prec = 0.0;
    double beta_prec = 0.0;
};

// In-place Cholesky of the p x p row-major symmetric matrix h (lower factor); false if not positive.
inline bool cholesky(std::int64_t p, double* h) {
    for (std::int64_t j = 0; j < p; ++j) {
        double* rj = h + j * p;
        double d = rj[j];
        for (std::int64_t q = 0; q < j; ++q) d -= rj[q] * rj[q];
        if (!(d > 0.0)) return false;
        d = std::sqrt(d);
        rj[j] = d;
        for (std::int64_t i = j + 1; i < p; ++i) {
            double* ri = h + i * p;
            double s = ri[j];
            for (std::int64_t q = 0; q < j; ++q) s -= ri[q] * rj[q];
            ri[j] = s / d;
        }
    }
    return true;
}

// x := (L L^T)^-1 x for the lower factor L (p x p, row-major).
inline void cholesky_solve(std::int64_t p, const double* l, double* x) {
    for (std::int64_t i = 0; i < p; ++i) {
        const double* ri = l + i * p;
        double s = x[i];
        for (std::int64_t q = 0; q < i; ++q) s -= ri[q] * x[q];
        x[i] = s / ri[i];
    }
    for (std::int64_t i = p - 1; i >= 0; --i) {
        double s = x[i];
        for (std::int64_t q = i + 1; q < p; ++q) s -= l[q * p + i] * x[q];
        x[i] = s / l[i * p + i];
    }
}

// v[i] = w[i] (sigmoid(t[i]) - y[i]) and, when h is not null, h[i] = w[i] sigmoid(t[i]) (1 - sigmoid(t[i])).
DISCRANK_CLONES
inline void bt_residuals(std::int64_t len, const double* t, const double* y, const double* w, double* v, double* h) {
    for (std::int64_t i = 0; i < len; ++i) {
        const double e = fastmath::exp_nonpos(-std::fabs(t[i]));
        const double sig = (t[i] >= 0.0 ? 1.0 : e) / (1.0 + e);
        v[i] = w[i] * (sig - y[i]);
    }
    if (h)
        for (std::int64_t i = 0; i < len; ++i) {
            const double e = fastmath::exp_nonpos(-std::fabs(t[i]));
            const double sig = (t[i] >= 0.0 ? 1.0 : e) / (1.0 + e);
            h[i] = w[i] * sig * (1.0 - sig);
        }
}

// Calls f(std::integral_constant<int, K>) with K = k for k in 0..8 (loops of a known length, unrolled, the
// sums in registers), K = -1 otherwise (the length read at run time).
template <class F>
inline void with_covariates(std::int64_t k, F&& f) {
    switch (k) {
        case 0: return f(std::integral_constant<int, 0>{});
        case 1: return f(std::integral_constant<int, 1>{});
        case 2: return f(std::integral_constant<int, 2>{});
        case 3: return f(std::integral_constant<int, 3>{});
        case 4: return f(std::integral_constant<int, 4>{});
        case 5: return f(std::integral_constant<int, 5>{});
        case 6: return f(std::integral_constant<int, 6>{});
        case 7: return f(std::integral_constant<int, 7>{});
        case 8: return f(std::integral_constant<int, 8>{});
        default: return f(std::integral_constant<int, -1>{});
    }
}

// t[i] = x[a[i]] - x[b[i]] + z[i] . beta over a block of rows (K: the covariates, -1 for k read at run time).
template <int K>
inline void block_logits(std::int64_t len, std::int64_t k, const std::int32_t* a, const std::int32_t* b,
                         const double* z, const double* x, const double* beta, double* t) {
    const std::int64_t kk = K >= 0 ? K : k;
    for (std::int64_t i = 0; i < len; ++i) {
        double s = x[a[i]] - x[b[i]];
        for (std::int64_t j = 0; j < kk; ++j) s += z[i * kk + j] * beta[j];
        t[i] = s;
    }
}

// acc[j] += sum_i v[i] z[i][j] over a block of rows, each sum in order (in registers when K is known).
template <int K>
inline void block_scores(std::int64_t len, std::int64_t k, const double* z, const double* v, double* acc) {
    if constexpr (K == 0) {
        (void)len, (void)k, (void)z, (void)v, (void)acc;
    } else if constexpr (K > 0) {
        double s[K] = {};
        for (std::int64_t i = 0; i < len; ++i)
            for (int j = 0; j < K; ++j) s[j] += v[i] * z[i * K + j];
        for (int j = 0; j < K; ++j) acc[j] += s[j];
    } else {
        std::vector<double> s(static_cast<std::size_t>(k), 0.0);
        for (std::int64_t i = 0; i < len; ++i)
            for (std::int64_t j = 0; j < k; ++j) s[j] += v[i] * z[i * k + j];
        for (std::int64_t j = 0; j < k; ++j) acc[j] += s[j];
    }
}

// One replicate's scratch and its passes over the rows it drew (rows of weight 0 are left out).
class BTReplicate {
  public:
    explicit BTReplicate(const BTRows& d) : d_(d), p_(d.n + d.k), g_(static_cast<std::size_t>(p_)) {
        for (std::int64_t r = 0; r < d.m && unit_; ++r) unit_ = d.count[r] == 1.0;
        double p = std::exp(-1.0), f = p;
        for (int j = 0; j < kUnitTable; ++j) {
            unit_cdf_[j] = f;
            p /= (j + 1.0);
            f += p;
        }
        for (int i = 0; i < kBuckets; ++i) {  // the draw when u's bucket lies in one step of the table, else -1
            const double lo = static_cast<double>(i) / kBuckets, hi = static_cast<double>(i + 1) / kBuckets;
            int c_lo = 0, c_hi = 0;
            for (int j = 0; j < kUnitTable; ++j) c_lo += lo > unit_cdf_[j], c_hi += hi > unit_cdf_[j];
            bucket_[i] = c_lo == c_hi && c_lo < kUnitTable && hi <= unit_cdf_[c_lo] ? c_lo : -1.0;
        }
    }

    void draw(Rng& rng) {
        const std::int64_t m = d_.m;
        w_.resize(static_cast<std::size_t>(m));
        h_.resize(static_cast<std::size_t>(m));
        if (unit_) {  // every count 1: Poisson(1) by a table on u's leading bits, the cumulative table at edges
            for (std::int64_t r = 0; r < m; ++r) {
                const double u = rng.uniform();
                double c = bucket_[static_cast<int>(u * kBuckets)];
                if (c < 0.0) {
                    c = 0.0;
                    for (int j = 0; j < kUnitTable; ++j) c += u > unit_cdf_[j] ? 1.0 : 0.0;
                    if (c == kUnitTable) c = poisson_tail(rng);
                }
                w_[r] = d_.mult[r] * c;
            }
        } else {
            for (std::int64_t r = 0; r < m; ++r) w_[r] = d_.mult[r] * poisson(rng, d_.count[r]);
        }
    }

    // The gradient at x into g_ (one pass over the rows, in blocks), and each row's curvature into h_
    // when asked.
    void gradient(const double* x, bool curvature) {
        const std::int64_t n = d_.n, k = d_.k, m = d_.m;
        const double* beta = x + n;
        std::fill(g_.begin(), g_.end(), 0.0);
        double* gb = g_.data() + n;
        double t[kBlock], v[kBlock];
        for (std::int64_t lo = 0; lo < m; lo += kBlock) {
            const std::int64_t len = std::min<std::int64_t>(kBlock, m - lo);
            const std::int32_t* a = d_.a + lo;
            const std::int32_t* b = d_.b + lo;
            const double* z = d_.z + lo * k;
            with_covariates(k, [&](auto kc) { block_logits<decltype(kc)::value>(len, k, a, b, z, x, beta, t); });
            bt_residuals(len, t, d_.y + lo, w_.data() + lo, v, curvature ? h_.data() + lo : nullptr);
            for (std::int64_t i = 0; i < len; ++i) {
                g_[a[i]] += v[i];
                g_[b[i]] -= v[i];
            }
            with_covariates(k, [&](auto kc) { block_scores<decltype(kc)::value>(len, k, z, v, gb); });
        }
        for (std::int64_t i = 0; i < n; ++i) g_[i] += d_.rating_prec * x[i];
        for (std::int64_t j = 0; j < k; ++j) gb[j] += d_.beta_prec * beta[j];
    }

    // The replicate's Hessian at the x of the last gradient (h_), factored in hess_; false if singular.
    bool factor() {
        const std::int64_t n = d_.n, k = d_.k, p = p_;
        hess_.assign(static_cast<std::size_t>(p * p), 0.0);
        double* H = hess_.data();
        for (std::int64_t r = 0; r < d_.m; ++r) {
            const double v = h_[r];
            if (w_[r] == 0.0 || v == 0.0) continue;
            const std::int64_t a = d_.a[r], b = d_.b[r];
            H[a * p + a] += v;
            H[b * p + b] += v;
            H[std::max(a, b) * p + std::min(a, b)] -= v;
            const double* zr = d_.z + r * k;
            for (std::int64_t j = 0; j < k; ++j) {
                const double vz = v * zr[j];
                H[(n + j) * p + a] += vz;
                H[(n + j) * p + b] -= vz;
                for (std::int64_t l = 0; l <= j; ++l) H[(n + j) * p + n + l] += vz * zr[l];
            }
        }
        double trace = 0.0;
        for (std::int64_t i = 0; i < n; ++i) trace += H[i * p + i];
        const double c = d_.rating_prec > 0.0 ? 0.0 : std::max(trace / std::max<std::int64_t>(n, 1), 1e-300);
        for (std::int64_t i = 0; i < n; ++i) {
            H[i * p + i] += d_.rating_prec;
            for (std::int64_t j = 0; j <= i; ++j) H[i * p + j] += c;
        }
        for (std::int64_t j = 0; j < k; ++j) H[(n + j) * p + n + j] += d_.beta_prec;
        return cholesky(p, H);
    }

    // Solves for the replicate: chord steps with l0, then Newton steps. Returns the steps taken, or -1
    // (x left as it was at the last step) when the steps did not reach tol.
    int solve(const double* l0, double* x, double tol, int max_chord, int max_newton) {
        const std::int64_t p = p_;
        std::vector<double> s(static_cast<std::size_t>(p));
        double last = std::numeric_limits<double>::infinity();
        int steps = 0;
        for (int it = 0; it < max_chord; ++it) {
            gradient(x, false);
            std::copy(g_.begin(), g_.end(), s.begin());
            cholesky_solve(p, l0, s.data());
            const double size = max_abs(s);
            if (!(size < 0.5 * last) || !(size < 4.0)) break;  // slow or diverging: Newton's turn
            apply(x, s.data(), 1.0);
            ++steps;
            if (size <= tol) return steps;
            last = size;
        }
        for (int it = 0; it < max_newton; ++it) {
            gradient(x, true);
            if (!factor()) return -1;
            std::copy(g_.begin(), g_.end(), s.begin());
            cholesky_solve(p, hess_.data(), s.data());
            const double size = max_abs(s);
            if (!std::isfinite(size)) return -1;
            apply(x, s.data(), size > 2.0 ? 2.0 / size : 1.0);  // a step of at most 2 in any coordinate
            ++steps;
            if (size <= tol) return steps;
        }
        return -1;
    }

  private:
    // A Poisson(1) draw given that it is at least kUnitTable (probability 1e-14): the tail by inversion.
    double poisson_tail(Rng& rng) {
        for (;;) {
            const double c = poisson(rng, 1.0);
            if (c >= kUnitTable) return c;
        }
    }
    static double max_abs(const std::vector<double>& v) {
        double m = 0.0;
        for (double e : v) m = std::max(m, std::fabs(e));
        return std::isnan(m) ? std::numeric_limits<double>::infinity() : m;
    }
    void apply(double* x, const double* s, double scale) {
        for (std::int64_t i = 0; i < p_; ++i) x[i] -= scale * s[i];
        if (d_.rating_prec == 0.0 && d_.n > 0) {  // hold the ratings' sum at 0 against rounding
            double mean = 0.0;
            for (std::int64_t i = 0; i < d_.n; ++i) mean += x[i];
            mean /= static_cast<double>(d_.n);
            for (std::int64_t i = 0; i < d_.n; ++i) x[i] -= mean;
        }
    }

    const BTRows& d_;
    std::int64_t p_;
    static constexpr int kUnitTable = 16;
    static constexpr std::int64_t kBlock = 1024;
    static constexpr int kBuckets = 1024;
    double bucket_[kBuckets];
    bool unit_ = true;
    double unit_cdf_[kUnitTable];
    std::vector<double> w_, h_, g_, hess_;
};

// Replicates first .. first + n_boot - 1: out (n_boot x p, row-major) gets each one's x, steps (n_boot)
// its step count (-1: not converged, its row NaN). x0: the point estimate; l0: the lower Cholesky factor
// (p x p, row-major) of the point estimate's Hessian as BTReplicate::factor builds it.
inline void bt_bootstrap(const BTRows& d, const double* x0, const double* l0, std::uint64_t seed, std::int64_t first,
                         std::int64_t n_boot, double tol, int max_chord, int max_newton, double* out,
                         std::int32_t* steps, int n_threads) {
    const std::int64_t p = d.n + d.k;
#pragma omp parallel num_threads(resolve_threads(n_threads))
    {
        BTReplicate rep(d);
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t t = 0; t < n_boot; ++t) {
            Rng rng(seed, static_cast<std::uint64_t>(first + t));
            rep.draw(rng);
            double* x = out + t * p;
            std::copy(x0, x0 + p, x);
            const int s = rep.solve(l0, x, tol, max_chord, max_newton);
            steps[t] = s;
            if (s < 0) std::fill(x, x + p, std::numeric_limits<double>::quiet_NaN());
        }
    }
}

}  // namespace discrank
