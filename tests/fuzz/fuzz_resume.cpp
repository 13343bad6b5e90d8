// libFuzzer target for a training run's resume point (resume-NNNNNNNN.safetensors, read when a
// recorded run goes on: `attnlab train --resume`, the Training panel's Resume): any bytes must
// either parse or raise a UserError, and what parses must come back the same when written again
// and give a trainer or a refusal — never a crash.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "text/errors.h"
#include "training/resume.h"
#include "training/trainer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  attnlab::ResumePoint r;
  try {
    r = attnlab::parse_resume(bytes, "resume.safetensors");
  } catch (const attnlab::UserError&) {
    return 0;
  }
  const attnlab::ResumePoint again = attnlab::parse_resume(attnlab::serialize_resume(r), "again");
  if (again.steps_done != r.steps_done || again.optimizer.size() != r.optimizer.size() ||
      again.weights.names().size() != r.weights.names().size())
    std::abort();
  if (r.setup.model.d_model > 64 || r.setup.model.layers > 2 || r.setup.steps > 1000000) return 0;  // small only
  try {
    attnlab::Trainer t(r, nullptr);
    (void)t.steps_done();
  } catch (const attnlab::UserError&) {
  }
  return 0;
}
