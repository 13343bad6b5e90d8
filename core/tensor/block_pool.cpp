#include "tensor/block_pool.h"

#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define ATTNLAB_POOL_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATTNLAB_POOL_OFF 1
#endif
#endif

namespace attnlab {

namespace {

constexpr std::size_t kLarge = std::size_t(1) << 20;
constexpr std::align_val_t kAlign{kBlockAlign};

std::uint64_t pool_cap() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  const std::uint64_t ram = pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : (std::uint64_t(4) << 30);
  return std::min<std::uint64_t>(ram / 4, std::uint64_t(4) << 30);
}

struct Pool {
  std::mutex mutex;
  std::unordered_map<std::size_t, std::vector<void*>> free;  // by exact size
  BlockPoolStats stats;
  const std::uint64_t cap = pool_cap();
};

Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: tensors may be freed by static destructors
  return *p;
}

}  // namespace

void* allocate_block(std::size_t bytes) {
#ifndef ATTNLAB_POOL_OFF
  if (bytes >= kLarge) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    auto it = p.free.find(bytes);
    if (it != p.free.end() && !it->second.empty()) {
      void* b = it->second.back();
      it->second.pop_back();
      p.stats.cached_bytes -= bytes;
      ++p.stats.reused;
      return b;
    }
    ++p.stats.fresh;
  }
#endif
  return ::operator new(bytes, kAlign);
}

void release_block(void* b, std::size_t bytes) noexcept {
  if (!b) return;
#ifndef ATTNLAB_POOL_OFF
  if (bytes >= kLarge) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (p.stats.cached_bytes + bytes <= p.cap) {
      try {
        p.free[bytes].push_back(b);
        p.stats.cached_bytes += bytes;
        return;
      } catch (...) {  // no room for the bookkeeping: the block goes back to the system
      }
    }
  }
#endif
  ::operator delete(b, kAlign);
}

BlockPoolStats block_pool_stats() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  return p.stats;
}

void trim_block_pool() {
  Pool& p = pool();
  std::lock_guard<std::mutex> lock(p.mutex);
  for (auto& [bytes, blocks] : p.free)
    for (void* b : blocks) ::operator delete(b, kAlign);
  p.free.clear();
  p.stats.cached_bytes = 0;
}

}  // namespace attnlab
