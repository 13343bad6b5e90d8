// Generation from a pretrained checkpoint (`attnlab export --model DIR --generate N`): each text
// continued piece by piece, every piece drawn from the model's next-piece distribution at the last
// position and appended; the next distribution from the KV cache (kv_decode.h) or from the whole
// text run again — exactly reproducible from the seed.
//
// The draw (docs/cli.md "Generation"): temperature 0 takes the most probable piece (the lower id on
// a tie). Otherwise p = softmax(logits / T) in double; the pieces sorted by p, highest first (ties:
// lower id); the first top_k kept (0: all), then the shortest run of them whose p sum reaches
// top_p (at least one); u = uniform(step) of the seeded stream "generate:<row>" (tensor/rng.h,
// u in (0, 1]); the piece is the first whose running sum over the kept ones reaches u · their sum.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "pretrained/pretrained_model.h"

namespace attnlab::pretrained {

struct Sampling {
  int64_t steps = 0;       // pieces to add to each text
  double temperature = 1;  // 0: greedy
  int64_t top_k = 0;       // 0: no cut
  double top_p = 1;        // 1: no cut
  uint64_t seed = 0;
  bool kv_cache = true;    // decode with the KV cache (kv_decode.h); off: the whole text again per piece
};
inline constexpr int64_t kMaxGenerateSteps = 1024;

// ConfigError naming the option when a value is outside its range (steps 0 … 1024, temperature
// 0 … 100, top_k ≥ 0, top_p in (0, 1]).
void check_sampling(const Sampling& s);

// The id drawn from one position's logits (V values) with u in (0, 1] (see above).
int draw_piece(const float* logits, int64_t vocab, const Sampling& s, double u);

// p of piece `id` under softmax(logits / T) in double (T 0 read as 1): what a draw records beside it.
double piece_probability(const float* logits, int64_t vocab, double temperature, int id);

struct Continuation {
  std::vector<int> ids;                 // the pieces added, in order
  std::vector<double> probabilities;    // each one's p before the cuts (temperature applied)
  bool cached = false;                  // decoded with the KV cache (else the whole text per piece)
};

// Continues row `row` of pieces (a text cut by the model's tokenizer): ConfigError for no piece, and
// when the text and the added pieces would pass the model's positions. With s.kv_cache and a model kv_cacheable()
// (GPT-2) the prompt runs once and each added piece alone through the cache (kv_decode.h);
// otherwise the whole text runs again for each piece (the naive reference, same draws up to
// rounding).
Continuation continue_text(const PretrainedModel& m, const std::vector<std::string>& pieces, int64_t row,
                           const Sampling& s, Backend& be);

}  // namespace attnlab::pretrained
