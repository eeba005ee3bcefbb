// The whole-history problem's MAP in the core (python/discrank/_history.py): player-periods whose
// ratings follow random-walk chains, binomial rows of games between them, and Newton's method with
// preconditioned conjugate gradients on its Hessian. The parameters are theta = [r (n_pp) | block | globals]:
// the ratings of the player-periods, numbered player by player then period by period (so the chains are
// one tridiagonal matrix); the block: the context effects (n_eff), the disc components (u of each component
// and player, then v) and each player's draw propensity; the globals: the covariates' beta and the draw
// parameter. A row k between player-periods lo and hi (players pl and ph) has the base logit b = r_lo - r_hi +
// e_{elo} - e_{ehi} + sum_j (u_j,pl v_j,ph - v_j,pl u_j,ph) + x_k . beta (the paper's disc game, Section 3,
// when the rows have components), the logit s_k b (s_k its match format's scale, or the margin likelihood's
// kappa; 1 without), and the binomial loss of n_k contests of which lo won win_k: n_k softplus(s_k b) - win_k
// s_k b, or a draw model's loss with the draw parameter eta + delta_pl + delta_ph (the propensities). The
// objective adds the chains' (1/2) sum c_t (r_{t+1} - r_t)^2, the prior on each player's first period and
// the block's Gaussian prior. Its Hessian is J^T diag(f'') J, plus the disc's bilinear part sum_k f'_k
// (d^2 b_k) (indefinite: the conjugate gradients stop at negative curvature), plus the chains' tridiagonal
// matrix plus the priors' diagonal.
//
// Every sum is taken in an order fixed by the data (per parameter, its rows in row order; the value by
// fixed chunks of rows): the results are the same bits for any n_threads. Eigen is not used here: the
// work is passes over rows (gathers and scatters through index arrays) and a tridiagonal L D L^T, which
// Eigen has no kernel for that beats these loops.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "discrank/chains.hpp"
#include "discrank/checks.hpp"
#include "discrank/fastmath.hpp"
#include "discrank/history_coarse.hpp"
#include "discrank/losses.hpp"
#include "discrank/threads.hpp"

namespace discrank {

// The borrowed rows of a HistoryProblem (lo, hi, n and win non-null; the others null where unused).
struct HistoryRows {
    std::int64_t m = 0;
    const std::int32_t* lo = nullptr;
    const std::int32_t* hi = nullptr;
    const double* n = nullptr;
    const double* win = nullptr;
    const double* scale = nullptr;  // null: 1 for every row
    const std::int32_t* e_lo = nullptr;  // null: no context effects
    const std::int32_t* e_hi = nullptr;
    const std::int32_t* player = nullptr;  // each player-period's player (numbered player by player); null: no
                                           // two-level preconditioner
    std::int64_t n_players = 0;
    std::int64_t n_cov = 0;  // advantage covariates: x row-major (m x n_cov), each row's logit adds x_k . beta
    const double* x = nullptr;
    int draws = -1;  // the draw model of the results' rows (DrawModel: 0 Davidson, 1 Rao-Kupper); -1: none
    const double* draw = nullptr;  // each row's draws (with a draw model; win then counts the wins alone)
    std::int64_t m_results = 0;  // the rows [0, m_results) are results (the draw model's), the rest binomial
    const std::int32_t* owner = nullptr;  // each player-period's player (with the disc or draw propensities)
    std::int64_t n_disc = 0;  // disc components (u and v of each of n_players players after the effects)
    bool propensity = false;  // each player's draw propensity after the disc (with a draw model)
};

// One Newton step's outcome (HistoryProblem::newton_step).
struct HistoryStep {
    int n_cg = 0;        // conjugate-gradient iterations (products with the Hessian)
    double t = 0.0;      // the step length the line search took
    bool fallback = false;  // the CG direction was not a descent direction: the preconditioned gradient's
};

// A compensated sum (Neumaier's): the objective's value keeps its digits over a million rows, so that its
// differences (the line search's test, finite differences) see the function rather than the rounding.
struct CompensatedSum {
    double sum = 0.0, carry = 0.0;
    void add(double x) {
        const double t = sum + x;
        carry += std::fabs(sum) >= std::fabs(x) ? (sum - t) + x : (x - t) + sum;
        sum = t;
    }
    double value() const { return sum + carry; }
};

class HistoryProblem {
  public:
    static constexpr std::int64_t kChunk = 8192;  // rows per fixed chunk of a sum
    static constexpr std::int64_t kAhead = 16;  // entries ahead whose partner a gather prefetches
    static constexpr std::int64_t kBlockParts = 16;  // the fixed ranges of rows of block_sums, at most
    static constexpr std::int64_t kBlockBudget = std::int64_t{1} << 22;  // and their buffers' doubles, at most

