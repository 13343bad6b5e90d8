#include "model/faults.h"

#include <algorithm>

#include "model/trace.h"
#include "text/errors.h"

namespace attnlab {

const std::vector<FaultInfo>& all_faults() {
  static const std::vector<FaultInfo> faults = {
      {Fault::ScaleByDModel, "scale_by_d_model", "Scores scaled by √d_model instead of √d_head",
       "every score is √heads times too small: the softmax is flatter (closer to uniform) than it should be"},
      {Fault::NoScaling, "no_scaling", "Scores not scaled at all",
       "every score is √d_head times too large: the softmax saturates, one key takes almost all the weight"},
      {Fault::SoftmaxOverQueries, "softmax_over_queries", "Softmax over the queries (dim = −2) instead of the keys",
       "each column of the weights sums to 1 and the rows do not; a key masked for every query gives a NaN column"},
      {Fault::MaskAfterSoftmax, "mask_after_softmax", "Mask applied after the softmax",
       "masked weights are 0 but the rows that had masked keys sum to less than 1"},
      {Fault::MaskFillZero, "mask_fill_zero", "Mask filled with 0 instead of −∞",
       "masked keys still get weight: a score of 0 is not small enough to hide them"},
      {Fault::MaskWrongBroadcast, "mask_wrong_broadcast", "Padding mask broadcast along the wrong axis",
       "real queries attend to [PAD] keys, and [PAD] queries see no key at all (NaN rows)"},
      {Fault::SplitWithoutTranspose, "split_without_transpose", "Head split as one view, without the transpose",
       "each head's rows are consecutive slices of the flat (S·D) numbers: heads mix positions and features"},
      {Fault::MergeWithoutTranspose, "merge_without_transpose", "Head merge as one view, without transpose + contiguous",
       "the context holds the right numbers in the wrong places: a row mixes heads and query positions"},
      {Fault::CausalTransposed, "causal_transposed", "Look-ahead mask transposed",
       "each token attends to itself and the future: weight above the diagonal, none below it"},
      {Fault::SharedQkvProjection, "shared_qkv_projection", "One projection (W_Q) shared by Q, K and V",
       "in self-attention k and v equal q: every score is a query's dot product with the queries"},
      {Fault::DetachAttentionOutput, "detach_attention_output", "Attention output detached from the graph",
       "the forward numbers are unchanged, but no gradient reaches the attention: its parameters get none "
       "and never learn, so the loss stops going down"},
      {Fault::IndivisibleHeads, "indivisible_heads", "d_model not divisible by heads, forced through",
       "the head split's view fails with the framework's error, naming both shapes"},
  };
  return faults;
}

const FaultInfo& fault_info(Fault f) {
  for (const auto& info : all_faults())
    if (info.fault == f) return info;
  throw std::logic_error("fault_info: unknown fault value");
}

Fault parse_fault(std::string_view id) {
  std::string valid;
  for (const auto& info : all_faults()) {
    if (info.id == id) return info.fault;
    valid += (valid.empty() ? "" : ", ") + std::string(info.id);
  }
  throw ConfigError(Text(Msg::ls_unknown_fault, id, valid));
}

Trace without_fault_labels(const Trace& faulty, const Trace& correct) {
  Trace out;
  for (const Step& s : faulty.steps()) {
    StepInfo info = s.info;
    info.fault.clear();
    if (const Step* c = correct.find(s.info.id)) {
      info.title = c->info.title;
      info.formula = c->info.formula;
      info.code = c->info.code;
      const bool sourcesExist = std::all_of(c->info.bindings.begin(), c->info.bindings.end(),
                                            [&](const StepInfo::Binding& b) { return b.weight || faulty.find(b.source); });
      if (sourcesExist) info.bindings = c->info.bindings;
    } else {  // a step only the fault makes: its bare name ("detached"; its gradient's too)
      const bool grad = s.info.id.ends_with(".grad");
      const std::string id = grad ? s.info.id.substr(0, s.info.id.size() - 5) : s.info.id;
      info.title = verbatim(id.substr(id.rfind('.') + 1));
      if (grad) info.title = Text(Msg::sg_gradient_of_1, info.title);
      info.formula = Text();
    }
    out.record(std::move(info), s.tensor);
  }
  return out;
}

}  // namespace attnlab
