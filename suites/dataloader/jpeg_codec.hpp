// JPEG encode and decode on the CPU through libjpeg-turbo's TurboJPEG API (issue 41), loaded at
// run time like libhdf5 (util/dynlib.hpp): the binary starts without it and the JPEG cases skip
// with `libturbojpeg.so.0 not found (searched: ...)`. The entry points are declared in
// jpeg_codec.cpp from the documented TurboJPEG 2.x API (tjInitCompress, tjCompress2,
// tjInitDecompress, tjDecompressHeader3, tjDecompress2, tjDestroy, tjFree, tjGetErrorStr2), so
// the build needs no turbojpeg.h.
//
// Decoded images are interleaved 8-bit RGB, row-major, width * 3 bytes per row, no padding.
// Thread-safe: each thread uses its own TurboJPEG handles (created on first use).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace gpubench::dataloader {

struct DecodedImage {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> rgb;  // width * height * 3
};

// How a decode differs from a reference image of the same size.
struct DecodeDifference {
  int max_abs = 0;         // largest |a - b| over every channel value
  double mean_abs = 0;     // mean |a - b|
  double psnr_db = 0;      // 10 log10(255^2 / MSE); +infinity when identical
  std::uint64_t over = 0;  // values with |a - b| above the tolerance's max_abs
};

// The tolerance a decode must meet against a reference (the generator's pixels, or a second
// decoder's output): what a JPEG codec at the dataset's quality may change, not more.
struct DecodeTolerance {
  int max_abs = 0;
  double min_psnr_db = 0;
  double max_mean_abs = 0;
};

class JpegCodec {
 public:
  // The process-wide codec, or null with `reason` set when libturbojpeg cannot be loaded or
  // lacks an entry point. Loads once; later calls return the same answer.
  static const JpegCodec* get(std::string* reason);

  // Encodes `rgb` (width * height * 3) at `quality` (1..100) with 4:2:0 chroma subsampling,
  // the layout of ImageNet's JPEGs. Throws Error(infrastructure) with TurboJPEG's message.
  std::vector<std::uint8_t> encode_rgb(const std::uint8_t* rgb, int width, int height,
                                       int quality) const;
  // Reads width and height from the header without decoding; false for a damaged header.
  bool read_header(std::span<const std::uint8_t> jpeg, int& width, int& height) const;
  // Decodes into `out` (resized; its buffer is reused across calls). `accurate`: the accurate
  // integer IDCT (TJFLAG_ACCURATEDCT), else the library default. Throws Error(bad_input) naming
  // TurboJPEG's message for a corrupt stream.
  void decode_rgb(std::span<const std::uint8_t> jpeg, DecodedImage& out,
                  bool accurate = false) const;
  // Where the library was loaded from (for --gpubench_info).
  const std::string& library_path() const noexcept { return m_path; }

  JpegCodec() = default;

 private:
  std::string m_path;
};

// Compares two images of equal size (throws Error(bad_input) when sizes differ).
DecodeDifference compare_images(const DecodedImage& a, const DecodedImage& b,
                                const DecodeTolerance& tolerance);
bool within(const DecodeDifference& d, const DecodeTolerance& tolerance);

}  // namespace gpubench::dataloader
