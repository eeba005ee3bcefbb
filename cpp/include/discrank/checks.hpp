// The one check of the player indices of pairs (a[p], b[p]) that every entry point of the core runs:
// at the speed of a pass (blocks scanned without a branch per entry, which the compiler vectorises),
// the first offending entry then found in its block and named in the message.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace discrank {

// What a pair (a, b) of players in [0, n) must also satisfy.
enum class PairRule {
    in_range,    // nothing more
    distinct,    // a != b
    increasing,  // a < b
};

// The first p with a[p] or b[p] outside [0, n) or breaking `rule`; m if none.
inline std::int64_t first_bad_pair(std::int64_t n, std::int64_t m, const std::int32_t* a, const std::int32_t* b,
                                   PairRule rule) {
    constexpr std::int64_t kBlock = 4096;
    const auto un = static_cast<std::uint32_t>(n);
    const std::uint32_t distinct = rule == PairRule::distinct ? 1u : 0u;
    const std::uint32_t increasing = rule == PairRule::increasing ? 1u : 0u;
    auto bad = [&](std::int64_t p) {
        return static_cast<std::uint32_t>(static_cast<std::uint32_t>(a[p]) >= un) |
               static_cast<std::uint32_t>(static_cast<std::uint32_t>(b[p]) >= un) |
               (static_cast<std::uint32_t>(a[p] == b[p]) & distinct) |
               (static_cast<std::uint32_t>(a[p] >= b[p]) & increasing);
    };
    for (std::int64_t lo = 0; lo < m; lo += kBlock) {
        const std::int64_t hi = std::min(m, lo + kBlock);
        std::uint32_t any = 0;
        for (std::int64_t p = lo; p < hi; ++p) any |= bad(p);
        if (any)
            for (std::int64_t p = lo; p < hi; ++p)
                if (bad(p)) return p;
    }
    return m;
}

// Throws std::invalid_argument naming the first pair that first_bad_pair finds: "player index (a, b) of
// <noun> <p> is outside [0, n)", "<noun> <p> is player a against themself", or for PairRule::increasing
// "<noun> <p> is (a, b); need 0 <= lo < hi < n". Returns when there is none.
inline void check_pairs(std::int64_t n, std::int64_t m, const std::int32_t* a, const std::int32_t* b, PairRule rule,
                        const char* noun) {
    const std::int64_t p = first_bad_pair(n, m, a, b, rule);
    if (p == m) return;
    const std::int64_t x = a[p], y = b[p];
    const std::string where = std::string(noun) + " " + std::to_string(p);
    if (rule == PairRule::increasing)
        throw std::invalid_argument(where + " is (" + std::to_string(x) + ", " + std::to_string(y) +
                                    "); need 0 <= lo < hi < " + std::to_string(n));
    if (x >= 0 && x < n && y >= 0 && y < n)  // in range: the rule is broken
        throw std::invalid_argument(where + " is player " + std::to_string(x) + " against themself");
    throw std::invalid_argument("player index (" + std::to_string(x) + ", " + std::to_string(y) + ") of " + where +
                                " is outside [0, " + std::to_string(n) + ")");
}

}  // namespace discrank
