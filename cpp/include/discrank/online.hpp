// Sequential rating updates over a time-ordered game log.
//
// Elo: s_a += step (S - p), s_b -= step (S - p), p = sigmoid(s_a - s_b) (natural-log units: Elo's K
// factor in points is step * 400 / ln 10).
// Disc (Section 4, "Online Update"): with strength u~ and consistency v,
//     p = sigmoid(v_a v_b (u~_a - u~_b)),
//     u~_a += step (S - p) v_a v_b,            u~_b -= step (S - p) v_a v_b,
//     v_a  += step (S - p) v_b (u~_a - u~_b),  v_b  += step (S - p) v_a (u~_a - u~_b),
// all from the values before the game: a gradient step on that game's log-likelihood.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace discrank {

inline double stable_sigmoid(double x) {
    const double e = std::exp(-std::fabs(x));
    return x >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

// pred[t] = the prediction for game t before its update; every > 0: snapshots[r * n + :] = ratings
// after game (r + 1) * every - 1.
inline void online_elo(std::int64_t n_games, const std::int32_t* a, const std::int32_t* b, const double* score,
                       double step, std::int64_t n, double* s, double* pred, std::int64_t every, double* snapshots) {
    for (std::int64_t t = 0; t < n_games; ++t) {
        const std::int32_t x = a[t], y = b[t];
        const double p = stable_sigmoid(s[x] - s[y]);
        pred[t] = p;
        const double delta = step * (score[t] - p);
        s[x] += delta;
        s[y] -= delta;
        if (every > 0 && (t + 1) % every == 0) std::copy(s, s + n, snapshots + ((t + 1) / every - 1) * n);
    }
}

inline void online_disc(std::int64_t n_games, const std::int32_t* a, const std::int32_t* b, const double* score,
                        double step, std::int64_t n, double* strength, double* consistency, double* pred,
                        std::int64_t every, double* snapshots) {
    for (std::int64_t t = 0; t < n_games; ++t) {
        const std::int32_t x = a[t], y = b[t];
        const double ux = strength[x], uy = strength[y], vx = consistency[x], vy = consistency[y];
        const double gap = ux - uy;
        const double p = stable_sigmoid(vx * vy * gap);
        pred[t] = p;
        const double r = step * (score[t] - p);
        strength[x] = ux + r * vx * vy;
        strength[y] = uy - r * vx * vy;
        consistency[x] = vx + r * vy * gap;
        consistency[y] = vy + r * vx * gap;
        if (every > 0 && (t + 1) % every == 0) {
            double* row = snapshots + ((t + 1) / every - 1) * 2 * n;
            std::copy(strength, strength + n, row);
            std::copy(consistency, consistency + n, row + n);
        }
    }
}

}  // namespace discrank
