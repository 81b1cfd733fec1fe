// libjpeg-turbo's TurboJPEG API loaded at run time (util/dynlib.hpp), as hdf5_api.cpp loads
// libhdf5: the binary starts without it, and JpegCodec::get() says why the JPEG cases skip.
// The entry points are declared here from the documented TurboJPEG 2.x API (turbojpeg.h of
// libjpeg-turbo 2.0/2.1; 3.x keeps them as its backward-compatible API), so the build needs no
// turbojpeg.h.
#include "suites/dataloader/jpeg_codec.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "util/dynlib.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

// turbojpeg.h: `typedef void *tjhandle;` and the enum/flag values used here (TJPF_RGB is the
// first of enum TJPF, TJSAMP_420 the third of enum TJSAMP; TJFLAG_ACCURATEDCT is 4096).
using TjHandle = void*;
constexpr int k_tjpf_rgb = 0;
constexpr int k_tjsamp_420 = 2;
constexpr int k_tjflag_accuratedct = 4096;

struct TurboApi {
  TjHandle (*init_compress)() = nullptr;
  int (*compress2)(TjHandle, const unsigned char*, int width, int pitch, int height,
                   int pixel_format, unsigned char** jpeg, unsigned long* jpeg_size,
                   int subsampling, int quality, int flags) = nullptr;
  TjHandle (*init_decompress)() = nullptr;
  int (*decompress_header3)(TjHandle, const unsigned char*, unsigned long size, int* width,
                            int* height, int* subsampling, int* colorspace) = nullptr;
  int (*decompress2)(TjHandle, const unsigned char*, unsigned long size, unsigned char* dst,
                     int width, int pitch, int height, int pixel_format, int flags) = nullptr;
  int (*destroy)(TjHandle) = nullptr;
  void (*free)(unsigned char*) = nullptr;
  char* (*get_error_str2)(TjHandle) = nullptr;
};

struct Loaded {
  TurboApi api;
  JpegCodec codec;
  bool ok = false;
  std::string reason;
};

// Debian/Ubuntu (libturbojpeg0) and RHEL (turbojpeg) both ship libturbojpeg.so.0; the
// libjpeg-turbo project's own packages install under /opt/libjpeg-turbo. A bundle carries it in
// its lib/, found through the executable's RPATH ($ORIGIN/../lib) at the soname step.
LibrarySpec turbojpeg_spec() {
  LibrarySpec spec;
  spec.sonames = {"libturbojpeg.so.0"};
  spec.system_dirs = {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64",
                      "/usr/local/lib", "/opt/libjpeg-turbo/lib64"};
  spec.env_dirs = true;  // GPUBENCH_TURBOJPEG_LIBS(_ONLY); no pip layouts
  return spec;
}

template <class Fn>
void resolve(void* handle, const char* name, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  if (out == nullptr && missing.empty()) missing = name;
}

Loaded load() {
  Loaded out;
  const LoadedLibrary lib =
      load_library(turbojpeg_spec(), SearchEnvironment::from_process("GPUBENCH_TURBOJPEG_LIBS"));
  if (!lib) {
    out.reason = lib.reason;
    return out;
  }
  void* h = lib.handle;
  TurboApi& a = out.api;
  std::string missing;
  resolve(h, "tjInitCompress", a.init_compress, missing);
  resolve(h, "tjCompress2", a.compress2, missing);
  resolve(h, "tjInitDecompress", a.init_decompress, missing);
  resolve(h, "tjDecompressHeader3", a.decompress_header3, missing);
  resolve(h, "tjDecompress2", a.decompress2, missing);
  resolve(h, "tjDestroy", a.destroy, missing);
  resolve(h, "tjFree", a.free, missing);
  resolve(h, "tjGetErrorStr2", a.get_error_str2, missing);
  if (!missing.empty()) {
    out.reason = lib.path + " has no symbol " + missing + " (not a TurboJPEG 2.0+ library)";
    return out;
  }
  out.codec = JpegCodec(lib.path);
  out.ok = true;
  return out;
}

const Loaded& loaded() {
  static const Loaded l = load();  // once, thread-safe; the library is never unloaded
  return l;
}

const TurboApi& api() {
  return loaded().api;
}

// A TurboJPEG handle is not thread-safe: each thread keeps its own compressor and decompressor,
// created on first use and destroyed when the thread exits.
struct ThreadHandles {
  TjHandle compress = nullptr;
  TjHandle decompress = nullptr;
  ThreadHandles() = default;
  ThreadHandles(const ThreadHandles&) = delete;
  ThreadHandles& operator=(const ThreadHandles&) = delete;
  ~ThreadHandles() {
    if (compress != nullptr) api().destroy(compress);
    if (decompress != nullptr) api().destroy(decompress);
  }
};

ThreadHandles& thread_handles() {
  thread_local ThreadHandles handles;
  return handles;
}

std::string error_text(TjHandle handle) {
  const char* s = api().get_error_str2(handle);
  return s != nullptr && *s != '\0' ? std::string(s) : std::string("no message from TurboJPEG");
}

