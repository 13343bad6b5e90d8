// Where tensors' memory comes from. Blocks of 1 MiB and more are kept when freed and handed out
// again for the same size: a forward or backward pass frees and makes the same few large tensors
// (a (B, H, S, S) score or its gradient) over and over, and fresh pages from the kernel cost a
// page fault each on first touch — on a virtual machine so dearly that the backward at S 2048 ×
// 16 heads spent most of its time there (18× slower; README, issue notes). The pool holds at most
// a quarter of the machine's memory (4 GiB at most); beyond that a freed block goes back to the
// system. AddressSanitizer builds keep no blocks, so a use after free is still caught.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attnlab {

inline constexpr std::size_t kBlockAlign = 64;  // every block starts on a 64-byte boundary

void* allocate_block(std::size_t bytes);                // throws std::bad_alloc
void release_block(void* p, std::size_t bytes) noexcept;  // bytes: as allocated

struct BlockPoolStats {
  std::uint64_t cached_bytes = 0, reused = 0, fresh = 0;  // fresh: large blocks from the system
};
BlockPoolStats block_pool_stats();
void trim_block_pool();  // every kept block back to the system

}  // namespace attnlab
