// "What happens here and why" for every kind of step (StepText::explanation). Written for a
// learner who sees the step's tensor beside the text: what the operation does to the numbers,
// and the reason a Transformer does it.
#include <map>

#include "backward/model_backward.h"
#include "words/steptext.h"
#include "words/varianttext.h"

namespace attnlab::ui {

namespace {

const std::map<std::string, const char*>& explanations() {
  static const std::map<std::string, const char*> m = {
      {"embedding_table",
       QT_TRANSLATE_NOOP("StepText",
                         "Each row of this table is one token's vector, d_model long. A trained model learned its "
                         "rows, one for every entry of its vocabulary ([UNK] stands for every word it does not "
                         "know); with random weights each distinct word of the batch gets seeded random numbers, so "
                         "two runs with the same seed agree exactly. The padding token's row is all zeros.")},
      {"output_head.logits",
       QT_TRANSLATE_NOOP("StepText",
                         "A trained model's output head turns each position's final vector into one score per "
                         "vocabulary entry: a dot product with that entry's row of W, plus a bias. A high score means "
                         "the model thinks that token belongs here. This is where all the attention above pays off.")},
      {"output_head.probs",
       QT_TRANSLATE_NOOP("StepText",
                         "Softmax turns the scores into probabilities that sum to 1 over the vocabulary. For a "
                         "language model, position i's row is its guess at the next token; for a task like sorting, "
                         "its guess at the answer's token at position i. The Predictions panel lists the best ones.")},
      {"token_ids",
       QT_TRANSLATE_NOOP("StepText",
                         "The sentences become integers: each token is replaced by its row number in the "
                         "vocabulary. Shorter sentences are filled up with [PAD] (id 0) so that the batch is a "
                         "rectangle of B rows and S columns.")},
      {"embedding",
       QT_TRANSLATE_NOOP("StepText",
                         "Each id picks its row of the embedding table. The batch is now a (B, S, D) tensor: one "
                         "vector per token. Nothing here knows about word order yet — the same word gets the same "
                         "vector wherever it stands.")},
      {"positional",
       QT_TRANSLATE_NOOP("StepText",
                         "Attention itself is blind to order, so position must be written into the numbers. Each "
                         "position p gets a fixed pattern of sines and cosines at different frequencies; nearby "
                         "positions get similar patterns, and the model can read relative offsets from them. With "
                         "learned positions (GPT-2, BERT) each position instead has its own row of a trained "
                         "table, looked up like a token's embedding, and no text may be longer than the table.")},
      {"input",
       QT_TRANSLATE_NOOP("StepText",
                         "The token vectors plus the position code: this sum is what the first layer reads (BERT "
                         "normalises it first: then this step is that LayerNorm). From here on, every layer keeps "
                         "the shape (B, S, D) and only changes the numbers.")},
      {"embeddings",
       QT_TRANSLATE_NOOP("StepText",
                         "BERT adds three vectors per piece: its token's, its position's and its segment's. The sum's "
                         "scale varies from piece to piece, so BERT normalises it with a LayerNorm (the next step) "
                         "before the first layer reads it.")},
      {"token_type",
       QT_TRANSLATE_NOOP("StepText",
                         "BERT was trained on pairs of sentences, and each piece says which of the two it belongs to "
                         "by adding a learned segment vector. One text is all sentence A, so every position adds the "
                         "same row 0.")},
      {"output_head.transform",
       QT_TRANSLATE_NOOP("StepText",
                         "BERT's masked-word head does not read the last layer directly: a dense layer (D → D), a "
                         "GELU and a LayerNorm first turn each position's vector into one shaped like a word "
                         "embedding, which the tied table then scores against every vocabulary piece.")},
      {"output_head.transform_act",
       QT_TRANSLATE_NOOP("StepText",
                         "The head transform's activation, the same GELU the feed-forward layers use.")},
      {"output_head.transform_norm",
       QT_TRANSLATE_NOOP("StepText",
                         "The head transform's LayerNorm: each position's vector normalised, then scaled and shifted, "
                         "before its dot product with every row of the embedding table.")},
      {"mask",
       QT_TRANSLATE_NOOP("StepText",
                         "The mask says which keys each query may look at (1) and which it must ignore (0). "
                         "Padding masks hide the [PAD] keys, which carry no meaning; a causal mask hides the keys "
                         "that come later, so that a token cannot peek at the future.")},
      {"self_mask",
       QT_TRANSLATE_NOOP("StepText",
                         "The decoder's own mask is causal: while producing token t it may only look at tokens up "
                         "to t, exactly as when it generates text one token at a time. Padding is hidden as "
                         "well.")},
      {"cross_mask",
       QT_TRANSLATE_NOOP("StepText",
                         "In cross-attention the queries come from the decoder and the keys from the encoder's "
                         "sentence. Only the encoder's padding is hidden: every decoder token may read the whole "
                         "source sentence.")},
      {"q_proj",
       QT_TRANSLATE_NOOP("StepText",
                         "A learned linear map turns each token's vector into its query: what this token is "
                         "looking for. The same matrix W_Q is applied to every token, so the shape stays "
                         "(B, S, D).")},
      {"k_proj",
       QT_TRANSLATE_NOOP("StepText",
                         "A second linear map gives each token its key: what it offers to be found by. A query "
                         "and a key that point in a similar direction will give a large score later.")},
      {"v_proj",
       QT_TRANSLATE_NOOP("StepText",
                         "The third linear map gives each token its value: the content it hands over when "
                         "another token attends to it. Keys decide who is read; values are what is read.")},
      {"q_view",
       QT_TRANSLATE_NOOP("StepText",
                         "view cuts the last axis D into H heads of Dh = D / H numbers each. No number moves in "
                         "memory: the same storage is read with a new shape, (B, S, H, Dh). Each head will work "
                         "on its own slice of the vector.")},
      {"q",
       QT_TRANSLATE_NOOP("StepText",
                         "transpose swaps the sequence and head axes to (B, H, S, Dh), so that each head holds a "
                         "(S, Dh) matrix and all heads can be processed as one batch. Only the strides change; "
                         "the tensor is no longer contiguous.")},
      {"k_t",
       QT_TRANSLATE_NOOP("StepText",
                         "To multiply queries by keys, the keys are turned on their side: (S, Dh) becomes "
                         "(Dh, S) in every head. Again only the strides change.")},
      {"qk",
       QT_TRANSLATE_NOOP("StepText",
                         "Every query is compared with every key by a dot product. The result is one (S, S) "
                         "score matrix per head: row i says how strongly token i's query matches each key.")},
      {"scores",
       QT_TRANSLATE_NOOP("StepText",
                         "The dot products grow with the length Dh of the vectors. Dividing by √Dh keeps their "
                         "spread near 1 whatever the head size, so the softmax that follows is not pushed into "
                         "a near one-hot choice with vanishing gradients.")},
      {"masked_scores",
       QT_TRANSLATE_NOOP("StepText",
                         "Where the mask is 0 the score is replaced by −∞. After the softmax e^(−∞) = 0, so those "
                         "keys get a weight of exactly zero, and the remaining keys share the whole weight.")},
      {"unmasked_weights",
       QT_TRANSLATE_NOOP("StepText",
                         "A softmax taken before the mask: the hidden keys still take part, so the weight they "
                         "grab is missing from the keys that should have had it. This is the planted bug to "
                         "find.")},
      {"weights",
       QT_TRANSLATE_NOOP("StepText",
                         "The softmax turns each row of scores into weights that are positive and sum to 1: how "
                         "much of each key this query will read. These are the attention heatmaps, one per "
                         "head.")},
      {"detached",
       QT_TRANSLATE_NOOP("StepText",
                         "detach() returns the same numbers as a new tensor with no history: the forward pass cannot "
                         "tell the difference, but the backward pass stops here. Nothing before this step gets a "
                         "gradient through it, so the attention's weights never change while training.")},
      {"weights_overview",
       QT_TRANSLATE_NOOP("StepText",
                         "The tiled path never holds a whole (S, S) weight matrix, so this heatmap is an "
                         "overview: each cell is the average weight a group of queries gives a group of keys. "
                         "Rows still sum to 1.")},
      {"weights_head",
       QT_TRANSLATE_NOOP("StepText",
                         "One head of a tiled layer, kept whole because you asked for it: the same softmax of its "
                         "scaled, masked scores as in a layer traced in full, every query against every key, while "
                         "the layer's other heads stay an overview. One (S, S) matrix costs far less memory than the "
                         "layer's four score steps for every head.")},
      {"head_out",
       QT_TRANSLATE_NOOP("StepText",
                         "Each query's output is the weighted average of the value vectors, using its row of "
                         "weights. A token thereby gathers information from the tokens it attends to; every "
                         "head does this separately.")},
      {"merge_transpose",
       QT_TRANSLATE_NOOP("StepText",
                         "The heads are put back side by side: transpose returns to (B, S, H, Dh), so that each "
                         "token's results from all heads sit next to each other.")},
      {"merge_contiguous",
       QT_TRANSLATE_NOOP("StepText",
                         "After the transpose the numbers are not in row order in memory, and view needs them to "
                         "be. contiguous() copies them into a fresh, ordered block.")},
      {"context",
       QT_TRANSLATE_NOOP("StepText",
                         "view glues the H head outputs of each token into one vector of length D again: "
                         "(B, S, D), the same shape that came in.")},
      {"out",
       QT_TRANSLATE_NOOP("StepText",
                         "A last linear map W_O mixes the heads' results. Without it each head's output would "
                         "stay in its own slice of the vector; with it, the heads can combine what they found.")},
      {"residual",
       QT_TRANSLATE_NOOP("StepText",
                         "The sublayer's result is added to its input rather than replacing it. This keeps the "
                         "original signal flowing through deep stacks and gives gradients a short path "
                         "back.")},
      {"norm",
       QT_TRANSLATE_NOOP("StepText",
                         "LayerNorm rescales each token's vector to mean 0 and variance 1, then applies a learned "
                         "scale γ and shift β. It keeps the numbers in a stable range from layer to layer; "
                         "pre-norm applies it before each sublayer, post-norm after the residual.")},
      {"ffn.linear1",
       QT_TRANSLATE_NOOP("StepText",
                         "The feed-forward network works on each token on its own, with no mixing between "
                         "tokens. Its first linear map widens each vector from D to d_ff numbers (often 4·D).")},
      {"ffn.hidden",
       QT_TRANSLATE_NOOP("StepText",
                         "A non-linearity (ReLU or GELU) bends the numbers. Without it the two linear maps would "
                         "collapse into one, and stacking layers would add no expressive power.")},
      {"ffn.out",
       QT_TRANSLATE_NOOP("StepText",
                         "The second linear map brings each vector back from d_ff to D numbers, so that it can "
                         "be added to the residual stream.")},
      {"output",
       QT_TRANSLATE_NOOP("StepText",
                         "What this layer hands on: the same shape it received, (B, S, D), with every token now "
                         "informed by the tokens it attended to. The next layer starts from here.")},
  };
  return m;
}

// Said once more for the steps of cross-attention, where the roles of the two sentences differ.
const char* crossNote(const std::string& kind) {
  if (kind == "q_proj") return QT_TRANSLATE_NOOP("StepText", "Here the queries come from the decoder's tokens.");
  if (kind == "k_proj" || kind == "v_proj")
    return QT_TRANSLATE_NOOP("StepText", "Here the keys and values come from the encoder's output: the source sentence.");
  if (kind == "qk")
    return QT_TRANSLATE_NOOP("StepText", "The score matrix is (T, S): decoder tokens down, source tokens across.");
  return nullptr;
}

}  // namespace

QString StepText::faultTitle(Fault f) {
  static const std::map<Fault, const char*> titles = {
      {Fault::ScaleByDModel, QT_TRANSLATE_NOOP("StepText", "Scores scaled by √d_model instead of √d_head")},
      {Fault::NoScaling, QT_TRANSLATE_NOOP("StepText", "Scores not scaled at all")},
      {Fault::SoftmaxOverQueries, QT_TRANSLATE_NOOP("StepText", "Softmax over the queries (dim = −2) instead of the keys")},
      {Fault::MaskAfterSoftmax, QT_TRANSLATE_NOOP("StepText", "Mask applied after the softmax")},
      {Fault::MaskFillZero, QT_TRANSLATE_NOOP("StepText", "Mask filled with 0 instead of −∞")},
      {Fault::MaskWrongBroadcast, QT_TRANSLATE_NOOP("StepText", "Padding mask broadcast along the wrong axis")},
      {Fault::SplitWithoutTranspose, QT_TRANSLATE_NOOP("StepText", "Head split as one view, without the transpose")},
      {Fault::MergeWithoutTranspose,
       QT_TRANSLATE_NOOP("StepText", "Head merge as one view, without transpose + contiguous")},
      {Fault::CausalTransposed, QT_TRANSLATE_NOOP("StepText", "Look-ahead mask transposed")},
      {Fault::SharedQkvProjection, QT_TRANSLATE_NOOP("StepText", "One projection (W_Q) shared by Q, K and V")},
      {Fault::DetachAttentionOutput, QT_TRANSLATE_NOOP("StepText", "Attention output detached from the graph")},
      {Fault::IndivisibleHeads, QT_TRANSLATE_NOOP("StepText", "d_model not divisible by heads, forced through")},
  };
  const auto it = titles.find(f);
  return it == titles.end() ? QString::fromUtf8(fault_info(f).title.data()) : tr(it->second);
}

namespace {

// The backward pass's steps, by what they differentiate (kind() of the forward id; "param" for
// "grad/…"); anything else gets "".
const std::map<std::string, const char*>& gradExplanations() {
  static const std::map<std::string, const char*> m = {
      {"",
       QT_TRANSLATE_NOOP("StepText",
                         "The gradient of this step's tensor: for each number, how much the loss would change if it "
                         "grew a little. The backward pass computes it from the steps that used the tensor, last step "
                         "first (the chain rule); where the tensor was used twice, as the residual stream is, the shares "
                         "add up.")},
      {"weights",
       QT_TRANSLATE_NOOP("StepText",
                         "∂L/∂weights = dO·Vᵀ: a query's gradient on a key is large where leaning more on that key would "
                         "move the loss, that is where the key's value differs from what the query gathered. Red and "
                         "blue are the two signs; masked cells are hatched: nothing flows there.")},
      {"masked_scores",
       QT_TRANSLATE_NOOP("StepText",
                         "Through the softmax: dS = P ⊙ (dP − Σ dP ⊙ P). A masked key has P = 0, so its gradient is "
                         "exactly 0: the mask stops the gradient as it stopped the attention. A saturated row (one "
                         "weight near 1) passes almost nothing back, which is why the scores are divided by √d_head.")},
      {"scores",
       QT_TRANSLATE_NOOP("StepText", "The scaling divides the gradient too: dqk = dscores / √d_head.")},
      {"weights_overview",
       QT_TRANSLATE_NOOP("StepText",
                         "The tiled path's backward (FlashAttention-2's) never holds a whole score gradient either: it "
                         "recomputes the weights tile by tile from Q, K and each row's log-sum-exp, and passes dS = P ⊙ "
                         "(dP − rowsum(dO ⊙ O)) straight on to Q and K. This overview bins dS like the weights' "
                         "overview; a bin of masked keys sums to exactly 0.")},
      {"head_out",
       QT_TRANSLATE_NOOP("StepText",
                         "The gradient of each head's output splits in two: dweights = dO·Vᵀ and dv = Pᵀ·dO. On the "
                         "tiled path it goes straight on to Q, K and V (FlashAttention-2's backward): no (S, S) "
                         "gradient is kept, only the binned overview of ∂L/∂scores.")},
      {"q",
       QT_TRANSLATE_NOOP("StepText",
                         "∂L/∂Q = dS·K / √d_head, ∂L/∂K = dSᵀ·Q / √d_head: each query is pulled toward the keys that "
                         "should have scored higher. The head split's view and transpose are undone on the way back, "
                         "and the projections send the gradient on to W_Q, W_K, W_V and to the layer's input.")},
      {"norm",
       QT_TRANSLATE_NOOP("StepText",
                         "LayerNorm's backward removes the gradient's mean and its part along the normalised vector. "
                         "After a final LayerNorm with γ = 1 and β = 0 the sum of the output does not depend on the "
                         "input at all, so the `sum` loss gives exactly zero gradient before it: a trap worth seeing.")},
      {"residual",
       QT_TRANSLATE_NOOP("StepText",
                         "A residual connection passes its gradient to both branches unchanged: the shortcut carries "
                         "the gradient straight back past the sub-layer, which is why deep transformers can train.")},
      {"param",
       QT_TRANSLATE_NOOP("StepText",
                         "A parameter's gradient sums its uses over every token and sentence; an optimiser steps against "
                         "it. A zero or tiny gradient means the graph is broken or the initialisation is wrong: the "
                         "Gradients tab shows the norm of every parameter's gradient at once.")},
  };
  return m;
}

QString gradientExplanation(const std::string& id) {
  std::string k = is_param_grad(id) ? "param" : StepText::kind(forward_id_of(id));
  for (const char* same : {"k", "v", "q_proj", "k_proj", "v_proj", "q_view", "k_view", "v_view", "k_t"})
    if (k == same) k = "q";  // the projections and the head split read as Q does
  if (k == "qk") k = "scores";
  const auto& m = gradExplanations();
  const auto it = m.find(k);
  return StepText::tr(it == m.end() ? m.at("") : it->second);
}

}  // namespace

QString StepText::explanation(const std::string& id) {
  if (is_grad_step(id)) return gradientExplanation(id);
  std::string k = kind(id);
  if (k.starts_with("variant.")) {
    const char* text = VariantText::explanation(k);
    return text ? tr(text) : QString();
  }
  if (k == "k_view" || k == "v_view" || k == "k" || k == "v") k[0] = 'q';  // K and V read as Q does
  if (k.starts_with("weights_head_")) k = "weights_head";  // every kept head reads alike
  const auto it = explanations().find(k);
  if (it == explanations().end()) return {};
  QString text = tr(it->second);
  if (id.find(".multihead_attn.") != std::string::npos)
    if (const char* note = crossNote(k)) text = tr("%1 %2", "an explanation, then its cross-attention note").arg(text, tr(note));
  return text;
}

}  // namespace attnlab::ui
