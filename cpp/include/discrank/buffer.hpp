// Large scratch arrays backed by transparent huge pages where the kernel offers them.
//
// A fresh allocation of m bytes costs a page fault per 4 KiB page on first touch; on the machines we
// measured, that is about 0.6 ms per MiB, more than the work done on the memory (a radix sort pass over
// 100 MB is ~10 ms, faulting its buffers in ~60 ms). Asking for 2 MiB pages (madvise MADV_HUGEPAGE on a
// 2 MiB-aligned block, as numpy does for its own arrays) cuts that by 4-5x. Small arrays use new[].
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace discrank {

namespace detail {

struct FreeDeleter {
    void operator()(void* p) const noexcept { std::free(p); }
};

}  // namespace detail

// An uninitialised array of `size` trivially copyable T (every slot must be written before it is read).
template <class T>
class Buffer {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>, "plain data only");

public:
    Buffer() = default;
    explicit Buffer(std::size_t size) { reset(size); }

    void reset(std::size_t size) {
        constexpr std::size_t kHuge = std::size_t{2} << 20;
        const std::size_t bytes = (size > 0 ? size : 1) * sizeof(T);
        void* p = nullptr;
        if (bytes >= 2 * kHuge) {
            const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
            p = std::aligned_alloc(kHuge, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
            if (p) madvise(p, rounded, MADV_HUGEPAGE);  // advice only: ignored where not supported
#endif
        } else {
            p = std::malloc(bytes);
        }
        if (!p) throw std::bad_alloc();
        data_.reset(p);
        size_ = size;
    }

    T* get() const { return static_cast<T*>(data_.get()); }
    T& operator[](std::size_t k) const { return get()[k]; }
    std::size_t size() const { return size_; }
    explicit operator bool() const { return static_cast<bool>(data_); }

private:
    std::unique_ptr<void, detail::FreeDeleter> data_;
    std::size_t size_ = 0;
};

}  // namespace discrank
