// model.safetensors.index.json — a sharded checkpoint's index — read without building a JSON
// document: only its `weight_map` (tensor name → shard file name) is kept, everything else
// (`metadata`, unknown keys, however nested) is checked as JSON and dropped as it streams past.
// A document of nlohmann::json values takes 10–20 times its text in memory; a hostile 16 MiB index
// would have cost a few hundred MiB before it was refused. This keeps the entries and nothing
// more (each shard's name once).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::pretrained {

struct ShardIndex {
  std::vector<std::string> files;                           // each shard named once, first-seen order
  std::vector<std::pair<std::string, uint32_t>> placement;  // tensor name → files[i], index order
};

// The index file at `path` (a regular file of at most max_bytes). DataError naming the file when
// it is not valid JSON, not an object, has no `weight_map` object, or places a tensor in anything
// but a plain .safetensors file name of the same folder (a path, a number, an object …). A name the
// map gives twice keeps both placements, and an index with two weight_map keys both maps' entries
// (a JSON document would keep the last): the caller checks each placement against the shards.
ShardIndex read_shard_index(const std::filesystem::path& path, uint64_t max_bytes);

}  // namespace attnlab::pretrained
