// Linear-time helpers on the comparison graph: grouping the entries of a game log by unordered pair
// (a counting sort by the lower player, then short in-cache sorts), connected pieces (union-find) and
// the strong pieces of the "beat" graph (Tarjan).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace discrank {

namespace detail {

// Records of the entries t of a log, bucketed by the pair's lower player: rec[start[a] .. start[a+1])
// holds the entries whose lower player is a, sorted by key = hi << 32 | t (by the other player, ties
// in entry order), and distinct[a] .. distinct[a+1] numbers their distinct pairs. The counting sort
// runs in parallel (each thread scatters its own range of entries after a per-thread histogram); the
// sort inside each bucket makes the order, and so the result, independent of the thread count.
template <class Rec>
struct PairBuckets {
    std::unique_ptr<Rec[]> rec;  // not zero-filled: every slot is written
    std::vector<std::int64_t> start, distinct;

    // make(t, lo, hi, first) -> Rec, first = whether entry t lists its lower player first.
    template <class Make>
    PairBuckets(std::int64_t n, std::int64_t m, const std::int32_t* ia, const std::int32_t* ib, Make make,
                int n_threads)
        : rec(new Rec[m > 0 ? m : 1]), start(n + 1, 0), distinct(n + 1, 0) {
        const int nt = std::max(1, n_threads);
        std::vector<std::int64_t> hist(static_cast<std::size_t>(nt) * (n + 1), 0);
#pragma omp parallel num_threads(nt)
        {
#ifdef _OPENMP
            const int k = omp_get_thread_num();
            const int T = omp_get_num_threads();
#else
            const int k = 0, T = 1;
#endif
            const std::int64_t t0 = m * k / T, t1 = m * (k + 1) / T;
            std::int64_t* h = hist.data() + static_cast<std::size_t>(k) * (n + 1);
            for (std::int64_t t = t0; t < t1; ++t) ++h[std::min(ia[t], ib[t])];
#pragma omp barrier
#pragma omp single
            {
                // start[a]: first slot of player a; then each thread's offset inside the bucket, in order
                std::int64_t pos = 0;
                for (std::int64_t a = 0; a < n; ++a) {
                    start[a] = pos;
                    for (int q = 0; q < T; ++q) {
                        std::int64_t& c = hist[static_cast<std::size_t>(q) * (n + 1) + a];
                        const std::int64_t cnt = c;
                        c = pos;
                        pos += cnt;
                    }
                }
                start[n] = pos;
            }
            for (std::int64_t t = t0; t < t1; ++t) {
                const bool first = ia[t] < ib[t];
                const std::int32_t lo = first ? ia[t] : ib[t], hi = first ? ib[t] : ia[t];
                rec[h[lo]++] = make(t, lo, hi, first);
            }
        }
#pragma omp parallel for schedule(dynamic, 64) num_threads(nt)
        for (std::int64_t a = 0; a < n; ++a) {
            std::sort(rec.get() + start[a], rec.get() + start[a + 1],
                      [](const Rec& x, const Rec& y) { return x.key < y.key; });
            std::int64_t u = 0;
            for (std::int64_t q = start[a]; q < start[a + 1]; ++q) u += opens(q, a);
            distinct[a + 1] = u;
        }
        for (std::int64_t a = 0; a < n; ++a) distinct[a + 1] += distinct[a];
    }

