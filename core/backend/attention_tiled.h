// Attention without the score matrix, on the CPU: FlashAttention-2's loop. For each (batch,
// head, block of query rows) the keys and values go by in blocks; each query row keeps its
// running maximum m, running sum l and unnormalised output o, rescaled by e^(m_old − m_new)
// whenever the maximum grows (the online softmax). Extra memory: one Bq × Bk score block and
// one Bq × Dh output block per thread, whatever S is. Key blocks that a causal mask hides
// entirely are skipped.
//
// Shapes: q (B, H, Tq, Dh), k and v (B, H, Tk, Dh), any strides with a unit last stride (the
// head split's views); the mask as key ranges (B·Tq intervals, key_ranges.h) or dense
// (B, Tq, Tk) contiguous, 1 = attend, 0 = masked → (B, H, Tq, Dh), equal to
// softmax(q·kᵀ / root, −∞ where masked)·v; a row with every key masked is NaN. attention_tiled
// returns it as a view of (B, Tq, H, Dh) storage (the heads' merge is then a view, no copy); the
// overview's run returns C-order (B, H, Tq, Dh), as the traced steps show it.
#pragma once

#include "tensor/key_ranges.h"
#include "tensor/tensor.h"

namespace attnlab {

// 128 × 256: of 32–256 query rows × 256–512 keys, the fastest at S 512 and 2048, with and without
// the causal mask, by 3–6 % over 64 × 256 (bench_kernels' BM_AttentionTiles, 2026-12-06; larger
// blocks waste more on the causal diagonal, smaller ones call the GEMM engine more often).
struct TileSizes {
  int64_t queries = 128;  // Bq: query rows per block (and per task)
  int64_t keys = 256;     // Bk: keys per block
};

// The query rows per block a run uses: tiles.queries, halved (not below 64, the size before 128
// was measured best on 2 threads) while B·H·⌈Tq / Bq⌉ blocks would give fewer than two tasks per
// thread — a many-core CPU at a classroom length would otherwise leave threads idle.
int64_t tiled_query_rows(TileSizes tiles, int64_t batch_heads, int64_t tq, int threads);
// The fast path's query rows when every row sees as many keys (its tasks then split statically,
// a run of consecutive tasks per thread): bq halved further, in multiples of 16 and not below 16,
// until the batch has as many query blocks as threads — so a thread takes whole blocks, every head
// of its rows, the rows the output projection's cut by rows then gives it (gemm.h).
int64_t whole_block_rows(int64_t bq, int64_t batch, int64_t tq, int threads);

// A mask given by ranges only: nothing of size Tq × Tk is read or made.
Tensor attention_tiled(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& mask, float root,
                       TileSizes tiles = {});
// A dense mask: its rows' ranges bound the key blocks; it is read element by element only when
// some row is not one interval (a hand-drawn mask).
Tensor attention_tiled(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, float root,
                       TileSizes tiles = {});

// Tiled attention that also keeps an overview of its weights, for a traced run whose score
// tensors would not fit: overview (B, H, ⌈Tq / bq⌉, ⌈Tk / bk⌉) for bins of bq = ⌈Tq / cap⌉
// queries and bk = ⌈Tk / cap⌉ keys holds, per bin pair, the mean over the bin's queries of the
// weight they give the bin's keys. Its rows sum to 1 like the weights' (less where a query sees
// no key at all: such a query adds nothing); with Tq, Tk ≤ cap it is the weights themselves.
struct TiledAttention {
  Tensor out;       // (B, H, Tq, Dh)
  Tensor overview;  // (B, H, R, C)
};
TiledAttention attention_tiled_overview(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask,
                                        float root, int64_t cap = 256, TileSizes tiles = {});
// The same with the mask as key ranges: a traced tiled run with no (B, Tq, Tk) tensor at all.
TiledAttention attention_tiled_overview(const Tensor& q, const Tensor& k, const Tensor& v, const KeyRanges& mask,
                                        float root, int64_t cap = 256, TileSizes tiles = {});
inline int64_t overview_bin(int64_t t, int64_t cap) { return t <= cap ? 1 : (t + cap - 1) / cap; }

}  // namespace attnlab
