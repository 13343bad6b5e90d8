// The pool's rules in full (block_pool.h gives the why): blocks of 1 MiB and more, reused for the
// same size only; at most a quarter of the memory the process may use (the machine's, or its
// container's cgroup limit; 4 GiB at most); to keep a newly freed block, kept blocks of other
// sizes go back to the system first, so sizes a later run never asks for do not fill it for good;
// before an allocation is refused everything kept goes back and it is tried once more.
#include "tensor/block_pool.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

// Sanitizer builds keep nothing: a reused block would hide a use after free (ASan, HWASan) or a
// read of memory never written (MSan).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_HWADDRESS__)
#define ATTNLAB_POOL_OFF 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(hwaddress_sanitizer) || __has_feature(memory_sanitizer)
#define ATTNLAB_POOL_OFF 1
#endif
#endif

namespace attnlab {

namespace {

constexpr std::size_t kLarge = std::size_t(1) << 20;
constexpr std::align_val_t kAlign{kBlockAlign};

// The memory this process may use: the machine's, or a container's limit (cgroup v2) if lower.
std::uint64_t usable_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  std::uint64_t ram = pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : (std::uint64_t(4) << 30);
  std::ifstream limit("/sys/fs/cgroup/memory.max");
  std::uint64_t v = 0;
  if (limit >> v && v > 0) ram = std::min(ram, v);  // "max" (no limit) does not parse
  return ram;
}

std::uint64_t pool_cap() { return std::min<std::uint64_t>(usable_memory() / 4, std::uint64_t(4) << 30); }

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
  try {
    return ::operator new(bytes, kAlign);
  } catch (const std::bad_alloc&) {  // what the pool keeps goes back first, then one more try
    trim_block_pool();
  }
#endif
  return ::operator new(bytes, kAlign);
}

void release_block(void* b, [[maybe_unused]] std::size_t bytes) noexcept {  // unused with the pool off
  if (!b) return;
#ifndef ATTNLAB_POOL_OFF
  if (bytes >= kLarge) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    // Sizes a later run never asks for again must not fill the pool for good: room is made by
    // letting other kept blocks go, the newest block kept.
    for (auto it = p.free.begin(); it != p.free.end() && p.stats.cached_bytes + bytes > p.cap && bytes <= p.cap;) {
      while (!it->second.empty() && p.stats.cached_bytes + bytes > p.cap) {
        ::operator delete(it->second.back(), kAlign);
        it->second.pop_back();
        p.stats.cached_bytes -= it->first;
      }
      it = it->second.empty() ? p.free.erase(it) : std::next(it);
    }
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
