// SPDX-License-Identifier: Apache-2.0
// stm/buffer.hpp - stm::buffer<T>: the move-only owner of an array that kernels
// (GPU backend) or threads (CPU backend) work on.
//
// Guarantees: the memory is zero-filled and aligned to at least 256 bytes; a
// device allocation larger than the free device memory is refused with a
// usage_error before anything is allocated; every CUDA call is checked.
// Pass buffer.data() (a plain pointer) or a *_ref built from it into kernels,
// never the buffer itself.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stm/backend.hpp"
#include "stm/error.hpp"

namespace stm {

template <class T>
class buffer {
  static_assert(std::is_trivially_copyable_v<T>, "buffers hold trivially copyable elements");

 public:
  buffer() = default;

  buffer(backend where, std::size_t count) : where_(where), size_(count) {
    if (count == 0) return;
    const std::size_t bytes = count * sizeof(T);
    if (bytes / sizeof(T) != count) throw usage_error("buffer of " + std::to_string(count) + " elements overflows");
    if (where == backend::gpu) {
#if STM_WITH_CUDA
      std::size_t free_bytes = 0, total_bytes = 0;
      STM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
      if (bytes > free_bytes)
        throw usage_error("cannot allocate " + std::to_string(bytes) + " bytes on the GPU: only " +
                          std::to_string(free_bytes) + " of " + std::to_string(total_bytes) + " bytes are free");
      void* p = nullptr;
      STM_CUDA_CHECK(cudaMalloc(&p, bytes));
      data_ = static_cast<T*>(p);
      STM_CUDA_CHECK(cudaMemset(data_, 0, bytes));
#else
      throw usage_error("this build has no GPU backend");
#endif
    } else {
      const std::size_t rounded = (bytes + 255) / 256 * 256;
      void* p = std::aligned_alloc(256, rounded);
      if (!p)
        throw usage_error("cannot allocate " + std::to_string(bytes) + " bytes of host memory");
      std::memset(p, 0, rounded);
      data_ = static_cast<T*>(p);
    }
  }

  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;
  buffer(buffer&& o) noexcept { swap(o); }
  buffer& operator=(buffer&& o) noexcept {
    buffer tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  ~buffer() { release(); }

  T* data() const { return data_; }
  std::size_t size() const { return size_; }
  std::size_t bytes() const { return size_ * sizeof(T); }
  backend where() const { return where_; }

  /// Copy count elements from host memory into [offset, offset + count).
  void upload(const T* src, std::size_t count, std::size_t offset = 0) {
    check_range(offset, count);
    copy(data_ + offset, src, count * sizeof(T), /*to_device=*/true);
  }
  void upload(const std::vector<T>& src) { upload(src.data(), src.size()); }

  /// Copy [offset, offset + count) into host memory.
  void download(T* dst, std::size_t count, std::size_t offset = 0) const {
    check_range(offset, count);
    copy(dst, data_ + offset, count * sizeof(T), /*to_device=*/false);
  }
  std::vector<T> to_vector() const {
    std::vector<T> out(size_);
    download(out.data(), size_);
    return out;
  }

  /// Set every element to v.
  void fill(const T& v) { upload(std::vector<T>(size_, v)); }

 private:
  void check_range(std::size_t offset, std::size_t count) const {
    if (offset > size_ || count > size_ - offset)
      throw usage_error("buffer access [" + std::to_string(offset) + ", " + std::to_string(offset + count) +
                        ") outside its " + std::to_string(size_) + " elements");
  }
  void copy(void* dst, const void* src, std::size_t bytes, bool to_device) const {
    if (bytes == 0) return;
    if (where_ == backend::gpu) {
#if STM_WITH_CUDA
      STM_CUDA_CHECK(cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
#else
      (void)to_device;
#endif
    } else {
      std::memcpy(dst, src, bytes);
    }
  }
  void release() noexcept {
    if (!data_) return;
    if (where_ == backend::gpu) {
#if STM_WITH_CUDA
      cudaFree(data_);  // never throws from a destructor; a failure here leaves nothing to repair
#endif
    } else {
      std::free(data_);
    }
    data_ = nullptr;
  }
  void swap(buffer& o) noexcept {
    std::swap(where_, o.where_);
    std::swap(size_, o.size_);
    std::swap(data_, o.data_);
  }

  backend where_ = backend::cpu;
  std::size_t size_ = 0;
  T* data_ = nullptr;
};

}  // namespace stm