    // chain: the n_pp - 1 link precisions (0 between two players); prior: the prior precision of each
    // player-period (that of the first period of each player, 0 elsewhere); eff_prior: each effect's.
    // beta_prior: each covariate's prior precision (the draw parameter, last, has none).
    HistoryProblem(std::int64_t n_pp, std::int64_t n_eff, const HistoryRows& rows, std::vector<double> chain,
                   std::vector<double> prior, std::vector<double> eff_prior, std::vector<double> beta_prior = {})
        : n_pp_(n_pp), n_eff_(n_eff), disc_off_(n_pp + n_eff), prop_off_(disc_off_ + 2 * rows.n_disc * rows.n_players),
          local_(prop_off_ + (rows.propensity ? rows.n_players : 0)), n_glob_(rows.n_cov + (rows.draws >= 0 ? 1 : 0)),
          size_(local_ + n_glob_), rows_(rows), chain_(std::move(chain)), prior_(std::move(prior)),
          eff_prior_(std::move(eff_prior)), beta_prior_(std::move(beta_prior)) {
        beta_prior_.resize(static_cast<std::size_t>(rows_.n_cov), 0.0);
        rest_.assign(static_cast<std::size_t>(n_pp_), 0.0);
        for (std::int64_t k = 0; k < n_pp_; ++k) {
            prior_sum_ += prior_[k];
            double v = prior_[k];
            if (k > 0) v += chain_[k - 1];
            if (k + 1 < n_pp_) v += chain_[k];
            rest_[k] = v;
        }
        check_pairs(n_pp_, rows_.m, rows_.lo, rows_.hi, PairRule::distinct, "row");
        if (rows_.e_lo) check_pairs(n_eff_, rows_.m, rows_.e_lo, rows_.e_hi, PairRule::in_range, "context effects of row");
        if (rows_.propensity && rows_.draws < 0) throw std::invalid_argument("draw propensities need a draw model");
        if (local_ > disc_off_) {  // the disc or draw propensities
            if (!rows_.owner) throw std::invalid_argument("the disc and draw propensities need each player-period's owner");
            check_pairs(rows_.n_players, n_pp_, rows_.owner, rows_.owner, PairRule::in_range, "owner of player-period");
        }
        build_adjacency();
        if (rows_.player)
            coarse_ = std::make_unique<CoarsePlayers>(n_pp_, rows_.n_players, rows_.player, ptr_.data(), adj_.data(),
                                                      rows_.lo, rows_.hi, rows_.m);
        point_.assign(static_cast<std::size_t>(prop_off_ - disc_off_), 0.0);  // (the disc at 0 until a value_grad)
        f_d_.assign(static_cast<std::size_t>(rows_.m), 0.0);
        f_dd_.assign(static_cast<std::size_t>(rows_.m), 0.0);
        if (rows_.draws >= 0) {
            f_e_.assign(static_cast<std::size_t>(rows_.m), 0.0);
            f_de_.assign(static_cast<std::size_t>(rows_.m), 0.0);
            f_ee_.assign(static_cast<std::size_t>(rows_.m), 0.0);
        }
    }

    std::int64_t local_size() const { return local_; }

    std::int64_t size() const { return size_; }

    // The objective at theta and its gradient (into grad); keeps each row's derivatives for the Hessian.
    double value_grad(const double* theta, double* grad, int n_threads) {
        const int threads = resolve_threads(n_threads);
        const std::int64_t chunks = n_chunks(), G = n_glob_;
        std::vector<CompensatedSum> total(static_cast<std::size_t>(chunks));  // each chunk's value
        double* fd = f_d_.data();
        double* fdd = f_dd_.data();
        const std::int64_t nc = rows_.n_cov;
        const double eta = rows_.draws >= 0 ? theta[size_ - 1] : 0.0;
        const auto model = static_cast<DrawModel>(std::max(rows_.draws, 0));
        // each chunk's value in total[c] and its sums of the globals' gradient in part[c * G ..]
        std::vector<double> part(static_cast<std::size_t>(chunks * G), 0.0);
        point_.assign(theta + disc_off_, theta + prop_off_);  // the disc's point, for the Hessian's products
        const double* delta = theta + prop_off_;
#pragma omp parallel num_threads(threads)
        {
            std::vector<double> buf(static_cast<std::size_t>(2 * kChunk));  // a chunk's logits and values
#pragma omp for schedule(static)
            for (std::int64_t c = 0; c < chunks; ++c) {
                const std::int64_t lo = c * kChunk, end = std::min(rows_.m, lo + kChunk);
                double* acc = part.data() + c * G;
                double* z = buf.data();
                double* val = z + kChunk;
                for (std::int64_t k = lo; k < end; ++k)  // each row's logit s_k b_k
                    z[k - lo] = (rows_.scale ? rows_.scale[k] : 1.0) * (row_dot(theta, k) + disc_term(theta, k));
                // the draw model's rows (the first m_results) one at a time (losses.hpp), the rest as a block
                std::int64_t k = lo;
                for (; rows_.draws >= 0 && k < std::min(end, rows_.m_results); ++k) {
                    const double n = rows_.n[k], y = (rows_.win[k] + 0.5 * rows_.draw[k]) / n, q = rows_.draw[k] / n;
                    const double s = rows_.scale ? rows_.scale[k] : 1.0;
                    double res, curv, de, dee, dde;
                    const double eta_k = rows_.propensity ? eta + delta[pl(k)] + delta[ph(k)] : eta;
                    draw_block(model, 1, &y, &q, &n, z + (k - lo), eta_k, nullptr, val + (k - lo), &res, &curv, &de,
                               &dee, &dde);
                    fd[k] = s * res;
                    fdd[k] = s * s * curv;
                    f_e_[k] = de;
                    f_de_[k] = s * dde;
                    f_ee_[k] = dee;
                    acc[G - 1] += de;
                }
                binomial_block(end - k, rows_.n + k, rows_.win + k, z + (k - lo), val + (k - lo), fd + k, fdd + k);
                for (std::int64_t i = k; i < end; ++i) {
                    if (rows_.scale) {
                        const double s = rows_.scale[i];
                        fd[i] *= s;
                        fdd[i] *= s * s;
                    }
                    if (rows_.draws >= 0) f_e_[i] = f_de_[i] = f_ee_[i] = 0.0;
                }
                add_compensated(val, end - lo, total[c].sum, total[c].carry);
                for (std::int64_t i = lo; i < end && nc; ++i)
                    for (std::int64_t j = 0; j < nc; ++j) acc[j] += rows_.x[i * nc + j] * fd[i];
            }
        }
        std::vector<double> g_glob(static_cast<std::size_t>(G), 0.0);
        for (std::int64_t c = 0; c < chunks; ++c)
            for (std::int64_t j = 0; j < G; ++j) g_glob[j] += part[c * G + j];
        CompensatedSum sum;
        for (const CompensatedSum& t : total) {
            sum.add(t.sum);
            sum.add(t.carry);
        }
        // the priors' value, by fixed chunks of parameters
        sum.add(fixed_sum(size_, threads, [&](std::int64_t k) {
            if (k < n_pp_) {
                double v = prior_[k] * theta[k] * theta[k];
                if (k + 1 < n_pp_) {
                    const double d = theta[k + 1] - theta[k];
                    v += chain_[k] * d * d;
                }
                return 0.5 * v;
            }
            if (k < local_) return 0.5 * eff_prior_[k - n_pp_] * theta[k] * theta[k];
            return k - local_ < rows_.n_cov ? 0.5 * beta_prior_[k - local_] * theta[k] * theta[k] : 0.0;
        }));
        const double value = sum.value();
        gather(fd, f_e_.data(), nullptr, nullptr, grad, threads);
        for (std::int64_t j = 0; j < G; ++j) grad[local_ + j] = g_glob[j];
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t k = 0; k < size_; ++k) grad[k] += prior_term(theta, k);
        fresh_ = false;
        return value;
    }

