// A max-heap of vertices keyed by gain, with keys changed in place (the queue of FM refinement
// and greedy growing).
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "kernels/types.h"

namespace treematch::kernels {

/// Vertices 0..n-1, each at most once, ordered by key, then by smaller index: a strict total
/// order, so the top never depends on the order of insertions or on the heap's layout.
/// Four children per node: FM changes keys far more often than it pops, and a 4-ary heap is
/// half as deep as a binary one, with the four children in one or two cache lines.
class GainHeap {
 public:
  explicit GainHeap(Index n) : pos_(at(n), kAbsent) {}

  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] bool contains(Index v) const { return pos_[at(v)] != kAbsent; }
  [[nodiscard]] Index top() const { return heap_.front().vertex; }

  /// Inserts v with `key`, or changes its key.
  void set(Index v, Weight key) {
    if (!contains(v)) {
      pos_[at(v)] = static_cast<Index>(heap_.size());
      heap_.push_back({key, v});
      up(heap_.size() - 1);
      return;
    }
    const std::size_t i = at(pos_[at(v)]);
    const Weight old = heap_[i].key;
    heap_[i].key = key;
    if (key > old) {
      up(i);
    } else {
      down(i);
    }
  }

  /// Fills an empty heap with many vertices at once, in O(count) rather than O(count log count).
  /// `entries` holds (key, vertex) pairs of distinct vertices.
  void assign(const std::vector<std::pair<Weight, Index>>& entries) {
    clear();
    heap_.reserve(entries.size());
    for (const auto& [key, v] : entries) {
      pos_[at(v)] = static_cast<Index>(heap_.size());
      heap_.push_back({key, v});
    }
    for (std::size_t i = heap_.size() / kArity + 1; i-- > 0;) {
      if (i < heap_.size()) down(i);
    }
  }

  void pop() { remove_at(0); }

  void clear() {
    for (const Entry& entry : heap_) pos_[at(entry.vertex)] = kAbsent;
    heap_.clear();
  }

 private:
  static constexpr Index kAbsent = -1;
  static constexpr std::size_t kArity = 4;

  struct Entry {
    Weight key;
    Index vertex;
  };

  static bool before(const Entry& a, const Entry& b) {
    return a.key > b.key || (a.key == b.key && a.vertex < b.vertex);
  }
  void place(std::size_t i, const Entry& entry) {
    heap_[i] = entry;
    pos_[at(entry.vertex)] = static_cast<Index>(i);
  }
  void up(std::size_t i) {
    const Entry entry = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!before(entry, heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, entry);
  }
  void down(std::size_t i) {
    const Entry entry = heap_[i];
    const std::size_t size = heap_.size();
    for (;;) {
      const std::size_t first = kArity * i + 1;
      if (first >= size) break;
      const std::size_t last = std::min(first + kArity, size);
      std::size_t best = first;
      for (std::size_t c = first + 1; c < last; ++c) {
        if (before(heap_[c], heap_[best])) best = c;
      }
      if (!before(heap_[best], entry)) break;
      place(i, heap_[best]);
      i = best;
    }
    place(i, entry);
  }
  void remove_at(std::size_t i) {
    pos_[at(heap_[i].vertex)] = kAbsent;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    place(i, last);
    up(i);
    down(at(pos_[at(last.vertex)]));
  }

  std::vector<Entry> heap_;
  std::vector<Index> pos_;  ///< vertex -> its slot in heap_, kAbsent when not queued
};

}  // namespace treematch::kernels
