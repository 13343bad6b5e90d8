// GPT-2's merge loop (encoder.py's bpe()): while some adjacent pair of symbols is a merge, take
// the lowest-ranked one and merge every occurrence of it, left to right without overlap.
// merge() does it with a heap of adjacent pairs and a linked list, O(n log n) in the symbols, so
// that a long run of letters (a paragraph of Chinese without spaces is one pre-token) cannot
// take quadratic time; merge_naive() is the loop as published, its reference in the tests.
#include <cstdint>
#include <queue>

#include "subword/bpe.h"

namespace attnlab::subword {

std::vector<std::string> ByteLevelBpe::merge_naive(std::vector<std::string> word) const {
  while (word.size() > 1) {
    int best = -1;
    for (size_t k = 0; k + 1 < word.size(); ++k)
      if (const int r = rank(word[k], word[k + 1]); r >= 0 && (best < 0 || r < best)) best = r;
    if (best < 0) break;
    std::string first, second;
    for (size_t k = 0; k + 1 < word.size() && first.empty(); ++k)
      if (rank(word[k], word[k + 1]) == best) first = word[k], second = word[k + 1];
    std::vector<std::string> next;
    for (size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == first && word[i + 1] == second) {
        next.push_back(first + second);
        i += 2;
      } else {
        next.push_back(word[i++]);
      }
    }
    word = std::move(next);
  }
  return word;
}

std::vector<std::string> ByteLevelBpe::merge(std::vector<std::string> word) const {
  const size_t n = word.size();
  if (n < 2) return word;
  constexpr size_t kNone = SIZE_MAX;
  std::vector<size_t> next(n), prev(n);
  std::vector<uint32_t> version(n, 0);  // bumped when a symbol grows: its old pairs are stale
  std::vector<bool> alive(n, true);
  for (size_t i = 0; i < n; ++i) next[i] = i + 1 < n ? i + 1 : kNone, prev[i] = i ? i - 1 : kNone;
  struct Pair {
    int rank;
    size_t left, right;
    uint32_t v_left, v_right;
  };
  const auto later = [](const Pair& a, const Pair& b) { return a.rank != b.rank ? a.rank > b.rank : a.left > b.left; };
  std::priority_queue<Pair, std::vector<Pair>, decltype(later)> heap(later);  // lowest rank, then leftmost
  const auto push = [&](size_t l) {
    if (l == kNone || next[l] == kNone) return;
    if (const int r = rank(word[l], word[next[l]]); r >= 0) heap.push({r, l, next[l], version[l], version[next[l]]});
  };
  for (size_t i = 0; i + 1 < n; ++i) push(i);
  while (!heap.empty()) {
    // One round: every occurrence of the lowest-ranked pair, left to right (no pair made in the
    // round can be that pair again, and the new pairs wait for the next round, as in GPT-2's loop).
    const int round = heap.top().rank;
    std::vector<size_t> grown;
    while (!heap.empty() && heap.top().rank == round) {
      const Pair p = heap.top();
      heap.pop();
      if (!alive[p.left] || !alive[p.right] || next[p.left] != p.right || version[p.left] != p.v_left ||
          version[p.right] != p.v_right)
        continue;  // a symbol of it was merged away or grew since
      word[p.left] += word[p.right];
      ++version[p.left];
      alive[p.right] = false;
      next[p.left] = next[p.right];
      if (next[p.right] != kNone) prev[next[p.right]] = p.left;
      grown.push_back(p.left);
    }
    for (size_t l : grown)
      if (alive[l]) push(prev[l]), push(l);
  }
  std::vector<std::string> out;
  for (size_t i = 0; i != kNone; i = next[i]) out.push_back(std::move(word[i]));
  return out;
}

}  // namespace attnlab::subword