    // out = H v at the last value_grad: each parameter's rows' curvature (refreshed once per point) times
    // its partners in the row, in one pass over the parameters.
    // Returns v . H v (by fixed chunks, the same bits for any thread count), which the conjugate gradients take.
    double hessp(const double* v, double* out, int n_threads) {
        const int threads = resolve_threads(n_threads);
        refresh(threads);
        // with context effects or a global block, a row's derivative has more than its two ratings: the pass over
        // the rows then the gather (on ATP with contexts and margins 27 ms against 40 ms a product); without, each
        // rating's partners (12 ms against 16 ms)
        if (n_glob_ || local_ > n_pp_) {
            hessp_rows(v, out, threads);
            return dot(v, out, threads);
        }
        const double* w = weight_.data();
        const std::int32_t* part = partner_.data();
        const std::int64_t last = ptr_[local_] - kAhead;
        return chunk_sum(local_, threads, [&](std::int64_t, std::int64_t lo, std::int64_t end) {
            Lanes s;
            for (std::int64_t q = lo; q < end; ++q) {
                double acc = 0.0;
                for (std::int64_t t = ptr_[q]; t < ptr_[q + 1]; ++t) {
                    if (t < last) __builtin_prefetch(v + part[t + kAhead]);  // the partners are far apart in v
                    acc += w[t] * v[part[t]];
                }
                out[q] = diag_[q] * v[q] + acc + prior_term(v, q);
                s.add(q - lo, v[q] * out[q]);
            }
            return s.total();
        });
    }

