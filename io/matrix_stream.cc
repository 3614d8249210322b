// Row-block streaming of communication matrices: collecting, row cursors, producers and 'avg'.
#include "io/matrix_stream.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "io/input_error.h"

namespace treematch::io {
namespace {

/// Rows of a dense producer, zeros and diagonal dropped.
class DenseProducerSource final : public MatrixRowSource {
 public:
  DenseProducerSource(Index n, DenseRowProducer produce_row)
      : n_(n), produce_row_(std::move(produce_row)), values_(static_cast<std::size_t>(n)) {
    if (n < 0) throw std::invalid_argument("dense_producer_source: negative order");
  }

  [[nodiscard]] Index size() const override { return n_; }

  Index append_rows(kernels::Csr& rows) override {
    const std::size_t start = rows.targets.size();
    Index appended = 0;
    while (next_ < n_ && appended < kRowBlockRows &&
           static_cast<Offset>(rows.targets.size() - start) < kRowBlockEntries) {
      std::fill(values_.begin(), values_.end(), 0.0);
      produce_row_(next_, values_);
      for (Index c = 0; c < n_; ++c) {
        const double v = values_[static_cast<std::size_t>(c)];
        if (v == 0.0) continue;
        if (!(v > 0.0) || !std::isfinite(v)) {
          throw std::invalid_argument(fmt::format(
              "dense_producer_source: row {} column {} holds {}, not a finite value >= 0", next_, c,
              v));
        }
        if (c == next_) continue;
        rows.targets.push_back(c);
        rows.weights.push_back(v);
      }
      rows.offsets.push_back(static_cast<Offset>(rows.targets.size()));
      ++next_;
      ++appended;
    }
    return appended;
  }

 private:
  Index n_;
  DenseRowProducer produce_row_;
  std::vector<double> values_;
  Index next_ = 0;
};

/// size / count where both have an entry, row by row.
class AverageSource final : public MatrixRowSource {
 public:
  AverageSource(std::unique_ptr<MatrixRowSource> size, std::unique_ptr<MatrixRowSource> count,
                const std::string& path, const std::string& count_name)
      : size_(std::move(size)), count_(std::move(count)), size_rows_(*size_), count_rows_(*count_) {
    if (size_->size() != count_->size()) {
      throw InputError(path, "the size matrix has " + std::to_string(size_->size()) + " rows but " +
                                 count_name + " has " + std::to_string(count_->size()));
    }
  }

  [[nodiscard]] Index size() const override { return size_->size(); }

  Index append_rows(kernels::Csr& rows) override {
    const std::size_t start = rows.targets.size();
    Index appended = 0;
    while (next_ < size() && appended < kRowBlockRows &&
           static_cast<Offset>(rows.targets.size() - start) < kRowBlockEntries) {
      const RowCursor::Row a = size_rows_.next();
      const RowCursor::Row b = count_rows_.next();
      std::size_t i = 0;
      std::size_t j = 0;
      while (i < a.targets.size() && j < b.targets.size()) {
        if (a.targets[i] < b.targets[j]) {
          ++i;
        } else if (b.targets[j] < a.targets[i]) {
          ++j;
        } else {
          rows.targets.push_back(a.targets[i]);
          rows.weights.push_back(a.weights[i++] / b.weights[j++]);
        }
      }
      rows.offsets.push_back(static_cast<Offset>(rows.targets.size()));
      ++next_;
      ++appended;
    }
    return appended;
  }

 private:
  std::unique_ptr<MatrixRowSource> size_;
  std::unique_ptr<MatrixRowSource> count_;
  RowCursor size_rows_;
  RowCursor count_rows_;
  Index next_ = 0;
};

}  // namespace

kernels::Csr read_all_rows(MatrixRowSource& source) {
  kernels::Csr rows;
  rows.n = source.size();
  rows.offsets.reserve(static_cast<std::size_t>(rows.n) + 1);
  const auto expected = static_cast<std::size_t>(source.expected_entries());
  rows.targets.reserve(expected);
  rows.weights.reserve(expected);
  while (source.append_rows(rows) > 0) {
  }
  return rows;
}

RowCursor::Row RowCursor::next() {
  if (position_ == block_rows_) {
    if (handed_ == source_.size()) {
      throw std::out_of_range("RowCursor::next: all " + std::to_string(handed_) +
                              " rows were handed over");
    }
    block_.offsets.assign(1, 0);
    block_.targets.clear();
    block_.weights.clear();
    block_rows_ = source_.append_rows(block_);
    position_ = 0;
    if (block_rows_ == 0) {
      throw std::out_of_range("RowCursor::next: the source ended after " + std::to_string(handed_) +
                              " rows");
    }
  }
  const auto row = static_cast<std::size_t>(position_);
  const auto begin = static_cast<std::size_t>(block_.offsets[row]);
  const auto length = static_cast<std::size_t>(block_.offsets[row + 1]) - begin;
  ++position_;
  ++handed_;
  // The last row: let the source run its end-of-input checks now, before the row is used.
  if (handed_ == source_.size() && position_ == block_rows_) {
    kernels::Csr rest;
    if (source_.append_rows(rest) != 0) {
      throw std::logic_error("RowCursor::next: the source holds more rows than its order");
    }
  }
  return Row{std::span<const Index>(block_.targets).subspan(begin, length),
             std::span<const Weight>(block_.weights).subspan(begin, length)};
}

std::unique_ptr<MatrixRowSource> dense_producer_source(Index n, DenseRowProducer produce_row) {
  return std::make_unique<DenseProducerSource>(n, std::move(produce_row));
}

std::unique_ptr<MatrixRowSource> average_source(std::unique_ptr<MatrixRowSource> size,
                                                std::unique_ptr<MatrixRowSource> count,
                                                const std::string& path,
                                                const std::string& count_name) {
  return std::make_unique<AverageSource>(std::move(size), std::move(count), path, count_name);
}

}  // namespace treematch::io