    // Whether slot q (in the bucket of player a) starts a new pair.
    bool opens(std::int64_t q, std::int64_t a) const {
        return q == start[a] || (rec[q].key >> 32) != (rec[q - 1].key >> 32);
    }
    static std::uint64_t key(std::int64_t t, std::int32_t hi) {
        return (static_cast<std::uint64_t>(hi) << 32) | static_cast<std::uint32_t>(t);
    }
};

struct KeyRec {
    std::uint64_t key;
};

struct GameRec {
    std::uint64_t key;
    double wins;  // count * score of lo
    double games;
};

struct UnitGameRec {  // one game each: 16 bytes to move instead of 24
    std::uint64_t key;
    double wins;
};

inline double games_of(const GameRec& r) { return r.games; }
inline double games_of(const UnitGameRec&) { return 1.0; }

template <class Rec>
void aggregate_games_impl(std::int64_t n, std::int64_t m, const std::int32_t* ia, const std::int32_t* ib,
                          const double* score, const double* count, std::vector<std::int32_t>& out_lo,
                          std::vector<std::int32_t>& out_hi, std::vector<double>& out_games,
                          std::vector<double>& out_wins, int n_threads) {
    using Buckets = PairBuckets<Rec>;
    const Buckets b(
        n, m, ia, ib,
        [&](std::int64_t t, std::int32_t, std::int32_t hi, bool first) {
            const double c = count ? count[t] : 1.0;
            const double wins = c * (first ? score[t] : 1.0 - score[t]);
            if constexpr (sizeof(Rec) == sizeof(GameRec)) return Rec{Buckets::key(t, hi), wins, c};
            else return Rec{Buckets::key(t, hi), wins};
        },
        n_threads);
    const std::int64_t k = b.distinct[n];
    out_lo.resize(k);
    out_hi.resize(k);
    out_games.resize(k);
    out_wins.resize(k);
#pragma omp parallel for schedule(dynamic, 64) num_threads(std::max(1, n_threads))
    for (std::int64_t a = 0; a < n; ++a) {
        std::int64_t rank = b.distinct[a] - 1;
        for (std::int64_t q = b.start[a]; q < b.start[a + 1]; ++q) {
            if (b.opens(q, a)) {
                ++rank;
                out_lo[rank] = static_cast<std::int32_t>(a);
                out_hi[rank] = static_cast<std::int32_t>(b.rec[q].key >> 32);
                out_games[rank] = 0.0;
                out_wins[rank] = 0.0;
            }
            out_games[rank] += games_of(b.rec[q]);
            out_wins[rank] += b.rec[q].wins;
        }
    }
}

}  // namespace detail

// Entries t = 0..m-1 with lo[t] < hi[t] in [0, n). Writes inverse[t] = the rank of (lo[t], hi[t])
// among the distinct pairs sorted by (lo, hi), and returns the distinct pairs in that order.
inline void group_pairs(std::int64_t n, std::int64_t m, const std::int32_t* lo, const std::int32_t* hi,
                        std::int32_t* inverse, std::vector<std::int32_t>& out_lo, std::vector<std::int32_t>& out_hi,
                        int n_threads) {
    using Buckets = detail::PairBuckets<detail::KeyRec>;
    const Buckets b(
        n, m, lo, hi,
        [](std::int64_t t, std::int32_t, std::int32_t h, bool) { return detail::KeyRec{Buckets::key(t, h)}; },
        n_threads);
    out_lo.resize(b.distinct[n]);
    out_hi.resize(b.distinct[n]);
#pragma omp parallel for schedule(dynamic, 64) num_threads(std::max(1, n_threads))
    for (std::int64_t a = 0; a < n; ++a) {
        std::int64_t rank = b.distinct[a] - 1;
        for (std::int64_t q = b.start[a]; q < b.start[a + 1]; ++q) {
            if (b.opens(q, a)) {
                ++rank;
                out_lo[rank] = static_cast<std::int32_t>(a);
                out_hi[rank] = static_cast<std::int32_t>(b.rec[q].key >> 32);
            }
            inverse[static_cast<std::uint32_t>(b.rec[q].key)] = static_cast<std::int32_t>(rank);
        }
    }
}

// Aggregates a game log: games t = 0..m-1 between players ia[t] != ib[t] in [0, n), score[t] of ia[t]
// in [0, 1], count[t] games (null: 1 each). Returns the distinct unordered pairs (lo < hi) sorted by
// (lo, hi), with their total games and the total score of lo, summed in game order within a pair:
// the result does not depend on the thread count.
inline void aggregate_games(std::int64_t n, std::int64_t m, const std::int32_t* ia, const std::int32_t* ib,
                            const double* score, const double* count, std::vector<std::int32_t>& out_lo,
                            std::vector<std::int32_t>& out_hi, std::vector<double>& out_games,
                            std::vector<double>& out_wins, int n_threads) {
    if (count)
        detail::aggregate_games_impl<detail::GameRec>(n, m, ia, ib, score, count, out_lo, out_hi, out_games,
                                                      out_wins, n_threads);
    else
        detail::aggregate_games_impl<detail::UnitGameRec>(n, m, ia, ib, score, count, out_lo, out_hi, out_games,
                                                          out_wins, n_threads);
}

