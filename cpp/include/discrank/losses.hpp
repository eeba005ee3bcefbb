// The pointwise losses of the paper, each with its first and second derivative in the score A: the one
// definition of the loss in the core.
//
// Every model of the paper predicts a skew-symmetric score A_ij on an observed pair and compares it
// with the observed probability y = P_ij that i beats j. The (j, i) term of each loss equals the
// (i, j) term, so a pair is stored and summed once. sigmoid(A) and the losses use exp(-|A|) only, so
// nothing overflows for any finite A.
#pragma once

#include <cmath>
#include <cstdint>

#include "discrank/fastmath.hpp"

namespace discrank {

enum class Loss : int {
    bce = 0,              // bce(y, sigmoid(A)): Eq. (1) for Elo, the paper's logit-space disc loss
    squared_logit = 1,    // (logit y - A)^2: Eq. (4) with the paper's L(x, x^) = |logit x - x^|^2
    probability = 2,      // 1/2 (y - 1/2 - A)^2: probability space (Balduzzi et al. 2019)
    sigmoid_squared = 3,  // 1/2 (y - sigmoid(A))^2: Elo++ without its time decay
};

// Loss, derivative and curvature of a block of pairs: a[t] is the score of pair t. Writes
// val[t] = w L, res[t] = w dL/dA and curv[t] = w d2L/dA2 (the Gauss-Newton curvature for
// sigmoid_squared). For squared_logit, y holds the targets' logits. Branch-free and on non-aliasing
// arrays: vectorised.
DISCRANK_CLONES
inline void loss_block(Loss loss, std::int64_t len, const double* __restrict y, const double* __restrict w,
                       const double* __restrict a, double* __restrict val, double* __restrict res,
                       double* __restrict curv) {
    switch (loss) {
        case Loss::bce:
            // y softplus(-a) + (1 - y) softplus(a) with one exp and one log1p of -|a|: no cancellation
            // for y in {0, 1} and |a| up to 1e4 and beyond, nothing overflows.
            for (std::int64_t t = 0; t < len; ++t) {
                const double at = a[t];
                const double e = fastmath::exp_nonpos(-std::fabs(at));
                // one division for 1 / (1 + e) and log1p's e / (2 + e)
                const double q = 1.0 / ((1.0 + e) * (2.0 + e));
                const double inv = (2.0 + e) * q;
                const double l1p = fastmath::log1p_ratio(e * ((1.0 + e) * q));
                const bool pos = at >= 0.0;
                const double sig = (pos ? 1.0 : e) * inv;
                const double lin = pos ? (1.0 - y[t]) * at : -y[t] * at;
                val[t] = w[t] * (lin + l1p);
                res[t] = w[t] * (sig - y[t]);
                curv[t] = w[t] * (e * inv * inv);
            }
            break;
        case Loss::squared_logit:
            for (std::int64_t t = 0; t < len; ++t) {
                const double r = y[t] - a[t];
                val[t] = w[t] * (r * r);
                res[t] = w[t] * (-2.0 * r);
                curv[t] = 2.0 * w[t];
            }
            break;
        case Loss::probability:
            for (std::int64_t t = 0; t < len; ++t) {
                const double r = y[t] - 0.5 - a[t];
                val[t] = w[t] * (0.5 * r * r);
                res[t] = w[t] * (-r);
                curv[t] = w[t];
            }
            break;
        case Loss::sigmoid_squared:
            for (std::int64_t t = 0; t < len; ++t) {
                const double at = a[t];
                const double e = fastmath::exp_nonpos(-std::fabs(at));
                const double inv = 1.0 / (1.0 + e);
                const double sig = (at >= 0.0 ? 1.0 : e) * inv;
                const double slope = e * inv * inv;  // sigmoid'(a), exact in both tails
                const double r = y[t] - sig;
                val[t] = w[t] * (0.5 * r * r);
                res[t] = w[t] * (-r * slope);
                curv[t] = w[t] * (slope * slope);
            }
            break;
    }
}

}  // namespace discrank