    // out = H v with the block or the global block (covariates, draw parameter): each row's derivative along v
    // (the disc's at the last point) and its curvature (with the draw parameter's cross terms) in one pass over
    // the rows, summed into the ratings and the block by their rows (gather, with the disc's second-order part)
    // and into the globals by fixed chunks.
    void hessp_rows(const double* v, double* out, int threads) {
        const std::int64_t m = rows_.m, nc = rows_.n_cov, G = n_glob_;
        const bool draws = rows_.draws >= 0;
        const double ve = draws ? v[size_ - 1] : 0.0;
        const double* vd = v + prop_off_;  // the propensities' direction
        c_.resize(static_cast<std::size_t>(m));
        if (rows_.propensity) ce_.resize(static_cast<std::size_t>(m));
        const std::vector<double> glob = row_sums(G, threads, [&](std::int64_t, std::int64_t k, double* acc) {
            const double jv = row_dot(v, k) + disc_along(v, k);
            const double* xk = rows_.x + k * nc;
            double ck = f_dd_[k] * jv;
            if (draws) {
                const double dir = rows_.propensity ? ve + vd[pl(k)] + vd[ph(k)] : ve;
                const double cek = f_de_[k] * jv + f_ee_[k] * dir;
                ck += f_de_[k] * dir;
                acc[G - 1] += cek;
                if (rows_.propensity) ce_[k] = cek;
            }
            c_[k] = ck;
            for (std::int64_t j = 0; j < nc; ++j) acc[j] += xk[j] * ck;
        });
        gather(c_.data(), ce_.data(), f_d_.data(), v, out, threads);
        std::copy(glob.begin(), glob.end(), out + local_);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t k = 0; k < size_; ++k) out[k] += prior_term(v, k);
    }

    // The games' part of the Hessian's diagonal at the last value_grad (each parameter's rows' f'').
    void games_diagonal(double* out, int n_threads) {
        refresh(resolve_threads(n_threads));
        std::copy(diag_.begin(), diag_.end(), out);
    }

    // One Newton step from theta (value and grad the last value_grad's, at theta): the preconditioned
    // conjugate gradients on H x = -grad to the relative residual max(min(forcing_cap, sqrt(max|g| /
    // scale)), 1e-12), or until no entry of the residual exceeds target (at most max_cg iterations), or where
    // the Hessian shows negative curvature (the disc's: the iterate so far, the truncated Newton-CG of Nocedal
    // and Wright, Algorithm 7.1), then the Armijo line search from t = 1, halving; a step
    // whose predicted decrease is below rounding * max(1, |value|) is taken when it lowers max |g|. theta,
    // value and grad become the accepted point's (the last one evaluated: the rows keep its curvature).
    HistoryStep newton_step(double* theta, double& value, double* grad, double scale, double forcing_cap,
                            double rounding, int max_cg, int n_threads, double target = 0.0) {
        const int threads = resolve_threads(n_threads);
        const std::int64_t N = size_;
        HistoryStep out;
        factor_preconditioner(threads);
        // five vectors of the parameters' size at most (a million player-periods: 8 MB each); the line
        // search reuses two of the conjugate gradients'
        std::vector<double> x(N, 0.0), r(N), z(N), p(N), hp(N);
        double g_max = 0.0;
        for (std::int64_t k = 0; k < N; ++k) {
            r[k] = -grad[k];  // the right-hand side, and the residual of x = 0
            g_max = std::max(g_max, std::fabs(grad[k]));
        }
        const double eta = std::min(forcing_cap, std::sqrt(g_max / scale));
        const double b_norm = std::sqrt(dot(r.data(), r.data(), threads));
        const double stop = std::max(eta, 1e-12) * b_norm;
        // preconditioned conjugate gradients from 0 (scipy.sparse.linalg.cg's iteration), stopped at the relative
        // residual, or once no entry of the residual exceeds target: the linearised gradient after the step is
        // -r, so the step then meets the fit's stopping rule (target a share of it) and more iterations are spent
        double rho_prev = 0.0, r_max = g_max, r_norm = b_norm;
        std::vector<double> part_max(static_cast<std::size_t>((N + kChunk - 1) / kChunk));  // each chunk's max |r|
        for (int it = 0; it < max_cg && stop > 0.0; ++it) {
            if (r_max <= target || r_norm < stop) break;
            precondition(r.data(), z.data(), threads);
            const double rho = dot(r.data(), z.data(), threads);
            if (it == 0) {
                p = z;
            } else {
                const double beta = rho / rho_prev;
#pragma omp parallel for schedule(static) num_threads(threads)
                for (std::int64_t k = 0; k < N; ++k) p[k] = z[k] + beta * p[k];
            }
            const double curvature = hessp(p.data(), hp.data(), threads);  // p . H p
            if (!(curvature > 0.0)) break;  // negative curvature (the disc's bilinear term): the iterate so far
            const double alpha = rho / curvature;
            // the step and the residual, with the residual's largest entry and its squared norm (by fixed chunks,
            // as dot) in the same pass
            r_norm = std::sqrt(chunk_sum(N, threads, [&](std::int64_t c, std::int64_t lo, std::int64_t end) {
                Lanes s;
                double m = 0.0;
                for (std::int64_t k = lo; k < end; ++k) {
                    x[k] += alpha * p[k];
                    r[k] -= alpha * hp[k];
                    m = std::max(m, std::fabs(r[k]));
                    s.add(k - lo, r[k] * r[k]);
                }
                part_max[c] = m;
                return s.total();
            }));
            r_max = *std::max_element(part_max.begin(), part_max.end());
            rho_prev = rho;
            ++out.n_cg;
        }
        double slope = dot(grad, x.data(), threads);
        if (!(slope < 0.0)) {  // not a descent direction: the preconditioned gradient
            precondition(grad, x.data(), threads);
            for (std::int64_t k = 0; k < N; ++k) x[k] = -x[k];
            slope = dot(grad, x.data(), threads);
            out.fallback = true;
        }
        const bool unseen = -slope <= rounding * std::max(1.0, std::fabs(value));
        std::vector<double>& trial = r;
        std::vector<double>& g_new = z;
        double t = 1.0, v_new = value;
        while (true) {
#pragma omp parallel for schedule(static) num_threads(threads)
            for (std::int64_t k = 0; k < N; ++k) trial[k] = theta[k] + t * x[k];
            v_new = value_grad(trial.data(), g_new.data(), threads);
            if (v_new <= value + 1e-4 * t * slope || t < 1e-10) break;
            if (unseen) {
                double m_new = 0.0;
                for (std::int64_t k = 0; k < N; ++k) m_new = std::max(m_new, std::fabs(g_new[k]));
                if (m_new < g_max) break;
            }
            t *= 0.5;
        }
        std::copy(trial.begin(), trial.end(), theta);
        std::copy(g_new.begin(), g_new.end(), grad);
        value = v_new;
        out.t = t;
        return out;
    }

    // z = M r: the chains' L D L^T solve (the games' curvature on its diagonal) plus the common shift's
    // one-dimensional correction on the ratings; 1 / diagonal on the block (factor_preconditioner first).
    void precondition(const double* r, double* z, int threads) {
        if (!coarse_) return smooth(r, z, threads);
        // the balancing two-level preconditioner (history_coarse.hpp): z = Q r + (I - Q H^) M (I - H^ Q) r
        CoarsePlayers& c = *coarse_;
        const std::int64_t np = c.n_players();
        rc_.resize(static_cast<std::size_t>(np));
        y0_.resize(static_cast<std::size_t>(np));
        y1_.resize(static_cast<std::size_t>(np));
        w_.resize(static_cast<std::size_t>(size_));
        c.restrict_to(r, rc_.data(), threads);
        c.solve(rc_.data(), y0_.data(), threads);
        c.expand_product(y0_.data(), w_.data(), threads);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t k = 0; k < n_pp_; ++k) w_[k] = r[k] - w_[k];
        std::copy(r + n_pp_, r + size_, w_.begin() + n_pp_);
        smooth(w_.data(), z, threads);
        c.restricted_product(z, rc_.data(), threads);
        c.solve(rc_.data(), y1_.data(), threads);
        for (std::int64_t p = 0; p < np; ++p) y0_[p] -= y1_[p];
        const std::int32_t* pl = rows_.player;
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t k = 0; k < n_pp_; ++k) z[k] += y0_[pl[k]];
    }

    // z = M r, the smoother: the chains' solve and the shift's correction on the ratings, 1 / diagonal on the
    // effects.
    void smooth(const double* r, double* z, int threads) const {
        // z = r and the sum of r (by fixed chunks, as fixed_sum) in one pass
        const std::int64_t chunks = (n_pp_ + kChunk - 1) / kChunk;
        std::vector<CompensatedSum> part(static_cast<std::size_t>(chunks));
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t c = 0; c < chunks; ++c) {
            const std::int64_t lo = c * kChunk, end = std::min(n_pp_, lo + kChunk);
            std::copy(r + lo, r + end, z + lo);
            add_compensated(r + lo, end - lo, part[c].sum, part[c].carry);
        }
        CompensatedSum sum;
        for (const CompensatedSum& t : part) {
            sum.add(t.sum);
            sum.add(t.carry);
        }
        const double add = shift_ * sum.value();  // the common shift's correction, added in the back substitution
        const std::vector<std::int64_t>& cut = cut_;
        const std::int64_t ranges = static_cast<std::int64_t>(cut.size()) - 1;
        const double* e = pe_.data();
        const double* dinv = pdinv_.data();
