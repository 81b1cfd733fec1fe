// libnvjpeg loaded at run time (issue 41), like cuBLAS (suites/common/cuda/libraries.hpp): the
// dataloader starts on a machine without it and the `decode:nvjpeg` cases skip with
// `libnvjpeg.so.13 not found (searched: ...)`. Search order (util/dynlib.hpp): GPUBENCH_CUDA_LIBS
// (GPUBENCH_CUDA_LIBS_ONLY=1 stops there), the dynamic loader's path, the CUDA toolkit's
// directories, then the pip wheels under site-packages: nvidia/cu13/lib (CUDA 13 wheels) and
// nvidia/nvjpeg/lib (`nvidia-nvjpeg-cu12`). libnvjpeg.so.13 is tried first, then .so.12: the
// entry points used here have kept their signatures since CUDA 11. Host code, no CUDA header.
#pragma once

#include <string>

#include "suites/dataloader/nvjpeg_abi.hpp"
#include "util/dynlib.hpp"

namespace gpubench::dataloader {

struct NvjpegApi {
  nvjpeg_abi::nvjpegCreateSimple_fn CreateSimple = nullptr;
  nvjpeg_abi::nvjpegDestroy_fn Destroy = nullptr;
  nvjpeg_abi::nvjpegJpegStateCreate_fn JpegStateCreate = nullptr;
  nvjpeg_abi::nvjpegJpegStateDestroy_fn JpegStateDestroy = nullptr;
  nvjpeg_abi::nvjpegGetImageInfo_fn GetImageInfo = nullptr;
  nvjpeg_abi::nvjpegDecodeBatchedInitialize_fn DecodeBatchedInitialize = nullptr;
  nvjpeg_abi::nvjpegDecodeBatched_fn DecodeBatched = nullptr;
  std::string path;  // where libnvjpeg was loaded from
};

// The library search: sonames libnvjpeg.so.13 then .so.12, the toolkit's directories and the pip
// layouts above.
LibrarySpec nvjpeg_library_spec();

// One load with an explicit environment (tests): the API, or ok == false and `reason` ("<soname>
// not found (searched: ...)", or "<path> lacks <symbol> ..."). The handle is never closed.
struct NvjpegLoad {
  NvjpegApi api;
  bool ok = false;
  std::string reason;
};
NvjpegLoad load_nvjpeg(const SearchEnvironment& env);

// The process-wide API (loaded on the first call from the process environment, thread-safe), or
// nullptr with `reason` set.
const NvjpegApi* nvjpeg_api(std::string* reason);

// "NVJPEG_STATUS_BAD_JPEG"; "nvjpegStatus_t <n>" for a value the documentation does not list.
std::string nvjpeg_status_name(int status);
// The documentation's meaning of a status, with its name: "NVJPEG_STATUS_BAD_JPEG (the bitstream
// cannot be parsed: corrupt or not a JPEG)".
std::string nvjpeg_status_text(int status);

}  // namespace gpubench::dataloader
