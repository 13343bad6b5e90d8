#include "errortext.h"

#include "englishforms.h"

namespace attnlab::ui {

namespace {

// Each clause is matched anywhere in a message; its template is the English clause itself.
// Longer clauses before the shorter ones they contain.
constexpr EnglishForm kClauses[] = {
    // Sessions (core/session.cpp)
    {"field \"([^\"]*)\": ", QT_TRANSLATE_NOOP("ErrorText", "field \"%1\": ")},
    {"every sentence should be a string of at most 1 MiB",
     QT_TRANSLATE_NOOP("ErrorText", "every sentence should be a string of at most 1 MiB")},
    {"should be a list of at most 4096 sentences", QT_TRANSLATE_NOOP("ErrorText", "should be a list of at most 4096 sentences")},
    {"should be an object with \"en\" and \"zh\"", QT_TRANSLATE_NOOP("ErrorText", "should be an object with \"en\" and \"zh\"")},
    {"should be an object", QT_TRANSLATE_NOOP("ErrorText", "should be an object")},
    {"should be a string", QT_TRANSLATE_NOOP("ErrorText", "should be a string")},
    {"should be a whole number", QT_TRANSLATE_NOOP("ErrorText", "should be a whole number")},
    {"should be 0 or 1 … 4096", QT_TRANSLATE_NOOP("ErrorText", "should be 0 or 1 … 4096")},
    {"should be between 1 and 2\\^30", QT_TRANSLATE_NOOP("ErrorText", "should be between 1 and 2^30")},
    {"cannot be used: ", QT_TRANSLATE_NOOP("ErrorText", "cannot be used: ")},
    {"should be 0 … the number of sentences − 1", QT_TRANSLATE_NOOP("ErrorText", "should be 0 … the number of sentences − 1")},
    {"should be 0 … heads − 1", QT_TRANSLATE_NOOP("ErrorText", "should be 0 … heads − 1")},
    {"needs exactly one of \"file\" and \"embedded\"", QT_TRANSLATE_NOOP("ErrorText", "needs exactly one of \"file\" and \"embedded\"")},
    {"larger than 16 MiB: not a session file", QT_TRANSLATE_NOOP("ErrorText", "larger than 16 MiB: not a session file")},
    {"not valid JSON \\(damaged or not a session file\\)",
     QT_TRANSLATE_NOOP("ErrorText", "not valid JSON (damaged or not a session file)")},
    {"not an Attention Lab session \\(no \"format\": \"attnlab-session\"\\)",
     QT_TRANSLATE_NOOP("ErrorText", "not an Attention Lab session (no \"format\": \"attnlab-session\")")},
    {"missing or not a positive whole number", QT_TRANSLATE_NOOP("ErrorText", "missing or not a positive whole number")},
    {"saved by a newer Attention Lab \\(session version (\\d+); this one reads up to version (\\d+)\\): open it with a "
     "newer Attention Lab",
     QT_TRANSLATE_NOOP("ErrorText", "saved by a newer Attention Lab (session version %1; this one reads up to version "
                                    "%2): open it with a newer Attention Lab")},
    {"no sentences: a session needs at least one", QT_TRANSLATE_NOOP("ErrorText", "no sentences: a session needs at least one")},
    {"base64 text whose length is not a multiple of 4", QT_TRANSLATE_NOOP("ErrorText", "base64 text whose length is not a multiple of 4")},
    {"misplaced base64 padding", QT_TRANSLATE_NOOP("ErrorText", "misplaced base64 padding")},
    {"base64 padding bits that are not zero", QT_TRANSLATE_NOOP("ErrorText", "base64 padding bits that are not zero")},
    {"'(.)' is not a base64 character", QT_TRANSLATE_NOOP("ErrorText", "'%1' is not a base64 character")},
    // Configurations (core/config.cpp, core/tokenizer.cpp)
    {"(-?\\d+) is outside (-?\\d+) … (-?\\d+)", QT_TRANSLATE_NOOP("ErrorText", "%1 is outside %2 … %3")},
    // Attention variants (core/variant_config.cpp)
    {"\\(layers count from 0\\)", QT_TRANSLATE_NOOP("ErrorText", "(layers count from 0)")},
    {"a causal mask cannot be kept, because the projection mixes every position's key, the future included; use "
     "--mask padding or none",
     QT_TRANSLATE_NOOP("ErrorText", "a causal mask cannot be kept, because the projection mixes every position's key, "
                                    "the future included; use --mask padding or none")},
    {"the walk-through records 4 steps per token, and (\\d+) tokens would make (\\d+) of them; use at most (\\d+) "
     "tokens, or another variant",
     QT_TRANSLATE_NOOP("ErrorText", "the walk-through records 4 steps per token, and %1 tokens would make %2 of them; use "
                                    "at most %3 tokens, or another variant")},
    {"(\\d+) tokens in blocks of (\\d+) keys make (\\d+) rounds of the walk-through; raise it to at least (\\d+) "
     "\\(at most (\\d+) rounds\\)",
     QT_TRANSLATE_NOOP("ErrorText", "%1 tokens in blocks of %2 keys make %3 rounds of the walk-through; raise it to at "
                                    "least %4 (at most %5 rounds)")},
    {"\\(d_model must be heads × d_head; try (\\d+) heads with d_model (\\d+)\\)",
     QT_TRANSLATE_NOOP("ErrorText", "(d_model must be heads × d_head; try %1 heads with d_model %2)")},
    {"(\\d+) heads do not divide d_model (\\d+)", QT_TRANSLATE_NOOP("ErrorText", "%1 heads do not divide d_model %2")},
    {"must be a positive number below 1", QT_TRANSLATE_NOOP("ErrorText", "must be a positive number below 1")},
    {"'([^']*)' is not one of ([a-z0-9+_, ]+)", QT_TRANSLATE_NOOP("ErrorText", "'%1' is not one of %2")},
    {"text contains a NUL character", QT_TRANSLATE_NOOP("ErrorText", "text contains a NUL character")},
    {"text is not valid UTF-8", QT_TRANSLATE_NOOP("ErrorText", "text is not valid UTF-8")},
    {"no sentence given", QT_TRANSLATE_NOOP("ErrorText", "no sentence given")},
    {"sentence (\\d+) is empty or blank; type at least one word",
     QT_TRANSLATE_NOOP("ErrorText", "sentence %1 is empty or blank; type at least one word")},
    {"give one source sentence for all, or one per --text \\((\\d+) sentences, (\\d+) source sentences\\)",
     QT_TRANSLATE_NOOP("ErrorText", "give one source sentence for all, or one per --text (%1 sentences, %2 source sentences)")},
    {"(\\d+) sentences are more than the limit of (\\d+)", QT_TRANSLATE_NOOP("ErrorText", "%1 sentences are more than the limit of %2")},
    // The memory budget (core/memory.cpp)
    {"this run needs about ([0-9.]+ MiB) \\(", QT_TRANSLATE_NOOP("ErrorText", "this run needs about %1 (")},
    {"trace ([0-9.]+ MiB), ", QT_TRANSLATE_NOOP("ErrorText", "trace %1, ")},
    {"weights ([0-9.]+ MiB), working ([0-9.]+ MiB)", QT_TRANSLATE_NOOP("ErrorText", "weights %1, working %2")},
    {"\\), more than the budget of (\\d+) MiB; ", QT_TRANSLATE_NOOP("ErrorText", "), more than the budget of %1 MiB; ")},
    {"shorten the text, use fewer layers or a smaller d_model",
     QT_TRANSLATE_NOOP("ErrorText", "shorten the text, use fewer layers or a smaller d_model")},
    {", or raise --memory-budget", QT_TRANSLATE_NOOP("ErrorText", ", or raise --memory-budget")},
    // Weights files (core/weights_file.cpp, core/weights.cpp, ui/weightsimport.cpp)
    {"metadata '([^']*)' = '([^']*)' is not a number", QT_TRANSLATE_NOOP("ErrorText", "metadata '%1' = '%2' is not a number")},
    {"(\\S+) conflicts with (\\S+) stored in '([^']*)'; drop the option or use another weights file",
     QT_TRANSLATE_NOOP("ErrorText", "%1 conflicts with %2 stored in '%3'; drop the option or use another weights file")},
    {"tensor '([^']*)' is missing or not 2-D", QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' is missing or not 2-D")},
    {"tensor '([^']*)' has shape (\\([^)]*\\)), expected \\(3·D, D\\)",
     QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' has shape %2, expected (3·D, D)")},
    {"tensor '([^']*)' has shape (\\([^)]*\\)) but the configuration needs (\\([^)]*\\))",
     QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' has shape %2 but the configuration needs %3")},
    {"tensor '([^']*)' holds a non-finite value \\(NaN or ∞\\) at element (\\d+)",
     QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' holds a non-finite value (NaN or ∞) at element %2")},
    {"tensor '([^']*)' is not a parameter of this model", QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' is not a parameter of this model")},
    {"tensor '([^']*)' is missing", QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' is missing")},
    {"'([^']*)' holds an encoder–decoder model; give a source sentence",
     QT_TRANSLATE_NOOP("ErrorText", "'%1' holds an encoder–decoder model; give a source sentence")},
    {"'([^']*)' holds an encoder only; cross-attention needs decoder layers",
     QT_TRANSLATE_NOOP("ErrorText", "'%1' holds an encoder only; cross-attention needs decoder layers")},
    {"'([^']*)' has no metadata, so the number of heads must be given",
     QT_TRANSLATE_NOOP("ErrorText", "'%1' has no metadata, so the number of heads must be given")},
    {"metadata field '([^']*)' is missing", QT_TRANSLATE_NOOP("ErrorText", "metadata field '%1' is missing")},
    {"metadata format '([^']*)' is not attnlab-weights/1 \\(a newer version\\?\\)",
     QT_TRANSLATE_NOOP("ErrorText", "metadata format '%1' is not attnlab-weights/1 (a newer version?)")},
    {"the stored configuration is invalid: ", QT_TRANSLATE_NOOP("ErrorText", "the stored configuration is invalid: ")},
    {"cannot open weights file '([^']*)': no such file", QT_TRANSLATE_NOOP("ErrorText", "cannot open weights file '%1': no such file")},
    {"weights file '([^']*)' is not a regular file \\(a folder\\?\\)",
     QT_TRANSLATE_NOOP("ErrorText", "weights file '%1' is not a regular file (a folder?)")},
    {"cannot open weights file '([^']*)': ", QT_TRANSLATE_NOOP("ErrorText", "cannot open weights file '%1': ")},
    {"cannot read weights file '([^']*)'", QT_TRANSLATE_NOOP("ErrorText", "cannot read weights file '%1'")},
    {"cannot be read \\(", QT_TRANSLATE_NOOP("ErrorText", "cannot be read (")},
    {"larger than 2 GiB, not a weights file this window can show",
     QT_TRANSLATE_NOOP("ErrorText", "larger than 2 GiB, not a weights file this window can show")},
    // The Vulkan path's notes and refusals (core/backend.cpp, core/vulkan/vk_context.cpp)
    {"; computed on the CPU", QT_TRANSLATE_NOOP("ErrorText", "; computed on the CPU")},
    {"built without Vulkan", QT_TRANSLATE_NOOP("ErrorText", "built without Vulkan")},
    {"Vulkan: the loader libvulkan\\.so\\.1 is not installed \\(Debian: apt-get install libvulkan1\\)",
     QT_TRANSLATE_NOOP("ErrorText", "Vulkan: the loader libvulkan.so.1 is not installed (Debian: apt-get install libvulkan1)")},
    {"Vulkan: no driver \\(Debian: apt-get install mesa-vulkan-drivers, or the GPU's driver\\)",
     QT_TRANSLATE_NOOP("ErrorText", "Vulkan: no driver (Debian: apt-get install mesa-vulkan-drivers, or the GPU's driver)")},
    {"Vulkan: no device \\(install a driver; Debian's mesa-vulkan-drivers has lavapipe\\)",
     QT_TRANSLATE_NOOP("ErrorText", "Vulkan: no device (install a driver; Debian's mesa-vulkan-drivers has lavapipe)")},
    {"Vulkan: no GPU, only a CPU-type device \\(lavapipe\\); --backend vulkan uses it, auto does not",
     QT_TRANSLATE_NOOP("ErrorText", "Vulkan: no GPU, only a CPU-type device (lavapipe); --backend vulkan uses it, auto does not")},
    {"this build has no Vulkan compute path \\(built without the Vulkan headers or glslc\\); use --backend cpu or auto",
     QT_TRANSLATE_NOOP("ErrorText", "this build has no Vulkan compute path (built without the Vulkan headers or glslc); use "
                                    "--backend cpu or auto")},
    // The safetensors reader (core/safetensors.cpp)
    {"tensor '([^']*)' has dtype (\\S+); only F32, F16 and BF16 are supported",
     QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' has dtype %2; only F32, F16 and BF16 are supported")},
    {"tensor '([^']*)' has an invalid dimension in its shape",
     QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' has an invalid dimension in its shape")},
    {"tensor '([^']*)' has an invalid shape", QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' has an invalid shape")},
    {"tensor '([^']*)' is impossibly large", QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' is impossibly large")},
    {"file is shorter than its 8-byte header length", QT_TRANSLATE_NOOP("ErrorText", "file is shorter than its 8-byte header length")},
    {"header length (\\d+) runs past the end of the file \\((\\d+) bytes\\)",
     QT_TRANSLATE_NOOP("ErrorText", "header length %1 runs past the end of the file (%2 bytes)")},
    {"header is not a JSON object", QT_TRANSLATE_NOOP("ErrorText", "header is not a JSON object")},
    {"__metadata__ is not an object of strings", QT_TRANSLATE_NOOP("ErrorText", "__metadata__ is not an object of strings")},
    {"__metadata__ value '([^']*)' is not a string", QT_TRANSLATE_NOOP("ErrorText", "__metadata__ value '%1' is not a string")},
    {"tensor '([^']*)' lacks dtype, shape or data_offsets", QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' lacks dtype, shape or data_offsets")},
    {"tensor '([^']*)' has invalid data_offsets", QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' has invalid data_offsets")},
    {"tensor '([^']*)' has data_offsets \\[(\\d+), (\\d+)\\] outside the (\\d+) data bytes",
     QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' has data_offsets [%2, %3] outside the %4 data bytes")},
    {"tensor '([^']*)' shape (\\([^)]*\\)) needs (\\d+) bytes but its data_offsets span (\\d+)",
     QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' shape %2 needs %3 bytes but its data_offsets span %4")},
    {"tensors '([^']*)' and '([^']*)' overlap \\(data_offsets\\)",
     QT_TRANSLATE_NOOP("ErrorText", "tensors '%1' and '%2' overlap (data_offsets)")},
};

}  // namespace

QString ErrorText::translate(const QString& coreMessage) {
  static const EnglishForms clauses("ErrorText", kClauses, /*whole=*/false);
  return clauses.translateEach(coreMessage);
}

}  // namespace attnlab::ui