// Connected pieces of the graph on n players with edges (i[p], j[p]); piece numbers in the order of
// each piece's smallest player. Returns the number of pieces.
inline std::int64_t connected_pieces(std::int64_t n, std::int64_t m, const std::int32_t* i, const std::int32_t* j,
                                     std::int32_t* piece) {
    std::vector<std::int32_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](std::int32_t x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];  // path halving
            x = parent[x];
        }
        return x;
    };
    for (std::int64_t p = 0; p < m; ++p) {
        std::int32_t a = find(i[p]), b = find(j[p]);
        if (a == b) continue;
        if (a < b) std::swap(a, b);
        parent[a] = b;  // the smaller index is the root
    }
    std::int64_t n_pieces = 0;
    for (std::int64_t a = 0; a < n; ++a) {
        const std::int32_t r = find(static_cast<std::int32_t>(a));
        piece[a] = r == a ? static_cast<std::int32_t>(n_pieces++) : piece[r];
    }
    return n_pieces;
}

// Strongly connected pieces of the "beat" graph of the observed pairs: an edge a -> b when a scored
// against b (p > 0 for a = i[e], p < 1 for a = j[e]). The maximum-likelihood Elo ratings are finite
// exactly when every connected piece of the comparison graph is one strong piece (Zermelo 1929,
// Ford 1957). Iterative Tarjan, O(n + m). Returns the number of strong pieces.
inline std::int64_t beat_pieces(std::int64_t n, std::int64_t m, const std::int32_t* i, const std::int32_t* j,
                                const double* p, std::int32_t* comp) {
    std::vector<std::int64_t> ptr(n + 1, 0);
    for (std::int64_t e = 0; e < m; ++e) {
        if (p[e] > 0.0) ++ptr[i[e] + 1];
        if (p[e] < 1.0) ++ptr[j[e] + 1];
    }
    for (std::int64_t a = 0; a < n; ++a) ptr[a + 1] += ptr[a];
    std::vector<std::int32_t> adj(ptr[n]);
    {
        std::vector<std::int64_t> fill(ptr.begin(), ptr.end() - 1);
        for (std::int64_t e = 0; e < m; ++e) {
            if (p[e] > 0.0) adj[fill[i[e]]++] = j[e];
            if (p[e] < 1.0) adj[fill[j[e]]++] = i[e];
        }
    }
    std::vector<std::int64_t> index(n, -1), low(n, 0);
    std::vector<char> on(n, 0);
    std::vector<std::int32_t> stack;
    std::vector<std::pair<std::int32_t, std::int64_t>> calls;
    std::int64_t next = 0, count = 0;
    for (std::int64_t s = 0; s < n; ++s) {
        if (index[s] >= 0) continue;
        index[s] = low[s] = next++;
        stack.push_back(static_cast<std::int32_t>(s));
        on[s] = 1;
        calls.emplace_back(static_cast<std::int32_t>(s), ptr[s]);
        while (!calls.empty()) {
            const std::int32_t v = calls.back().first;
            std::int64_t& e = calls.back().second;
            if (e < ptr[v + 1]) {
                const std::int32_t w = adj[e++];
                if (index[w] < 0) {
                    index[w] = low[w] = next++;
                    stack.push_back(w);
                    on[w] = 1;
                    calls.emplace_back(w, ptr[w]);
                } else if (on[w]) {
                    low[v] = std::min(low[v], index[w]);
                }
                continue;
            }
            calls.pop_back();
            if (low[v] == index[v]) {
                std::int32_t w;
                do {
                    w = stack.back();
                    stack.pop_back();
                    on[w] = 0;
                    comp[w] = static_cast<std::int32_t>(count);
                } while (w != v);
                ++count;
            }
            if (!calls.empty()) {
                const std::int32_t u = calls.back().first;
                low[u] = std::min(low[u], low[v]);
            }
        }
    }
    return count;
}

}  // namespace discrank
