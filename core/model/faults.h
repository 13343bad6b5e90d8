// Fault switches: the classic attention bugs, reproduced faithfully so a learner can see their
// symptoms. Every switch is off by default; a faulty run records which faults were on (and the
// steps they changed) in its trace.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

enum class Fault {
  ScaleByDModel,          // scores = QKᵀ / √d_model instead of / √d_head
  NoScaling,              // scores = QKᵀ
  SoftmaxOverQueries,     // softmax(dim = −2): columns sum to 1, rows do not
  MaskAfterSoftmax,       // softmax first, then masked_fill(mask == 0, 0): rows no longer sum to 1
  MaskFillZero,           // masked_fill(mask == 0, 0) instead of −∞: masked keys still get weight
  MaskWrongBroadcast,     // a (B, 1, S) padding mask built as (B, S, 1): it hides queries, not keys
  SplitWithoutTranspose,  // q.view(B, H, S, Dh) straight from (B, S, D): heads mix positions
  MergeWithoutTranspose,  // head_out.view(B, S, D) without transpose + contiguous
  CausalTransposed,       // the look-ahead mask transposed: each token sees the future, not the past
  SharedQkvProjection,    // one projection (the Q rows) used for Q, K and V
  DetachAttentionOutput,  // out.detach(): the same forward numbers, but no gradient flows back into attention
  IndivisibleHeads,       // d_model not divisible by heads forced through: the framework's error
};

struct FaultInfo {
  Fault fault;
  std::string_view id;       // stable, e.g. "scale_by_d_model" (exercise files use it)
  std::string_view title;    // English; the UI translates by id
  std::string_view symptom;  // what a learner can observe
};

const std::vector<FaultInfo>& all_faults();
const FaultInfo& fault_info(Fault f);
Fault parse_fault(std::string_view id);  // throws ConfigError naming the id and listing valid ones

using FaultSet = std::set<Fault>;

class Trace;
// A faulty run as a learner hunting its bug sees it: every step that the correct run also has
// takes that step's title, formula, code and bindings (so nothing says "(fault)"); a step only the
// faulty run has is named by its id alone; every `fault` mark is cleared. The tensors are the
// faulty run's (shared, not copied).
Trace without_fault_labels(const Trace& faulty, const Trace& correct);

}  // namespace attnlab
