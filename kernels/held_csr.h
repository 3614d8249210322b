// A graph a step of a recursion either owns, and frees once it has copied its parts, or borrows.
#pragma once

#include <utility>

#include "kernels/types.h"

namespace treematch::kernels {

/// The graph of one step of a top-down recursion (a tree node's processes, one side of a
/// bisection). Each step copies its parts' subgraphs before its children run; a step that owns
/// its graph frees it then, so that the recursion holds about one copy of the graph across its
/// frontier instead of one per depth (S3's 8192-way split held three: 968 MB of copies). The root
/// borrows its caller's graph, which it must not free.
class HeldCsr {
 public:
  HeldCsr() = default;
  explicit HeldCsr(Csr owned) : owned_(std::move(owned)), view_(owned_.view()) {}
  /// The caller keeps `g` alive and unchanged while this holder or its view is used.
  static HeldCsr borrowed(CsrView g) {
    HeldCsr held;
    held.view_ = g;
    held.borrowed_ = true;
    return held;
  }
  HeldCsr(HeldCsr&& other) noexcept { *this = std::move(other); }
  HeldCsr& operator=(HeldCsr&& other) noexcept {
    // A moved vector keeps its buffer, so an owned view stays valid; it is rebuilt all the same.
    owned_ = std::move(other.owned_);
    borrowed_ = other.borrowed_;
    view_ = borrowed_ ? other.view_ : owned_.view();
    other.release();
    return *this;
  }
  HeldCsr(const HeldCsr&) = delete;
  HeldCsr& operator=(const HeldCsr&) = delete;
  ~HeldCsr() = default;

  [[nodiscard]] CsrView view() const { return view_; }
  /// Frees an owned graph; a borrowed one stays its owner's. The view is empty afterwards.
  void release() {
    owned_ = {};
    view_ = {};
    borrowed_ = false;
  }
  /// The graph as an owned Csr: moved out when owned, copied when borrowed.
  [[nodiscard]] Csr take() {
    Csr out;
    if (borrowed_) {
      out.n = view_.n;
      out.offsets.assign(view_.offsets.begin(), view_.offsets.end());
      out.targets.assign(view_.targets.begin(), view_.targets.end());
      out.weights.assign(view_.weights.begin(), view_.weights.end());
    } else {
      out = std::move(owned_);
    }
    release();
    return out;
  }

 private:
  Csr owned_;
  CsrView view_;
  bool borrowed_ = false;
};

}  // namespace treematch::kernels
