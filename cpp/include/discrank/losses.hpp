// Pointwise losses of the paper, each with its derivative in the score A.
//
// Every model of the paper predicts a skew-symmetric score A_ij on an observed pair and compares it
// with the observed probability y = P_ij that i beats j. The (j, i) term of each loss equals the
// (i, j) term, so a pair is stored and summed once.
#pragma once

#include <cmath>

namespace discrank {

enum class Loss : int {
    bce = 0,              // bce(y, sigmoid(A)): Eq. (1) for Elo, the paper's logit-space disc loss
    squared_logit = 1,    // (logit y - A)^2: Eq. (4) with the paper's L(x, x^) = |logit x - x^|^2
    probability = 2,      // 1/2 (y - 1/2 - A)^2: probability space (Balduzzi et al. 2019)
    sigmoid_squared = 3,  // 1/2 (y - sigmoid(A))^2: Elo++ without its time decay
};

struct LossPoint {
    double value;
    double deriv;  // d value / d A
};

// sigmoid(a) and the loss use exp(-|a|) only, so nothing overflows for any finite a.
inline LossPoint eval_loss(Loss loss, double y, double a) {
    switch (loss) {
        case Loss::bce: {
            // y softplus(-a) + (1 - y) softplus(a), written with one exp and one log1p: no
            // cancellation for y in {0, 1} and |a| up to 1e4 and beyond.
            const double e = std::exp(-std::fabs(a));
            const double l1p = std::log1p(e);
            const double sig = a >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
            const double value = (a >= 0 ? (1.0 - y) * a : -y * a) + l1p;
            return {value, sig - y};
        }
        case Loss::squared_logit: {
            const double r = (std::log(y) - std::log1p(-y)) - a;
            return {r * r, -2.0 * r};
        }
        case Loss::probability: {
            const double r = y - 0.5 - a;
            return {0.5 * r * r, -r};
        }
        case Loss::sigmoid_squared: {
            const double e = std::exp(-std::fabs(a));
            const double sig = a >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
            const double slope = e / ((1.0 + e) * (1.0 + e));  // sigmoid'(a), exact in both tails
            const double r = y - sig;
            return {0.5 * r * r, -r * slope};
        }
    }
    return {std::nan(""), std::nan("")};
}

}  // namespace discrank
