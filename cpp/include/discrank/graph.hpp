// The pieces of the comparison graph: connected pieces (union-find) and the strong pieces of the
// "beat" graph (Tarjan). scipy.sparse.csgraph.connected_components computes both (connection="weak" /
// "strong"); these stay in the core because they are faster on the logs discrank fits, as measured by
// bench/bench_pieces.py (40 000 players, 4.7 million pairs; 1 million players, 2 million pairs; scipy's
// time includes building its sparse matrix from the pairs): connected pieces 6 ms against scipy's
// 124 ms, and 27 ms against 566 ms; strong pieces 123 ms against 269 ms, and 719 ms against 857 ms.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace discrank {

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
    std::int64_t joins = 0;
    // n - 1 joins make one piece: the remaining edges cannot change anything (on well-mixed logs this
    // is reached after a small share of the edges)
    for (std::int64_t p = 0; p < m && joins < n - 1; ++p) {
        std::int32_t a = find(i[p]), b = find(j[p]);
        if (a == b) continue;
        if (a < b) std::swap(a, b);
        parent[a] = b;  // the smaller index is the root
        ++joins;
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
