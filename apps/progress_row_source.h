// A matrix row source that reports the share of rows handed over: the fraction on the progress
// line of `generate` and `convert`, whose writers pull rows in order.
#pragma once

#include <string>
#include <utility>

#include <fmt/format.h>

#include "io/matrix_stream.h"
#include "src/model/progress.h"

namespace treematch::apps {

/// Tells `span` that `done` of `n` rows are written ("..., row done of n").
inline void report_rows(const ProgressSpan& span, kernels::Index done, kernels::Index n) {
  span.at(n > 0 ? static_cast<double>(done) / static_cast<double>(n) : 1.0,
          fmt::format(", row {} of {}", done, n));
}

class ProgressRowSource final : public io::MatrixRowSource {
 public:
  /// Reports to `span` after each block of `inner`'s rows; `inner` must outlive this source.
  ProgressRowSource(io::MatrixRowSource& inner, ProgressSpan span)
      : inner_(inner), span_(std::move(span)) {}

  [[nodiscard]] kernels::Index size() const override { return inner_.size(); }
  [[nodiscard]] kernels::Offset expected_entries() const override {
    return inner_.expected_entries();
  }

  kernels::Index append_rows(kernels::Csr& rows) override {
    const kernels::Index appended = inner_.append_rows(rows);
    handed_ += appended;
    report_rows(span_, handed_, inner_.size());
    return appended;
  }

 private:
  io::MatrixRowSource& inner_;
  ProgressSpan span_;
  kernels::Index handed_ = 0;
};

}  // namespace treematch::apps
