// Validation of index arrays at the speed of a pass: blocks scanned without a branch per entry (the
// compiler vectorises the inner loop), the first offending entry then found in its block.
#pragma once

#include <algorithm>
#include <cstdint>

namespace discrank {

// The first p with a[p] or b[p] outside [0, n), or (with `distinct`) a[p] == b[p]; m if none.
inline std::int64_t first_bad_pair(std::int64_t n, std::int64_t m, const std::int32_t* a, const std::int32_t* b,
                                   bool distinct) {
    constexpr std::int64_t kBlock = 4096;
    const auto un = static_cast<std::uint32_t>(n);
    const std::uint32_t same_counts = distinct ? 1u : 0u;
    for (std::int64_t lo = 0; lo < m; lo += kBlock) {
        const std::int64_t hi = std::min(m, lo + kBlock);
        std::uint32_t bad = 0;
        for (std::int64_t p = lo; p < hi; ++p)
            bad |= static_cast<std::uint32_t>(static_cast<std::uint32_t>(a[p]) >= un) |
                   static_cast<std::uint32_t>(static_cast<std::uint32_t>(b[p]) >= un) |
                   (static_cast<std::uint32_t>(a[p] == b[p]) & same_counts);
        if (bad)
            for (std::int64_t p = lo; p < hi; ++p)
                if (static_cast<std::uint32_t>(a[p]) >= un || static_cast<std::uint32_t>(b[p]) >= un ||
                    (distinct && a[p] == b[p]))
                    return p;
    }
    return m;
}

}  // namespace discrank
