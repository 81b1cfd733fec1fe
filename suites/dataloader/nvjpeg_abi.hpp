// The nvJPEG C ABI pieces the GPU decode case uses (issue 41), written from NVIDIA's nvJPEG
// documentation (CUDA 12/13 "nvJPEG Type Declarations" and "nvJPEG API Reference"), so the build
// needs neither nvjpeg.h (the toolkit here ships none) nor libnvjpeg: nvjpeg_api.cpp loads the
// library at run time and looks these entry points up by name. Layouts and enum values must match
// nvjpeg.h exactly; the static_asserts below and tests/dataloader/test_nvjpeg.cpp check what can
// be checked without the header. No CUDA header either: cudaStream_t is the runtime's opaque
// `struct CUstream_st*`, the same type cuda_runtime_api.h declares.
#pragma once

#include <cstddef>

struct CUstream_st;

namespace gpubench::nvjpeg_abi {

using cudaStream_t = CUstream_st*;

// nvjpegStatus_t (documented values; 10 since CUDA 11.6).
enum nvjpegStatus_t : int {
  NVJPEG_STATUS_SUCCESS = 0,
  NVJPEG_STATUS_NOT_INITIALIZED = 1,
  NVJPEG_STATUS_INVALID_PARAMETER = 2,
  NVJPEG_STATUS_BAD_JPEG = 3,
  NVJPEG_STATUS_JPEG_NOT_SUPPORTED = 4,
  NVJPEG_STATUS_ALLOCATOR_FAILURE = 5,
  NVJPEG_STATUS_EXECUTION_FAILED = 6,
  NVJPEG_STATUS_ARCH_MISMATCH = 7,
  NVJPEG_STATUS_INTERNAL_ERROR = 8,
  NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED = 9,
  NVJPEG_STATUS_INCOMPLETE_BITSTREAM = 10,
};

// nvjpegChromaSubsampling_t.
enum nvjpegChromaSubsampling_t : int {
  NVJPEG_CSS_444 = 0,
  NVJPEG_CSS_422 = 1,
  NVJPEG_CSS_420 = 2,
  NVJPEG_CSS_440 = 3,
  NVJPEG_CSS_411 = 4,
  NVJPEG_CSS_410 = 5,
  NVJPEG_CSS_GRAY = 6,
  NVJPEG_CSS_410V = 7,
  NVJPEG_CSS_UNKNOWN = -1,
};

// nvjpegOutputFormat_t. RGBI: interleaved 8-bit RGB written to channel[0] only, row pitch
// pitch[0] >= width * 3 bytes; the other channels are not touched.
enum nvjpegOutputFormat_t : int {
  NVJPEG_OUTPUT_UNCHANGED = 0,
  NVJPEG_OUTPUT_YUV = 1,
  NVJPEG_OUTPUT_Y = 2,
  NVJPEG_OUTPUT_RGB = 3,
  NVJPEG_OUTPUT_BGR = 4,
  NVJPEG_OUTPUT_RGBI = 5,
  NVJPEG_OUTPUT_BGRI = 6,
};

// NVJPEG_MAX_COMPONENT: channel and pitch arrays, and nvjpegGetImageInfo's widths/heights.
inline constexpr int k_max_component = 4;

// nvjpegImage_t: 4 channel pointers (device memory for decode output), then 4 row pitches in
// bytes. The struct itself lives in host memory.
struct nvjpegImage_t {
  unsigned char* channel[k_max_component];
  std::size_t pitch[k_max_component];
};
static_assert(sizeof(nvjpegImage_t) == 8 * sizeof(void*) && offsetof(nvjpegImage_t, pitch) == 32,
              "nvjpegImage_t: 4 pointers then 4 size_t pitches (LP64)");

// Opaque handles.
using nvjpegHandle_t = struct nvjpegHandle*;
using nvjpegJpegState_t = struct nvjpegJpegState*;

// The entry points, with nvjpeg.h's signatures (all return nvjpegStatus_t; host pointers unless
// noted).
using nvjpegCreateSimple_fn = nvjpegStatus_t (*)(nvjpegHandle_t* handle);
using nvjpegDestroy_fn = nvjpegStatus_t (*)(nvjpegHandle_t handle);
using nvjpegJpegStateCreate_fn = nvjpegStatus_t (*)(nvjpegHandle_t handle,
                                                    nvjpegJpegState_t* jpeg_handle);
using nvjpegJpegStateDestroy_fn = nvjpegStatus_t (*)(nvjpegJpegState_t jpeg_handle);
// widths/heights: arrays of k_max_component entries, one per component.
using nvjpegGetImageInfo_fn = nvjpegStatus_t (*)(nvjpegHandle_t handle, const unsigned char* data,
                                                 std::size_t length, int* nComponents,
                                                 nvjpegChromaSubsampling_t* subsampling,
                                                 int* widths, int* heights);
// max_cpu_threads: documented as no longer used by the library; pass 1.
using nvjpegDecodeBatchedInitialize_fn = nvjpegStatus_t (*)(nvjpegHandle_t handle,
                                                            nvjpegJpegState_t jpeg_handle,
                                                            int batch_size, int max_cpu_threads,
                                                            nvjpegOutputFormat_t output_format);
// data/lengths: batch_size host entries (bitstreams in host memory); destinations: batch_size
// host nvjpegImage_t whose channel pointers are device memory. Asynchronous: output is complete
// once `stream` is.
using nvjpegDecodeBatched_fn = nvjpegStatus_t (*)(nvjpegHandle_t handle,
                                                  nvjpegJpegState_t jpeg_handle,
                                                  const unsigned char* const* data,
                                                  const std::size_t* lengths,
                                                  nvjpegImage_t* destinations, cudaStream_t stream);

}  // namespace gpubench::nvjpeg_abi
