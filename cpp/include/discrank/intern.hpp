// A label table for scans over many files: each distinct label (a UTF-8 string, or a 64-bit integer)
// gets a code 0, 1, 2, ... in first-seen order, kept across calls, without one Python object per label.
//
// Storage per distinct label: its bytes in one arena, an 8-byte offset, an 8-byte cached hash, and the
// open-addressing slots (4 bytes each, at most half full: 8 to 16 bytes per label). At the end the
// labels are ranked (strings by their UTF-8 bytes, which is the order of their code points, so the order
// of Python's sorted(); integers by value) so that the caller can renumber its codes as the in-memory
// aggregation numbers them (the sorted distinct labels).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace discrank {

class LabelTable {
  public:
    explicit LabelTable(bool strings) : strings_(strings) { slots_.assign(1024, 0); offsets_.push_back(0); }

    bool strings() const { return strings_; }
    std::int64_t size() const { return static_cast<std::int64_t>(hashes_.size()); }

    // The code of a string label, added if new.
    std::int32_t code(std::string_view s) { return find_or_add(hash_bytes(s.data(), s.size()), s, 0); }

    // The code of an integer label, added if new.
    std::int32_t code(std::int64_t v) { return find_or_add(mix(static_cast<std::uint64_t>(v)), {}, v); }

    std::string_view string_at(std::int64_t c) const {
        return {arena_.data() + offsets_[c], static_cast<std::size_t>(offsets_[c + 1] - offsets_[c])};
    }
    std::int64_t int_at(std::int64_t c) const { return ints_[c]; }

    // Codes in the order of their labels (strings: bytewise; integers: as signed, or as unsigned values).
    std::vector<std::int32_t> order(bool unsigned_ints) const {
        std::vector<std::int32_t> out(hashes_.size());
        std::iota(out.begin(), out.end(), 0);
        if (strings_)
            std::sort(out.begin(), out.end(), [&](std::int32_t x, std::int32_t y) { return string_at(x) < string_at(y); });
        else if (unsigned_ints)
            std::sort(out.begin(), out.end(), [&](std::int32_t x, std::int32_t y) {
                return static_cast<std::uint64_t>(ints_[x]) < static_cast<std::uint64_t>(ints_[y]);
            });
        else
            std::sort(out.begin(), out.end(), [&](std::int32_t x, std::int32_t y) { return ints_[x] < ints_[y]; });
        return out;
    }

    // Bytes held by the table.
    std::int64_t nbytes() const {
        return static_cast<std::int64_t>(arena_.capacity() + offsets_.capacity() * 8 + hashes_.capacity() * 8 +
                                         ints_.capacity() * 8 + slots_.capacity() * 8);
    }

    // Codes are int32: at most this many labels.
    static constexpr std::int64_t kMaxLabels = 2147483647LL - 1;

  private:
    static std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebULL;
        return x ^ (x >> 31);
    }
    static std::uint64_t hash_bytes(const char* p, std::size_t n) {  // FNV-1a, then mixed
        std::uint64_t h = 1469598103934665603ULL;
        for (std::size_t t = 0; t < n; ++t) h = (h ^ static_cast<unsigned char>(p[t])) * 1099511628211ULL;
        return mix(h ^ n);
    }

    bool same(std::int32_t c, std::uint64_t h, std::string_view s, std::int64_t v) const {
        if (hashes_[c] != h) return false;
        return strings_ ? string_at(c) == s : ints_[c] == v;
    }

    // A slot: the hash's high 32 bits, then code + 1 (0: empty), so that most probes of other labels
    // are told apart without reading the label.
    static std::uint64_t slot(std::uint64_t h, std::int32_t c) {
        return (h & 0xffffffff00000000ULL) | static_cast<std::uint32_t>(c + 1);
    }

    std::int32_t find_or_add(std::uint64_t h, std::string_view s, std::int64_t v) {
        const std::size_t mask = slots_.size() - 1;
        std::size_t at = static_cast<std::size_t>(h) & mask;
        const std::uint64_t tag = h & 0xffffffff00000000ULL;
        while (slots_[at] != 0) {
            if ((slots_[at] & 0xffffffff00000000ULL) == tag) {
                const auto c = static_cast<std::int32_t>(static_cast<std::uint32_t>(slots_[at]) - 1);
                if (same(c, h, s, v)) return c;
            }
            at = (at + 1) & mask;
        }
        if (size() >= kMaxLabels) throw std::length_error("more than 2^31 - 2 distinct labels");
        const auto c = static_cast<std::int32_t>(hashes_.size());
        hashes_.push_back(h);
        if (strings_) {
            arena_.insert(arena_.end(), s.begin(), s.end());
            offsets_.push_back(static_cast<std::int64_t>(arena_.size()));
        } else {
            ints_.push_back(v);
        }
        slots_[at] = slot(h, c);
        if (2 * hashes_.size() > slots_.size()) grow();
        return c;
    }

    void grow() {
        std::vector<std::uint64_t> fresh(slots_.size() * 2, 0);
        const std::size_t mask = fresh.size() - 1;
        for (std::size_t c = 0; c < hashes_.size(); ++c) {
            std::size_t at = static_cast<std::size_t>(hashes_[c]) & mask;
            while (fresh[at] != 0) at = (at + 1) & mask;
            fresh[at] = slot(hashes_[c], static_cast<std::int32_t>(c));
        }
        slots_.swap(fresh);
    }

    bool strings_;
    std::vector<char> arena_;
    std::vector<std::int64_t> offsets_;
    std::vector<std::int64_t> ints_;
    std::vector<std::uint64_t> hashes_;
    std::vector<std::uint64_t> slots_;
};

}  // namespace discrank
