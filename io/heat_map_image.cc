// Heat-map pixels on a log colour scale, PNG encoding through libpng, base64 for data: URIs.
#include "io/heat_map_image.h"

#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace treematch::io {
namespace {

/// The ramp, light to dark: a sequential scale whose lightness falls steadily, so that the order
/// of volumes reads without a legend and survives grey-scale printing.
constexpr std::array<Rgb, 6> kRamp{{
    {250, 220, 120},  // yellow: the lowest volume still stands out from empty (white) cells
    {246, 170, 70},   // amber
    {232, 110, 50},   // orange
    {200, 55, 70},    // red
    {130, 25, 95},    // crimson
    {45, 12, 70},     // dark purple
}};

std::uint8_t blend(std::uint8_t from, std::uint8_t to, double t) {
  return static_cast<std::uint8_t>(std::lround(from + (to - from) * t));
}

/// What libpng's callbacks reach: plain data only, since libpng leaves them with longjmp.
struct PngSink {
  std::string* bytes = nullptr;
  std::array<char, 256> message{};
};

void on_png_error(png_structp png, png_const_charp message) {
  auto* sink = static_cast<PngSink*>(png_get_error_ptr(png));
  std::snprintf(sink->message.data(), sink->message.size(), "%s", message);
  png_longjmp(png, 1);
}

void on_png_warning(png_structp /*png*/, png_const_charp /*message*/) {}

void on_png_write(png_structp png, png_bytep data, std::size_t length) {
  auto* sink = static_cast<PngSink*>(png_get_io_ptr(png));
  bool failed = false;
  try {
    sink->bytes->append(reinterpret_cast<const char*>(data), length);
  } catch (const std::bad_alloc&) {
    failed = true;  // png_error leaves by longjmp, which must not cross a live exception
  }
  if (failed) png_error(png, "out of memory while writing the PNG");
}

void on_png_flush(png_structp /*png*/) {}

/// The libpng calls that may longjmp back here on error. Only trivially destructible objects live
/// in this frame, so the jump skips no destructor.
bool write_png_rows(png_structp png, png_infop info, PngSink* sink, const png_byte* rgb, int width,
                    int height) {
  if (setjmp(png_jmpbuf(png)) != 0) return false;
  png_set_write_fn(png, sink, on_png_write, on_png_flush);
  png_set_IHDR(png, info, static_cast<png_uint_32>(width), static_cast<png_uint_32>(height),
               /*bit_depth=*/8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  const std::size_t stride = static_cast<std::size_t>(width) * 3;
  for (int y = 0; y < height; ++y) png_write_row(png, rgb + static_cast<std::size_t>(y) * stride);
  png_write_end(png, nullptr);
  return true;
}

/// Owns libpng's write and info structures.
class PngWriteStruct {
 public:
  explicit PngWriteStruct(PngSink* sink)
      : png_(png_create_write_struct(PNG_LIBPNG_VER_STRING, sink, on_png_error, on_png_warning)),
        info_(png_ ? png_create_info_struct(png_) : nullptr) {
    if (png_ == nullptr || info_ == nullptr) {
      throw std::runtime_error("libpng: png_create_write_struct/png_create_info_struct failed");
    }
  }
  ~PngWriteStruct() { png_destroy_write_struct(&png_, info_ ? &info_ : nullptr); }
  PngWriteStruct(const PngWriteStruct&) = delete;
  PngWriteStruct& operator=(const PngWriteStruct&) = delete;

  [[nodiscard]] png_structp png() const { return png_; }
  [[nodiscard]] png_infop info() const { return info_; }

 private:
  png_structp png_;
  png_infop info_;
};

}  // namespace

LogColourScale::LogColourScale(double low, double high) : low_(low), high_(high) {
  if (!std::isfinite(low) || !std::isfinite(high) || low <= 0.0 || high < low) {
    throw std::invalid_argument("log colour scale: needs 0 < low <= high, got low " +
                                std::to_string(low) + " and high " + std::to_string(high));
  }
  low_ = std::max(low, high / kMaxRange);
}

LogColourScale LogColourScale::spanning(const std::vector<const BinnedMatrix*>& matrices) {
  double low = 0.0;
  double high = 0.0;
  for (const BinnedMatrix* matrix : matrices) {
    for (const double cell : matrix->sums) {
      if (cell <= 0.0) continue;
      low = low == 0.0 ? cell : std::min(low, cell);
      high = std::max(high, cell);
    }
  }
  return high > 0.0 ? LogColourScale(low, high) : LogColourScale(1.0, 1.0);
}

double LogColourScale::position(double value) const {
  if (value <= low_ || high_ == low_) return value >= high_ ? 1.0 : 0.0;
  if (value >= high_) return 1.0;
  return std::log(value / low_) / std::log(high_ / low_);
}

Rgb LogColourScale::colour_at(double position) {
  const double scaled = std::clamp(position, 0.0, 1.0) * static_cast<double>(kRamp.size() - 1);
  const auto segment = std::min(static_cast<std::size_t>(scaled), kRamp.size() - 2);
  const double t = scaled - static_cast<double>(segment);
  const Rgb& from = kRamp[segment];
  const Rgb& to = kRamp[segment + 1];
  return Rgb{blend(from.red, to.red, t), blend(from.green, to.green, t),
             blend(from.blue, to.blue, t)};
}

Rgb LogColourScale::colour(double value) const {
  return value > 0.0 ? colour_at(position(value)) : kEmptyCell;
}

std::vector<Rgb> heat_map_pixels(const BinnedMatrix& matrix, const LogColourScale& scale) {
  std::vector<Rgb> pixels(matrix.sums.size());
  std::transform(matrix.sums.begin(), matrix.sums.end(), pixels.begin(),
                 [&](double cell) { return scale.colour(cell); });
  return pixels;
}

std::string encode_png(const std::vector<Rgb>& pixels, int width, int height) {
  if (width < 1 || height < 1 ||
      pixels.size() != static_cast<std::size_t>(width) * static_cast<std::size_t>(height)) {
    throw std::invalid_argument("PNG: " + std::to_string(pixels.size()) + " pixels for a " +
                                std::to_string(width) + " x " + std::to_string(height) +
                                " image; need width x height >= 1");
  }
  std::vector<png_byte> rgb;
  rgb.reserve(pixels.size() * 3);
  for (const Rgb& pixel : pixels) rgb.insert(rgb.end(), {pixel.red, pixel.green, pixel.blue});

  std::string bytes;
  PngSink sink;
  sink.bytes = &bytes;
  const PngWriteStruct writer(&sink);
  if (!write_png_rows(writer.png(), writer.info(), &sink, rgb.data(), width, height)) {
    throw std::runtime_error(std::string("libpng: cannot encode the heat map: ") +
                             sink.message.data());
  }
  return bytes;
}

std::string base64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  const auto byte = [&](std::size_t at) { return static_cast<unsigned char>(bytes[at]); };
  for (; i + 3 <= bytes.size(); i += 3) {
    const unsigned group = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out += kAlphabet[(group >> 18) & 63];
    out += kAlphabet[(group >> 12) & 63];
    out += kAlphabet[(group >> 6) & 63];
    out += kAlphabet[group & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest > 0) {
    const unsigned group = (byte(i) << 16) | (rest == 2 ? byte(i + 1) << 8 : 0u);
    out += kAlphabet[(group >> 18) & 63];
    out += kAlphabet[(group >> 12) & 63];
    out += rest == 2 ? kAlphabet[(group >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace treematch::io
