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


// The draw models of three outcomes (win, draw, loss) on the score d = A of a pair, with the draw
// parameter eta a scalar of the objective:
//   davidson:   P(win) : P(draw) : P(loss) = e^{d/2} : e^eta : e^{-d/2} (Davidson 1970);
//   rao_kupper: the ordered logit with thresholds +-eta (Rao and Kupper 1967), P(win) = sigmoid(d - eta),
//               P(loss) = sigmoid(-d - eta), P(draw) the rest (eta > 0).
enum class DrawModel : int {
    davidson = 0,
    rao_kupper = 1,
};

// The negative log-likelihood of a pair of score share y = (wins + draws / 2) / games and draw share q =
// draws / games, per game, times the weight w, and its derivatives: val = w L, res = w dL/dd, curv =
// w d2L/dd2, de = w dL/deta, dee = w d2L/deta2, dde = w d2L/dd deta (each may be null but val, res and
// curv). Davidson: L = log Z - (2y - 1) d / 2 - q eta, Z = e^{d/2} + e^{-d/2} + e^eta, with the
// exponents shifted by their maximum (nothing overflows). Rao-Kupper: L = -(y_w log P(win) + q log
// P(draw) + y_l log P(loss)), y_w = y - q / 2, y_l = 1 - y - q / 2, with log P(win) = -softplus(eta -
// d), P(draw) = sigmoid(eta - |d|) - sigmoid(-eta - |d|) (no cancellation) and 1 / P(draw) only where
// q > 0; eta <= 0 is outside the model: every output is +inf (a line search backs away from it). eta_rows,
// when not null, gives each game its own draw parameter (a per-player draw propensity added to eta_all).
inline void draw_block(DrawModel model, std::int64_t len, const double* __restrict y, const double* __restrict q,
                       const double* __restrict w, const double* __restrict a, double eta_all,
                       const double* __restrict eta_rows, double* __restrict val,
                       double* __restrict res, double* __restrict curv, double* __restrict de,
                       double* __restrict dee, double* __restrict dde) {
    if (model == DrawModel::davidson) {
        for (std::int64_t t = 0; t < len; ++t) {
            const double eta = eta_rows ? eta_rows[t] : eta_all;
            const double half = 0.5 * a[t];
            const double m = std::fmax(std::fabs(half), eta);
            const double ea = std::exp(half - m), eb = std::exp(-half - m), ed = std::exp(eta - m);
            const double z = ea + eb + ed;
            const double pa = ea / z, pb = eb / z, pd = ed / z, diff = pa - pb;
            val[t] = w[t] * (m + std::log(z) - (2.0 * y[t] - 1.0) * half - q[t] * eta);
            res[t] = w[t] * (0.5 * diff - (y[t] - 0.5));
            curv[t] = w[t] * (0.25 * (pa + pb) - 0.25 * diff * diff);
            if (de) de[t] = w[t] * (pd - q[t]);
            if (dee) dee[t] = w[t] * (pd * (1.0 - pd));
            if (dde) dde[t] = -w[t] * (0.5 * pd * diff);
        }
        return;
    }
    auto softplus = [](double x) { return std::fmax(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); };
    auto sigmoid = [](double x) {
        const double e = std::exp(-std::fabs(x));
        return x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
    };
    for (std::int64_t t = 0; t < len; ++t) {
        const double eta = eta_rows ? eta_rows[t] : eta_all;
        if (!(eta > 0.0)) {
            val[t] = res[t] = curv[t] = HUGE_VAL;
            if (de) de[t] = HUGE_VAL;
            if (dee) dee[t] = HUGE_VAL;
            if (dde) dde[t] = HUGE_VAL;
            continue;
        }
        const double d = a[t], qt = q[t];
        const double win = y[t] - 0.5 * qt, lose = 1.0 - y[t] - 0.5 * qt;
        const double pa = sigmoid(d + eta), pb = sigmoid(d - eta);  // P(loss) = 1 - pa, P(win) = pb
        const double a1 = pa * (1.0 - pa), b1 = pb * (1.0 - pb);
        const double a2 = a1 * (1.0 - 2.0 * pa), b2 = b1 * (1.0 - 2.0 * pb);
        const double ad = std::fabs(d);
        const double pd = sigmoid(eta - ad) - sigmoid(-eta - ad);
        const double inv = qt > 0.0 ? 1.0 / pd : 0.0;
        const double ld = qt > 0.0 ? qt * std::log(pd) : 0.0;
        const double dd_ratio = (a1 - b1) * inv, dk_ratio = (a1 + b1) * inv;
        val[t] = w[t] * (win * softplus(eta - d) + lose * softplus(d + eta) - ld);
        res[t] = -w[t] * (win * (1.0 - pb) - lose * pa + qt * dd_ratio);
        curv[t] = -w[t] * (-win * b1 - lose * a1 + qt * ((a2 - b2) * inv - dd_ratio * dd_ratio));
        if (de) de[t] = -w[t] * (-win * (1.0 - pb) - lose * pa + qt * dk_ratio);
        if (dee) dee[t] = -w[t] * (-win * b1 - lose * a1 + qt * ((a2 - b2) * inv - dk_ratio * dk_ratio));
        if (dde) dde[t] = -w[t] * (win * b1 - lose * a1 + qt * ((a2 + b2) * inv - dd_ratio * dk_ratio));
    }
}

