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
#include <utility>
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

// Decode validation (issue 41). Measured with libjpeg-turbo 2.1.5 (Debian 12) on
// fill_image_rgb's images, seed 42, indexes 0..199 of each size, encoded at quality 90, 4:2:0
// (files: 500x375 mean 111.8 KB, 102.3..120.8; 1280x960 mean 709.7 KB, 642.8..780.2):
//   decode vs the generator's pixels  500x375: max_abs 136, mean_abs <= 6.00, PSNR >= 30.24 dB
//                                    1280x960: max_abs 125, mean_abs <= 5.85, PSNR >= 30.48 dB
//   (max_abs is large by nature: 4:2:0 halves the chroma resolution, so a pixel on the edge
//   between two shapes of different colour takes part of its neighbour's colour);
//   with TurboJPEG's fast (nearest) chroma upsampling, as a decoder other than libjpeg's may
//   do: max_abs 170, mean_abs <= 6.53, PSNR >= 29.49 dB.
// A decode of the wrong image, or with red and blue swapped, is off by tens of levels on average
// (tests/dataloader/test_jpeg.cpp): the bounds have margin over a correct decode, not over those.
inline constexpr DecodeTolerance k_decode_tolerance_q90{200, 28.0, 8.0};
// Two decoders of the same file (the default against the accurate IDCT here; a GPU decoder
// against TurboJPEG later). Here libjpeg-turbo's default IDCT is the accurate one: identical
// (0 difference). What other decoders legitimately change, measured on the same images:
//   fast integer IDCT (TJFLAG_FASTDCT) vs accurate:  max_abs 8,  mean_abs <= 1.16, PSNR >= 44.3 dB
//   fast chroma upsampling (nearest) vs fancy:       max_abs 85, mean_abs <= 2.37, PSNR >= 37.1 dB
//   both:                                            max_abs 84, mean_abs <= 2.71, PSNR >= 36.5 dB
inline constexpr DecodeTolerance k_decoder_agreement_tolerance{112, 34.0, 3.5};

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
  explicit JpegCodec(std::string library_path) : m_path(std::move(library_path)) {}

 private:
  std::string m_path;
};

// Compares two images of equal size (throws Error(bad_input) when sizes differ).
DecodeDifference compare_images(const DecodedImage& a, const DecodedImage& b,
                                const DecodeTolerance& tolerance);
bool within(const DecodeDifference& d, const DecodeTolerance& tolerance);

}  // namespace gpubench::dataloader