#pragma omp parallel for schedule(static, 1) num_threads(threads)
        for (std::int64_t c = 0; c < ranges; ++c) {  // L D L^T z = r, block by block (chains.hpp's chain_solve)
            const std::int64_t lo = cut[c], hi = cut[c + 1];
            for (std::int64_t i = lo + 1; i < hi; ++i) z[i] -= z[i - 1] * e[i - 1];
            double next = z[hi - 1] * dinv[hi - 1];  // the chains' solution at i + 1, before the shift
            z[hi - 1] = next + add;
            for (std::int64_t i = hi - 2; i >= lo; --i) {
                const double zi = z[i] * dinv[i] - next * e[i];
                z[i] = zi + add;
                next = zi;
            }
        }
        for (std::int64_t k = n_pp_; k < local_; ++k) z[k] = r[k] / pdiag_e_[k - n_pp_];
        for (std::int64_t i = 0; i < n_glob_; ++i) {  // the global block's (pseudo-)inverse
            double acc = 0.0;
            for (std::int64_t j = 0; j < n_glob_; ++j) acc += cinv_[i * n_glob_ + j] * r[local_ + j];
            z[local_ + i] = acc;
        }
    }

    // The preconditioner's factors at the last value_grad: L D L^T of the ratings' tridiagonal block
    // (LAPACK dpttrf's recurrence), the block's diagonal, and the shift's curvature (the priors' sum).
    void factor_preconditioner(int threads) {
        refresh(threads);
        const std::vector<double>& diag = diag_;
        pdinv_.resize(static_cast<std::size_t>(n_pp_));
        pe_.assign(static_cast<std::size_t>(std::max<std::int64_t>(n_pp_ - 1, 0)), 0.0);
        // the chains' blocks on threads, cut where two players meet (no link): each block factored on one thread
        cut_ = block_ranges(n_pp_, chain_.data(), threads);
        const std::int64_t ranges = static_cast<std::int64_t>(cut_.size()) - 1;
        std::vector<std::int64_t> bad(static_cast<std::size_t>(ranges), -1);  // each block's first bad pivot
#pragma omp parallel for schedule(static, 1) num_threads(threads)
        for (std::int64_t c = 0; c < ranges; ++c) {
            double d_prev = 0.0;
            for (std::int64_t k = cut_[c]; k < cut_[c + 1]; ++k) {
                double d = diag[k] + rest_[k];
                if (k > cut_[c]) d -= pe_[k - 1] * pe_[k - 1] * d_prev;
                if (!(d > 0.0)) {
                    bad[c] = k;
                    break;
                }
                d_prev = d;
                const double inv = 1.0 / d;
                pdinv_[k] = inv;
                if (k + 1 < n_pp_) pe_[k] = -chain_[k] * inv;
            }
        }
        for (const std::int64_t k : bad)
            if (k >= 0)
                throw std::runtime_error("the chains' tridiagonal matrix is not positive definite (pivot " +
                                         std::to_string(k) + ")");
        if (coarse_) coarse_->refresh(f_dd_.data(), rows_.m, diag.data(), prior_.data(), weight_.data(), threads);
        shift_ = 1.0 / std::max(prior_sum_, 1e-300);
        pdiag_e_.resize(static_cast<std::size_t>(local_ - n_pp_));
        for (std::int64_t j = 0; j < local_ - n_pp_; ++j) pdiag_e_[j] = diag[n_pp_ + j] + eff_prior_[j];
        if (n_glob_) cinv_ = symmetric_pinv(global_block(threads), n_glob_);
    }

    // The global block of the Hessian at the last value_grad (G x G, row-major): sum f'' x x^T plus the
    // covariates' prior, the draw parameter's cross terms sum f_de x and its sum f_ee; by fixed chunks.
    std::vector<double> global_block(int threads) const {
        const std::int64_t nc = rows_.n_cov, G = n_glob_, GG = G * G;
        const bool draws = rows_.draws >= 0;
        std::vector<double> C = row_sums(GG, threads, [&](std::int64_t, std::int64_t k, double* acc) {
            const double* xk = rows_.x + k * nc;
            for (std::int64_t i = 0; i < nc; ++i) {
                for (std::int64_t j = 0; j < nc; ++j) acc[i * G + j] += f_dd_[k] * xk[i] * xk[j];
                if (draws) acc[i * G + G - 1] += f_de_[k] * xk[i];
            }
            if (draws) acc[GG - 1] += f_ee_[k];
        });
        if (draws)
            for (std::int64_t i = 0; i < nc; ++i) C[(G - 1) * G + i] = C[i * G + G - 1];
        for (std::int64_t i = 0; i < nc; ++i) C[i * G + i] += beta_prior_[i];
        return C;
    }

    // The pseudo-inverse of a small symmetric matrix (n x n, row-major) by cyclic Jacobi rotations: its
    // eigenvalues below 1e-15 times the largest in magnitude are dropped (numpy.linalg.pinv's rule).
    static std::vector<double> symmetric_pinv(std::vector<double> A, std::int64_t n) {
        std::vector<double> V(static_cast<std::size_t>(n * n), 0.0);
        for (std::int64_t i = 0; i < n; ++i) V[i * n + i] = 1.0;
        for (int sweep = 0; sweep < 100; ++sweep) {
            double off = 0.0;
            for (std::int64_t i = 0; i < n; ++i)
                for (std::int64_t j = i + 1; j < n; ++j) off += A[i * n + j] * A[i * n + j];
            if (off == 0.0) break;
            for (std::int64_t p = 0; p < n; ++p)
                for (std::int64_t q = p + 1; q < n; ++q) {
                    const double apq = A[p * n + q];
                    if (apq == 0.0) continue;
                    const double theta = (A[q * n + q] - A[p * n + p]) / (2.0 * apq);
                    const double t = (theta >= 0.0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
                    const double c = 1.0 / std::sqrt(t * t + 1.0), sn = t * c;
                    for (std::int64_t k = 0; k < n; ++k) {  // A <- J^T A J, V <- V J
                        const double akp = A[k * n + p], akq = A[k * n + q];
                        A[k * n + p] = c * akp - sn * akq;
                        A[k * n + q] = sn * akp + c * akq;
                    }
                    for (std::int64_t k = 0; k < n; ++k) {
                        const double apk = A[p * n + k], aqk = A[q * n + k];
                        A[p * n + k] = c * apk - sn * aqk;
                        A[q * n + k] = sn * apk + c * aqk;
                    }
                    for (std::int64_t k = 0; k < n; ++k) {
                        const double vkp = V[k * n + p], vkq = V[k * n + q];
                        V[k * n + p] = c * vkp - sn * vkq;
                        V[k * n + q] = sn * vkp + c * vkq;
                    }
                }
        }
        double top = 0.0;
        for (std::int64_t i = 0; i < n; ++i) top = std::max(top, std::fabs(A[i * n + i]));
        std::vector<double> out(static_cast<std::size_t>(n * n), 0.0);
        for (std::int64_t k = 0; k < n; ++k) {
            const double lam = A[k * n + k];
            if (!(std::fabs(lam) > 1e-15 * top)) continue;
            for (std::int64_t i = 0; i < n; ++i)
                for (std::int64_t j = 0; j < n; ++j) out[i * n + j] += V[i * n + k] * V[j * n + k] / lam;
        }
        return out;
    }

    // sum a_k b_k by fixed chunks (the same bits for any thread count): plain sums within a chunk (four running
    // sums, so that the loop pipelines), the chunks' added in order. The conjugate gradients' inner products need
    // no compensation (the objective's value has it).
    double dot(const double* a, const double* b, int threads) const {
        return chunk_sum(size_, threads, [&](std::int64_t, std::int64_t lo, std::int64_t end) {
            Lanes s;
            for (std::int64_t k = lo; k < end; ++k) s.add(k - lo, a[k] * b[k]);
            return s.total();
        });
    }

  private:
    // Row k's players (with the disc or draw propensities).
    std::int64_t pl(std::int64_t k) const { return row_lo_[k]; }
    std::int64_t ph(std::int64_t k) const { return row_hi_[k]; }

    // Row k's disc term at theta: sum_j u_j,pl v_j,ph - v_j,pl u_j,ph (0 without components).
    double disc_term(const double* theta, std::int64_t k) const {
        const std::int64_t K = rows_.n_disc, P = rows_.n_players;
        if (!K) return 0.0;
        const double* u = theta + disc_off_;
        const double* v = u + K * P;
        const std::int64_t a = pl(k), b = ph(k);
        double s = 0.0;
        for (std::int64_t j = 0; j < K; ++j) s += u[j * P + a] * v[j * P + b] - v[j * P + a] * u[j * P + b];
        return s;
    }

    // The disc term's derivative along x at the last value_grad's point (0 without components).
    double disc_along(const double* x, std::int64_t k) const {
        const std::int64_t K = rows_.n_disc, P = rows_.n_players;
        if (!K) return 0.0;
        const double* u = point_.data();
        const double* v = u + K * P;
        const double* xu = x + disc_off_;
        const double* xv = xu + K * P;
        const std::int64_t a = pl(k) , b = ph(k);
        double s = 0.0;
        for (std::int64_t j = 0; j < K; ++j) {
            const std::int64_t ja = j * P + a, jb = j * P + b;
            s += v[jb] * xu[ja] + u[ja] * xv[jb] - u[jb] * xv[ja] - v[ja] * xu[jb];
        }
        return s;
    }

    // J_k . v: row k's base logit b_k at v (its two player-periods, their context effects, its covariates), the
    // player-periods of row k + kAhead prefetched (a row's two are far apart in v).
    double row_dot(const double* v, std::int64_t k) const {
        if (k + kAhead < rows_.m) {
            __builtin_prefetch(v + rows_.lo[k + kAhead]);
            __builtin_prefetch(v + rows_.hi[k + kAhead]);
        }
        double b = v[rows_.lo[k]] - v[rows_.hi[k]];
        if (rows_.e_lo) b += v[n_pp_ + rows_.e_lo[k]] - v[n_pp_ + rows_.e_hi[k]];
        const double* xk = rows_.x + k * rows_.n_cov;
        for (std::int64_t j = 0; j < rows_.n_cov; ++j) b += xk[j] * v[local_ + j];
        return b;
    }

    // Four running sums by position (so that a loop pipelines), added pairwise.
    struct Lanes {
        double s[4] = {0.0, 0.0, 0.0, 0.0};
        void add(std::int64_t i, double x) { s[i & 3] += x; }
        double total() const { return (s[0] + s[1]) + (s[2] + s[3]); }
    };

    // The sum of body(c, lo, end) over the fixed chunks [lo, end) of [0, n), each chunk's on a thread, added in
    // chunk order: the same bits for any thread count.
    template <class Body>
    static double chunk_sum(std::int64_t n, int threads, Body body) {
        const std::int64_t chunks = (n + kChunk - 1) / kChunk;
        std::vector<double> part(static_cast<std::size_t>(chunks), 0.0);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t c = 0; c < chunks; ++c) part[c] = body(c, c * kChunk, std::min(n, (c + 1) * kChunk));
        double total = 0.0;
        for (const double x : part) total += x;
        return total;
    }

    // entries of the adjacency: a row index, bit-flipped (~row) where the parameter enters with -1
    static std::int64_t row_of(std::int32_t entry) { return entry >= 0 ? entry : ~entry; }

    template <class Term>
    static double fixed_sum(std::int64_t n, int threads, Term term) {
        const std::int64_t chunks = (n + kChunk - 1) / kChunk;
        std::vector<CompensatedSum> part(static_cast<std::size_t>(chunks));
#pragma omp parallel num_threads(threads)
        {
            std::vector<double> buf(static_cast<std::size_t>(kChunk));  // a chunk's terms, then summed as a block
#pragma omp for schedule(static)
            for (std::int64_t c = 0; c < chunks; ++c) {
                const std::int64_t lo = c * kChunk, end = std::min(n, lo + kChunk);
                for (std::int64_t k = lo; k < end; ++k) buf[k - lo] = term(k);
                add_compensated(buf.data(), end - lo, part[c].sum, part[c].carry);
            }
        }
        CompensatedSum total;
        for (const CompensatedSum& p : part) {
            total.add(p.sum);
            total.add(p.carry);
        }
        return total.value();
    }

    // For each row k of each fixed chunk c of kChunk rows, body(c, k, acc), acc the W sums of that chunk; returns
    // the W sums, the chunks' added in chunk order (the same bits for any thread count).
    template <class Body>
    std::vector<double> row_sums(std::int64_t W, int threads, Body body) const {
        const std::int64_t m = rows_.m, chunks = n_chunks();
        std::vector<double> part(static_cast<std::size_t>(chunks * W), 0.0);
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t c = 0; c < chunks; ++c) {
            double* acc = part.data() + c * W;
            const std::int64_t end = std::min(m, (c + 1) * kChunk);
            for (std::int64_t k = c * kChunk; k < end; ++k) body(c, k, acc);
        }
        std::vector<double> out(static_cast<std::size_t>(W), 0.0);
        for (std::int64_t c = 0; c < chunks; ++c)
            for (std::int64_t j = 0; j < W; ++j) out[j] += part[c * W + j];
        return out;
    }

    std::int64_t n_chunks() const { return (rows_.m + kChunk - 1) / kChunk; }

    // The chains' and priors' part of (H v)_k (or of the gradient at theta = v).
    double prior_term(const double* v, std::int64_t k) const {
        if (k >= local_) return k - local_ < rows_.n_cov ? beta_prior_[k - local_] * v[k] : 0.0;
        if (k >= n_pp_) return eff_prior_[k - n_pp_] * v[k];
        double out = rest_[k] * v[k];
        if (k > 0) out -= chain_[k - 1] * v[k - 1];
        if (k + 1 < n_pp_) out -= chain_[k] * v[k + 1];
        return out;
    }

    // out_q = sum over the rows of parameter q of its derivative of the row's logit times c_row: for a rating or
    // effect its sign (its rows in row order, by parameter); the disc's and the propensities' by block_sums.
    void gather(const double* c, const double* ce, const double* f, const double* v, double* out, int threads) {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t q = 0; q < disc_off_; ++q) {
            double acc = 0.0;
            for (std::int64_t t = ptr_[q]; t < ptr_[q + 1]; ++t) {
                const std::int32_t ent = adj_[t];
                acc += ent >= 0 ? c[ent] : -c[~ent];
            }
            out[q] = acc;
        }
        if (local_ > disc_off_) block_sums(c, ce, f, v, out + disc_off_, threads);
    }

    // The disc's and the draw propensities' sums over the rows into out (the block after the effects): each disc
    // entry's sign times c_row times its partner's value at the last point (u_lo's partner is v_hi, v_lo's u_hi),
    // plus f_row times v at the partner where f is given (the bilinear term's second-order part); each
    // propensity's ce_row over the results' rows. With diag, the diagonal of J^T diag(f'') J instead: c = f_dd
    // times the partner's square, ce = f_ee. A player's entries take every row of theirs, so the rows are
    // scattered, not gathered: each of kBlockParts fixed ranges of rows adds into its own buffer in row order,
    // and the buffers are added in range order: the same bits for any thread count (the ranges are fewer where the
    // block is large, so that the buffers stay within kBlockBudget).
    void block_sums(const double* c, const double* ce, const double* f, const double* v, double* out, int threads,
                    bool diag = false) {
        const std::int64_t K = rows_.n_disc, P = rows_.n_players, nb = local_ - disc_off_, m = rows_.m;
        const std::int64_t parts = std::max<std::int64_t>(1, std::min({kBlockParts, m, kBlockBudget / nb}));
        const std::int64_t pr = prop_off_ - disc_off_;
        const double* w = point_.data();
        const double* vd = v ? v + disc_off_ : nullptr;
        blk_.assign(static_cast<std::size_t>(parts * nb), 0.0);
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
        for (std::int64_t p = 0; p < parts; ++p) {
            double* buf = blk_.data() + p * nb;
            for (std::int64_t k = m * p / parts; k < m * (p + 1) / parts; ++k) {
                const std::int64_t a = pl(k), b = ph(k);
                for (std::int64_t j = 0; j < K; ++j) {
                    const std::int64_t ua = j * P + a, ub = j * P + b, va = (K + j) * P + a, vb = (K + j) * P + b;
                    if (diag) {
                        buf[ua] += c[k] * w[vb] * w[vb];
                        buf[vb] += c[k] * w[ua] * w[ua];
                        buf[va] += c[k] * w[ub] * w[ub];
                        buf[ub] += c[k] * w[va] * w[va];
                    } else {
                        const double fk = f ? f[k] : 0.0;
                        buf[ua] += c[k] * w[vb] + (f ? fk * vd[vb] : 0.0);
                        buf[vb] += c[k] * w[ua] + (f ? fk * vd[ua] : 0.0);
                        buf[va] -= c[k] * w[ub] + (f ? fk * vd[ub] : 0.0);
                        buf[ub] -= c[k] * w[va] + (f ? fk * vd[va] : 0.0);
                    }
                }
                if (rows_.propensity && k < rows_.m_results) {
                    buf[pr + a] += ce[k];
                    buf[pr + b] += ce[k];
                }
            }
        }
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t e = 0; e < nb; ++e) {
            double acc = 0.0;
            for (std::int64_t p = 0; p < parts; ++p) acc += blk_[p * nb + e];
            out[e] = acc;
        }
    }

    // The ratings' and effects' rows (a counting sort by parameter, stable in row order); each row's players
    // (with the disc or draw propensities).
    void build_adjacency() {
        const std::int64_t m = rows_.m;
        if (m > INT32_MAX) throw std::invalid_argument("at most 2^31 - 1 rows, got " + std::to_string(m));
        ptr_.assign(static_cast<std::size_t>(disc_off_ + 1), 0);
        auto each = [&](auto put) {
            for (std::int64_t k = 0; k < m; ++k) {
                const auto plus = static_cast<std::int32_t>(k), minus = ~plus;
                put(rows_.lo[k], plus);
                put(rows_.hi[k], minus);
                if (rows_.e_lo) {
                    put(n_pp_ + rows_.e_lo[k], plus);
                    put(n_pp_ + rows_.e_hi[k], minus);
                }
            }
        };
        each([&](std::int64_t q, std::int32_t) { ++ptr_[q + 1]; });
        for (std::int64_t q = 0; q < disc_off_; ++q) ptr_[q + 1] += ptr_[q];
        adj_.resize(static_cast<std::size_t>(ptr_[disc_off_]));
        std::vector<std::int64_t> at(ptr_.begin(), ptr_.end() - 1);
        each([&](std::int64_t q, std::int32_t ent) { adj_[at[q]++] = ent; });
        weight_.resize(adj_.size());
        diag_.resize(static_cast<std::size_t>(local_));
        if (local_ > disc_off_) {
            row_lo_.resize(static_cast<std::size_t>(m));
            row_hi_.resize(static_cast<std::size_t>(m));
            for (std::int64_t k = 0; k < m; ++k) {
                row_lo_[k] = rows_.owner[rows_.lo[k]];
                row_hi_[k] = rows_.owner[rows_.hi[k]];
            }
        }
        if (local_ > n_pp_) return;  // (hessp_rows serves the rows with more than two parameters)
        // each entry's partner: the row's other player-period (its sign, -1 against this one's, in the weight)
        partner_.resize(adj_.size());
        for (std::size_t t = 0; t < adj_.size(); ++t) {
            const std::int32_t e = adj_[t];
            partner_[t] = e >= 0 ? rows_.hi[e] : rows_.lo[~e];
        }
    }

    // Each entry's weight (its row's curvature, with the entry's own sign folded into the partners) and each
    // parameter's diagonal at the last value_grad (J^T diag(f'') J's, block_sums' for the disc and the
    // propensities), once per point.
    void refresh(int threads) {
        if (fresh_) return;
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t q = 0; q < disc_off_; ++q) {
            double acc = 0.0;
            for (std::int64_t t = ptr_[q]; t < ptr_[q + 1]; ++t) {
                const double f = f_dd_[row_of(adj_[t])];
                weight_[t] = -f;  // (the partners' signs relative to this entry's make the rest)
                acc += f;
            }
            diag_[q] = acc;
        }
        if (local_ > disc_off_) block_sums(f_dd_.data(), f_ee_.data(), nullptr, nullptr, diag_.data() + disc_off_, threads, true);
        fresh_ = true;
    }

    // ratings, effects, the disc's and the propensities' first entries, the ratings and block, the globals, all
    std::int64_t n_pp_, n_eff_, disc_off_, prop_off_, local_, n_glob_, size_;
    HistoryRows rows_;
    std::vector<double> chain_, prior_, eff_prior_, beta_prior_, rest_;
    std::vector<std::int64_t> ptr_;
    std::vector<std::int32_t> adj_;
    std::vector<double> f_d_, f_dd_, f_e_, f_de_, f_ee_, c_, ce_;  // each row's derivatives (the draw parameter's)
    std::vector<double> point_;  // the disc block at the last value_grad
    std::vector<std::int32_t> partner_;  // each entry's partner (without a block)
    std::vector<std::int32_t> row_lo_, row_hi_;  // each row's players (with the disc or draw propensities)
    std::vector<double> blk_;  // block_sums' buffers
    std::vector<double> weight_, diag_;  // each entry's weight and each parameter's diagonal at the last point
    bool fresh_ = false;
    std::vector<double> pdinv_, pe_, pdiag_e_, cinv_;  // the preconditioner's factors
    std::vector<std::int64_t> cut_;  // the chains' blocks on threads
    std::unique_ptr<CoarsePlayers> coarse_;  // the two-level preconditioner's coarse space (null: the chains')
    std::vector<double> rc_, y0_, y1_, w_;  // its scratch
    double shift_ = 0.0, prior_sum_ = 0.0;  // the shift's correction; the priors' sum (fixed)
};

}  // namespace discrank