// The binomial rows of the whole-history problem (history.hpp): n[t] contests at the logit z[t], of which
// win[t] won. Writes val[t] = n softplus(z) - win z, res[t] = n sigmoid(z) - win and curv[t] = n sigmoid(z)
// (1 - sigmoid(z)), from e^{-|z|} alone (nothing overflows). Branch-free on non-aliasing arrays: vectorised.
DISCRANK_CLONES
inline void binomial_block(std::int64_t len, const double* __restrict n, const double* __restrict win,
                           const double* __restrict z, double* __restrict val, double* __restrict res,
                           double* __restrict curv) {
    for (std::int64_t t = 0; t < len; ++t) {
        const double zt = z[t];
        const double ex = fastmath::exp_nonpos(-std::fabs(zt));  // e^{-|z|}
        const double q = 1.0 / (1.0 + ex);
        const double p = zt >= 0.0 ? q : ex * q;  // sigmoid(z)
        const double sp = (zt > 0.0 ? zt : 0.0) + fastmath::log1p_ratio(ex / (2.0 + ex));  // softplus(z)
        val[t] = n[t] * sp - win[t] * zt;
        res[t] = n[t] * p - win[t];
        curv[t] = n[t] * (ex * q * q);  // p (1 - p) = e^{-|z|} / (1 + e^{-|z|})^2
    }
}

// Adds v[0..len) to out: four running compensated (Neumaier) sums, so that the loop pipelines and vectorises
// (the branch a select), then each lane's sum and carry in lane order; the same bits for the same v.
DISCRANK_CLONES
inline void add_compensated(const double* __restrict v, std::int64_t len, double& sum, double& carry) {
    double s[4] = {0.0, 0.0, 0.0, 0.0}, c[4] = {0.0, 0.0, 0.0, 0.0};
    std::int64_t t = 0;
    for (; t + 4 <= len; t += 4)
        for (int j = 0; j < 4; ++j) {
            const double x = v[t + j], u = s[j] + x;
            c[j] += std::fabs(s[j]) >= std::fabs(x) ? (s[j] - u) + x : (x - u) + s[j];
            s[j] = u;
        }
    for (; t < len; ++t) {
        const double x = v[t], u = s[0] + x;
        c[0] += std::fabs(s[0]) >= std::fabs(x) ? (s[0] - u) + x : (x - u) + s[0];
        s[0] = u;
    }
    for (int j = 0; j < 4; ++j) {
        for (const double x : {s[j], c[j]}) {
            const double u = sum + x;
            carry += std::fabs(sum) >= std::fabs(x) ? (sum - u) + x : (x - u) + sum;
            sum = u;
        }
    }
}

}  // namespace discrank