TjHandle compressor() {
  ThreadHandles& t = thread_handles();
  if (t.compress == nullptr) {
    t.compress = api().init_compress();
    if (t.compress == nullptr) {
      throw infrastructure("cannot create a TurboJPEG compressor", error_text(nullptr));
    }
  }
  return t.compress;
}

TjHandle decompressor() {
  ThreadHandles& t = thread_handles();
  if (t.decompress == nullptr) {
    t.decompress = api().init_decompress();
    if (t.decompress == nullptr) {
      throw infrastructure("cannot create a TurboJPEG decompressor", error_text(nullptr));
    }
  }
  return t.decompress;
}

}  // namespace

const JpegCodec* JpegCodec::get(std::string* reason) {
  const Loaded& l = loaded();
  if (!l.ok) {
    if (reason != nullptr) *reason = l.reason;
    return nullptr;
  }
  return &l.codec;
}

std::vector<std::uint8_t> JpegCodec::encode_rgb(const std::uint8_t* rgb, int width, int height,
                                                int quality) const {
  if (rgb == nullptr || width <= 0 || height <= 0 || quality < 1 || quality > 100) {
    throw bad_input("JPEG encode of a " + std::to_string(width) + "x" + std::to_string(height) +
                        " image at quality " + std::to_string(quality),
                    "width and height must be > 0 and quality 1..100");
  }
  TjHandle h = compressor();
  unsigned char* jpeg = nullptr;  // allocated by TurboJPEG, released with tjFree
  unsigned long size = 0;
  // Flags 0: the encoder's default DCT is already the accurate integer one (libjpeg's islow).
  if (api().compress2(h, rgb, width, width * 3, height, k_tjpf_rgb, &jpeg, &size, k_tjsamp_420,
                      quality, 0) != 0) {
    const std::string why = error_text(h);
    if (jpeg != nullptr) api().free(jpeg);
    throw infrastructure("JPEG encode of a " + std::to_string(width) + "x" +
                             std::to_string(height) + " image failed",
                         why);
  }
  std::vector<std::uint8_t> out(jpeg, jpeg + size);
  api().free(jpeg);
  return out;
}

bool JpegCodec::read_header(std::span<const std::uint8_t> jpeg, int& width, int& height) const {
  int subsampling = 0;
  int colorspace = 0;
  return api().decompress_header3(decompressor(), jpeg.data(), jpeg.size(), &width, &height,
                                  &subsampling, &colorspace) == 0;
}

void JpegCodec::decode_rgb(std::span<const std::uint8_t> jpeg, DecodedImage& out,
                           bool accurate) const {
  TjHandle h = decompressor();
  int width = 0;
  int height = 0;
  int subsampling = 0;
  int colorspace = 0;
  if (api().decompress_header3(h, jpeg.data(), jpeg.size(), &width, &height, &subsampling,
                               &colorspace) != 0) {
    throw bad_input("corrupt JPEG (" + std::to_string(jpeg.size()) + " bytes): bad header",
                    error_text(h));
  }
  out.width = width;
  out.height = height;
  out.rgb.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * 3);
  // TurboJPEG 2.x returns -1 for warnings too (a truncated stream: "Premature end of JPEG
  // file"), having decoded what it could: any non-zero return is a corrupt sample here.
  if (api().decompress2(h, jpeg.data(), jpeg.size(), out.rgb.data(), width, width * 3, height,
                        k_tjpf_rgb, accurate ? k_tjflag_accuratedct : 0) != 0) {
    throw bad_input("corrupt JPEG (" + std::to_string(jpeg.size()) + " bytes, " +
                        std::to_string(width) + "x" + std::to_string(height) + ")",
                    error_text(h));
  }
}

DecodeDifference compare_images(const DecodedImage& a, const DecodedImage& b,
                                const DecodeTolerance& tolerance) {
  if (a.width != b.width || a.height != b.height || a.rgb.size() != b.rgb.size()) {
    throw bad_input("cannot compare a " + std::to_string(a.width) + "x" + std::to_string(a.height) +
                        " image with a " + std::to_string(b.width) + "x" +
                        std::to_string(b.height) + " one",
                    "the sizes differ");
  }
  DecodeDifference d;
  std::uint64_t sum_abs = 0;
  std::uint64_t sum_sq = 0;
  for (std::size_t i = 0; i < a.rgb.size(); ++i) {
    const int diff = std::abs(int{a.rgb[i]} - int{b.rgb[i]});
    d.max_abs = std::max(d.max_abs, diff);
    sum_abs += static_cast<std::uint64_t>(diff);
    sum_sq += static_cast<std::uint64_t>(diff * diff);
    d.over += diff > tolerance.max_abs ? 1 : 0;
  }
  const double n = a.rgb.empty() ? 1.0 : static_cast<double>(a.rgb.size());
  d.mean_abs = static_cast<double>(sum_abs) / n;
  const double mse = static_cast<double>(sum_sq) / n;
  d.psnr_db =
      mse == 0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(255.0 * 255.0 / mse);
  return d;
}

bool within(const DecodeDifference& d, const DecodeTolerance& tolerance) {
  return d.max_abs <= tolerance.max_abs && d.mean_abs <= tolerance.max_mean_abs &&
         d.psnr_db >= tolerance.min_psnr_db;
}

}  // namespace gpubench::dataloader
