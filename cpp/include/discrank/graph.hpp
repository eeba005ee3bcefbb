// Linear-time helpers on the comparison graph: grouping the entries of a game log by unordered pair
// (two counting-sort passes instead of a comparison sort of 64-bit keys) and connected pieces
// (union-find).
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace discrank {

// Entries t = 0..m-1 with lo[t] < hi[t] in [0, n). Writes inverse[t] = the rank of (lo[t], hi[t])
// among the distinct pairs sorted by (lo, hi), and returns the distinct pairs in that order.
// One counting-sort pass by lo, then each player's short list sorted by hi in cache (in parallel).
inline void group_pairs(std::int64_t n, std::int64_t m, const std::int32_t* lo, const std::int32_t* hi,
                        std::int32_t* inverse, std::vector<std::int32_t>& out_lo, std::vector<std::int32_t>& out_hi,
                        int n_threads) {
    std::vector<std::int64_t> start(n + 1, 0);
    for (std::int64_t t = 0; t < m; ++t) ++start[lo[t] + 1];
    for (std::int64_t a = 0; a < n; ++a) start[a + 1] += start[a];
    // (hi << 32 | t): sorting these sorts by hi, ties in entry order
    std::vector<std::uint64_t> rec(m);
    {
        std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
        for (std::int64_t t = 0; t < m; ++t)
            rec[fill[lo[t]]++] = (static_cast<std::uint64_t>(hi[t]) << 32) | static_cast<std::uint32_t>(t);
    }
    std::vector<std::int64_t> distinct(n + 1, 0);
#pragma omp parallel for schedule(dynamic, 64) num_threads(n_threads)
    for (std::int64_t a = 0; a < n; ++a) {
        std::sort(rec.begin() + start[a], rec.begin() + start[a + 1]);
        std::int64_t u = 0;
        for (std::int64_t q = start[a]; q < start[a + 1]; ++q)
            if (q == start[a] || (rec[q] >> 32) != (rec[q - 1] >> 32)) ++u;
        distinct[a + 1] = u;
    }
    for (std::int64_t a = 0; a < n; ++a) distinct[a + 1] += distinct[a];
    out_lo.resize(distinct[n]);
    out_hi.resize(distinct[n]);
#pragma omp parallel for schedule(dynamic, 64) num_threads(n_threads)
    for (std::int64_t a = 0; a < n; ++a) {
        std::int64_t rank = distinct[a] - 1;
        for (std::int64_t q = start[a]; q < start[a + 1]; ++q) {
            const std::int32_t h = static_cast<std::int32_t>(rec[q] >> 32);
            if (q == start[a] || (rec[q] >> 32) != (rec[q - 1] >> 32)) {
                ++rank;
                out_lo[rank] = static_cast<std::int32_t>(a);
                out_hi[rank] = h;
            }
            inverse[static_cast<std::uint32_t>(rec[q])] = static_cast<std::int32_t>(rank);
        }
    }
}

// Aggregates a game log: games t = 0..m-1 between players ia[t] != ib[t] in [0, n), score[t] of ia[t]
// in [0, 1], count[t] games (null: 1 each). Returns the distinct unordered pairs (lo < hi) sorted by
// (lo, hi), with their total games and the total score of lo. Sums run in game order within a pair,
// so the result does not depend on the thread count.
inline void aggregate_games(std::int64_t n, std::int64_t m, const std::int32_t* ia, const std::int32_t* ib,
                            const double* score, const double* count, std::vector<std::int32_t>& out_lo,
                            std::vector<std::int32_t>& out_hi, std::vector<double>& out_games,
                            std::vector<double>& out_wins, int n_threads) {
    struct Rec {
        std::uint64_t key;  // hi << 32 | t
        double wins;        // count * score of lo
        double games;
    };
    std::vector<std::int64_t> start(n + 1, 0);
    for (std::int64_t t = 0; t < m; ++t) ++start[std::min(ia[t], ib[t]) + 1];
    for (std::int64_t a = 0; a < n; ++a) start[a + 1] += start[a];
    std::vector<Rec> rec(m);
    {
        std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
        for (std::int64_t t = 0; t < m; ++t) {
            const bool first = ia[t] < ib[t];
            const std::int32_t lo = first ? ia[t] : ib[t], hi = first ? ib[t] : ia[t];
            const double c = count ? count[t] : 1.0;
            rec[fill[lo]++] = {(static_cast<std::uint64_t>(hi) << 32) | static_cast<std::uint32_t>(t),
                               c * (first ? score[t] : 1.0 - score[t]), c};
        }
    }
    std::vector<std::int64_t> distinct(n + 1, 0);
#pragma omp parallel for schedule(dynamic, 64) num_threads(n_threads)
    for (std::int64_t a = 0; a < n; ++a) {
        std::sort(rec.begin() + start[a], rec.begin() + start[a + 1],
                  [](const Rec& x, const Rec& y) { return x.key < y.key; });
        std::int64_t u = 0;
        for (std::int64_t q = start[a]; q < start[a + 1]; ++q)
            if (q == start[a] || (rec[q].key >> 32) != (rec[q - 1].key >> 32)) ++u;
        distinct[a + 1] = u;
    }
    for (std::int64_t a = 0; a < n; ++a) distinct[a + 1] += distinct[a];
    out_lo.resize(distinct[n]);
    out_hi.resize(distinct[n]);
    out_games.assign(distinct[n], 0.0);
    out_wins.assign(distinct[n], 0.0);
#pragma omp parallel for schedule(dynamic, 64) num_threads(n_threads)
    for (std::int64_t a = 0; a < n; ++a) {
        std::int64_t rank = distinct[a] - 1;
        for (std::int64_t q = start[a]; q < start[a + 1]; ++q) {
            if (q == start[a] || (rec[q].key >> 32) != (rec[q - 1].key >> 32)) {
                ++rank;
                out_lo[rank] = static_cast<std::int32_t>(a);
                out_hi[rank] = static_cast<std::int32_t>(rec[q].key >> 32);
            }
            out_games[rank] += rec[q].games;
            out_wins[rank] += rec[q].wins;
        }
    }
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
