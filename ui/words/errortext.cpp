#include "words/errortext.h"

#include "words/englishforms.h"

namespace attnlab::ui {

namespace {

// Each clause is matched anywhere in a message; its template is the English clause itself.
// Longer clauses before the shorter ones they contain.
constexpr EnglishForm kClauses[] = {
    // First: these hold shorter clauses of the tables below ("'%1' is not one of %2").
    {"metadata 'cross_attention' = '([^']*)' is not one of true, false",
     QT_TRANSLATE_NOOP("ErrorText", "metadata 'cross_attention' = '%1' is not one of true, false")},
    {"metadata 'cross_attention' = '([^']*)' contradicts its tensors \\(it has decoder layers\\)",
     QT_TRANSLATE_NOOP("ErrorText", "metadata 'cross_attention' = '%1' contradicts its tensors (it has decoder layers)")},
    {"metadata 'cross_attention' = '([^']*)' contradicts its tensors \\(it has no decoder layers\\)",
     QT_TRANSLATE_NOOP("ErrorText", "metadata 'cross_attention' = '%1' contradicts its tensors (it has no decoder layers)")},
    // Sessions (core/io/session.cpp)
    {"field \"([^\"]*)\": ", QT_TRANSLATE_NOOP("ErrorText", "field \"%1\": ")},
    {"every sentence should be a string of at most 1 MiB",
     QT_TRANSLATE_NOOP("ErrorText", "every sentence should be a string of at most 1 MiB")},
    {"should be a list of at most 4096 sentences", QT_TRANSLATE_NOOP("ErrorText", "should be a list of at most 4096 sentences")},
    {"should be an object with \"en\" and \"zh\"", QT_TRANSLATE_NOOP("ErrorText", "should be an object with \"en\" and \"zh\"")},
    {"should be an object", QT_TRANSLATE_NOOP("ErrorText", "should be an object")},
    {"should be a string", QT_TRANSLATE_NOOP("ErrorText", "should be a string")},
    {"should be a whole number 0 … 2\\^64 − 1", QT_TRANSLATE_NOOP("ErrorText", "should be a whole number 0 … 2^64 − 1")},
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
    {"should hold one source sentence for all, or one per sentence \\((\\d+) sentences, (\\d+) source sentences\\)",
     QT_TRANSLATE_NOOP("ErrorText", "should hold one source sentence for all, or one per sentence (%1 sentences, %2 source "
                                    "sentences)")},
    {"no sentences: a session needs at least one", QT_TRANSLATE_NOOP("ErrorText", "no sentences: a session needs at least one")},
    {"base64 text whose length is not a multiple of 4", QT_TRANSLATE_NOOP("ErrorText", "base64 text whose length is not a multiple of 4")},
    {"misplaced base64 padding", QT_TRANSLATE_NOOP("ErrorText", "misplaced base64 padding")},
    {"base64 padding bits that are not zero", QT_TRANSLATE_NOOP("ErrorText", "base64 padding bits that are not zero")},
    {"'(.)' is not a base64 character", QT_TRANSLATE_NOOP("ErrorText", "'%1' is not a base64 character")},
    // Configurations (core/model/config.cpp, core/text/tokenizer.cpp)
    {"(-?\\d+) is outside (-?\\d+) … (-?\\d+)", QT_TRANSLATE_NOOP("ErrorText", "%1 is outside %2 … %3")},
    // Attention variants (core/model/variant_config.cpp)
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
    {"text holds only control characters", QT_TRANSLATE_NOOP("ErrorText", "text holds only control characters")},
    {"the sentence is empty or blank; type at least one word",
     QT_TRANSLATE_NOOP("ErrorText", "the sentence is empty or blank; type at least one word")},
    {"text is not valid UTF-8", QT_TRANSLATE_NOOP("ErrorText", "text is not valid UTF-8")},
    {"no sentence given", QT_TRANSLATE_NOOP("ErrorText", "no sentence given")},
    {"sentence (\\d+) is empty or blank; type at least one word",
     QT_TRANSLATE_NOOP("ErrorText", "sentence %1 is empty or blank; type at least one word")},
    {"give one source sentence for all, or one per --text \\((\\d+) sentences, (\\d+) source sentences\\)",
     QT_TRANSLATE_NOOP("ErrorText", "give one source sentence for all, or one per --text (%1 sentences, %2 source sentences)")},
    {"(\\d+) sentences are more than the limit of (\\d+)", QT_TRANSLATE_NOOP("ErrorText", "%1 sentences are more than the limit of %2")},
    // The memory budget (core/forward/memory.cpp)
    {"this run needs about ([0-9.]+ MiB) \\(", QT_TRANSLATE_NOOP("ErrorText", "this run needs about %1 (")},
    {"trace ([0-9.]+ MiB), ", QT_TRANSLATE_NOOP("ErrorText", "trace %1, ")},
    {"weights ([0-9.]+ MiB), working ([0-9.]+ MiB)", QT_TRANSLATE_NOOP("ErrorText", "weights %1, working %2")},
    {"\\), more than the budget of (\\d+) MiB; ", QT_TRANSLATE_NOOP("ErrorText", "), more than the budget of %1 MiB; ")},
    {"shorten the text, use fewer layers or a smaller d_model",
     QT_TRANSLATE_NOOP("ErrorText", "shorten the text, use fewer layers or a smaller d_model")},
    {", or raise --memory-budget", QT_TRANSLATE_NOOP("ErrorText", ", or raise --memory-budget")},
    // Weights files (core/io/weights_file.cpp, core/model/weights.cpp, ui/input/weightsimport.cpp)
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
    // Reading a file a user hands over (core/io/files.cpp): "<what> '<path>': <why>"
    {"weights file '([^']*)': ", QT_TRANSLATE_NOOP("ErrorText", "weights file '%1': ")},
    {"session file '([^']*)': ", QT_TRANSLATE_NOOP("ErrorText", "session file '%1': ")},
    {"exercise file '([^']*)': ", QT_TRANSLATE_NOOP("ErrorText", "exercise file '%1': ")},
    {"cannot open it: ", QT_TRANSLATE_NOOP("ErrorText", "cannot open it: ")},
    {"cannot read it: ", QT_TRANSLATE_NOOP("ErrorText", "cannot read it: ")},
    {"too many symbolic links \\(a link that points to itself\\?\\)",
     QT_TRANSLATE_NOOP("ErrorText", "too many symbolic links (a link that points to itself?)")},
    {"a part of the path is not a folder", QT_TRANSLATE_NOOP("ErrorText", "a part of the path is not a folder")},
    {"permission denied", QT_TRANSLATE_NOOP("ErrorText", "permission denied")},
    {"the name is too long", QT_TRANSLATE_NOOP("ErrorText", "the name is too long")},
    {"is a folder, not a file", QT_TRANSLATE_NOOP("ErrorText", "is a folder, not a file")},
    {"is a named pipe \\(FIFO\\), not a regular file", QT_TRANSLATE_NOOP("ErrorText", "is a named pipe (FIFO), not a regular file")},
    {"is a device, not a regular file", QT_TRANSLATE_NOOP("ErrorText", "is a device, not a regular file")},
    {"is a socket, not a regular file", QT_TRANSLATE_NOOP("ErrorText", "is a socket, not a regular file")},
    {"is not a regular file", QT_TRANSLATE_NOOP("ErrorText", "is not a regular file")},
    {"is ([0-9.]+ MiB), larger than the limit of ([0-9.]+ MiB) for such a file",
     QT_TRANSLATE_NOOP("ErrorText", "is %1, larger than the limit of %2 for such a file")},
    {"it changed while being read; try again", QT_TRANSLATE_NOOP("ErrorText", "it changed while being read; try again")},
    {"no file name given", QT_TRANSLATE_NOOP("ErrorText", "no file name given")},
    {"the file name contains a NUL character", QT_TRANSLATE_NOOP("ErrorText", "the file name contains a NUL character")},
    {"no such file", QT_TRANSLATE_NOOP("ErrorText", "no such file")},
    // Weights that overflow float32 in the forward pass (core/forward/overflow.cpp)
    {"the forward pass overflowed float32 at step '([^']*)' \\((.*)\\): it made ∞ or NaN from finite inputs",
     QT_TRANSLATE_NOOP("ErrorText", "the forward pass overflowed float32 at step '%1' (%2): it made ∞ or NaN from finite inputs")},
    {"; it reads ", QT_TRANSLATE_NOOP("ErrorText", "; it reads ")},
    {" \\(largest \\|value\\| ([^)]*)\\)", QT_TRANSLATE_NOOP("ErrorText", " (largest |value| %1)")},
    {"\\. The weights are too large for this input: check the weights file, or scale them down",
     QT_TRANSLATE_NOOP("ErrorText", ". The weights are too large for this input: check the weights file, or scale them down")},
    // Writing a bundle (core/io/bundle.cpp, core/io/folder_write.cpp)
    {"--out: '([^']*)' appeared while the export ran \\(another export or program made it\\); nothing was replaced\\. "
     "Choose another folder, or add --force to replace an earlier bundle",
     QT_TRANSLATE_NOOP("ErrorText", "--out: '%1' appeared while the export ran (another export or program made it); nothing "
                                    "was replaced. Choose another folder, or add --force to replace an earlier bundle")},
    {"--out: '([^']*)' is not an Attention Lab bundle \\(no manifest\\.json of one\\), so even --force does not replace "
     "it; choose a new folder",
     QT_TRANSLATE_NOOP("ErrorText", "--out: '%1' is not an Attention Lab bundle (no manifest.json of one), so even --force "
                                    "does not replace it; choose a new folder")},
    {"--out: '([^']*)' changed while the export ran and is no longer a bundle; nothing was replaced",
     QT_TRANSLATE_NOOP("ErrorText", "--out: '%1' changed while the export ran and is no longer a bundle; nothing was replaced")},
    {"cannot move the bundle into '([^']*)': ", QT_TRANSLATE_NOOP("ErrorText", "cannot move the bundle into '%1': ")},
    {"'([^']*)' exists already; nothing was replaced", QT_TRANSLATE_NOOP("ErrorText", "'%1' exists already; nothing was replaced")},
    // The Vulkan path's notes and refusals (core/backend/backend.cpp, core/backend/vulkan/vk_context.cpp)
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
    // The safetensors reader (core/io/safetensors.cpp)
    {"tensor '([^']*)' has dtype (\\S+); only F32, F16 and BF16 are supported",
     QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' has dtype %2; only F32, F16 and BF16 are supported")},
    {"tensor '([^']*)' has an invalid dimension in its shape",
     QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' has an invalid dimension in its shape")},
    {"tensor '([^']*)' has an invalid shape", QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' has an invalid shape")},
    {"tensor '([^']*)' is impossibly large", QT_TRANSLATE_NOOP("ErrorText", "tensor '%1' is impossibly large")},
    {"file is shorter than its 8-byte header length", QT_TRANSLATE_NOOP("ErrorText", "file is shorter than its 8-byte header length")},
    {"header length (\\d+) runs past the end of the file \\((\\d+) bytes\\)",
     QT_TRANSLATE_NOOP("ErrorText", "header length %1 runs past the end of the file (%2 bytes)")},
    {"the header holds a NUL byte \\(padded with NULs\\? only spaces may pad it\\)",
     QT_TRANSLATE_NOOP("ErrorText", "the header holds a NUL byte (padded with NULs? only spaces may pad it)")},
    {"header is not a JSON object \\(it must start with '\\{'\\)",
     QT_TRANSLATE_NOOP("ErrorText", "header is not a JSON object (it must start with '{')")},
    {"header is not a JSON object", QT_TRANSLATE_NOOP("ErrorText", "header is not a JSON object")},
    {"the header names '([^']*)' twice; a name may appear once",
     QT_TRANSLATE_NOOP("ErrorText", "the header names '%1' twice; a name may appear once")},
    {"the data bytes (\\d+) … (\\d+) before tensor '([^']*)' belong to no tensor \\(a gap in data_offsets\\)",
     QT_TRANSLATE_NOOP("ErrorText", "the data bytes %1 … %2 before tensor '%3' belong to no tensor (a gap in data_offsets)")},
    {"the file has (\\d+) bytes after its last tensor that belong to none \\(trailing bytes\\)",
     QT_TRANSLATE_NOOP("ErrorText", "the file has %1 bytes after its last tensor that belong to none (trailing bytes)")},
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
