// Heat-map pictures of a binned matrix: a logarithmic colour scale and PNG encoding (libpng).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "src/report/binned_matrix.h"

namespace treematch::io {

struct Rgb {
  std::uint8_t red = 0;
  std::uint8_t green = 0;
  std::uint8_t blue = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

/// The colour of a cell with no traffic (white: the page's background).
inline constexpr Rgb kEmptyCell{255, 255, 255};

/// Maps positive volumes to colours on a logarithmic scale from `low` (pale yellow) to `high`
/// (dark purple); zero (or negative) volumes are kEmptyCell, volumes outside [low, high] take the
/// nearest end's colour.
class LogColourScale {
 public:
  /// The widest dynamic range shown: `low` is raised to high / kMaxRange if it is below.
  static constexpr double kMaxRange = 1e12;

  /// Throws std::invalid_argument unless 0 < low <= high and both are finite.
  LogColourScale(double low, double high);

  /// The scale spanning the smallest positive and the largest cell of all `matrices` (1..1 when
  /// every cell is zero), so that pictures of the same traffic share their colours.
  static LogColourScale spanning(const std::vector<const BinnedMatrix*>& matrices);

  [[nodiscard]] double low() const { return low_; }
  [[nodiscard]] double high() const { return high_; }
  /// Where `value` sits on the scale: 0 at low, 1 at high, clamped; log-linear in between.
  [[nodiscard]] double position(double value) const;
  /// The colour at `position` in [0, 1] (clamped).
  [[nodiscard]] static Rgb colour_at(double position);
  [[nodiscard]] Rgb colour(double value) const;

 private:
  double low_;
  double high_;
};

/// One pixel per cell, row r of the matrix on image row r: cells x cells pixels.
std::vector<Rgb> heat_map_pixels(const BinnedMatrix& matrix, const LogColourScale& scale);

/// The PNG file (8-bit RGB, no interlacing) of `pixels`, row-major, width x height, encoded with
/// libpng into memory. Throws std::invalid_argument if the sizes disagree or are not positive, and
/// std::runtime_error naming libpng's message if encoding fails.
std::string encode_png(const std::vector<Rgb>& pixels, int width, int height);

/// Standard base64 (RFC 4648, with '=' padding), for data: URIs.
std::string base64(std::string_view bytes);

}  // namespace treematch::io
