#include "suites/dataloader/nvjpeg_api.hpp"

#include <dlfcn.h>

namespace gpubench::dataloader {
namespace {

namespace abi = nvjpeg_abi;

template <class Fn>
void resolve(void* handle, const char* name, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  if (out == nullptr && missing.empty()) missing = name;
}

struct StatusInfo {
  const char* name;
  const char* meaning;  // the nvJPEG documentation's description, shortened
};

// Indexed by the status value (nvjpeg_abi.hpp); the documentation's "API Return Codes".
constexpr StatusInfo k_statuses[] = {
    {"NVJPEG_STATUS_SUCCESS", "the call finished successfully"},
    {"NVJPEG_STATUS_NOT_INITIALIZED", "the library handle was not initialized"},
    {"NVJPEG_STATUS_INVALID_PARAMETER",
     "a wrong parameter was passed, e.g. a null pointer or an index out of range"},
    {"NVJPEG_STATUS_BAD_JPEG", "the JPEG stream cannot be parsed: corrupt, or its size is wrong"},
    {"NVJPEG_STATUS_JPEG_NOT_SUPPORTED", "a JPEG stream nvJPEG does not support"},
    {"NVJPEG_STATUS_ALLOCATOR_FAILURE", "a memory allocation or release failed"},
    {"NVJPEG_STATUS_EXECUTION_FAILED", "the device tasks failed to execute"},
    {"NVJPEG_STATUS_ARCH_MISMATCH",
     "the device cannot serve these parameters (backend, stream, output format)"},
    {"NVJPEG_STATUS_INTERNAL_ERROR", "an internal error during the device tasks"},
    {"NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED", "not supported by this implementation"},
    {"NVJPEG_STATUS_INCOMPLETE_BITSTREAM", "the bitstream is incomplete (cut short)"},
};

}  // namespace

LibrarySpec nvjpeg_library_spec() {
  // The CUDA 13 wheels put every library in nvidia/cu13/lib; the CUDA 12 wheel
  // nvidia-nvjpeg-cu12 in nvidia/nvjpeg/lib.
  return cuda_library_spec({"libnvjpeg.so.13", "libnvjpeg.so.12"}, "nvjpeg", 13);
}

NvjpegLoad load_nvjpeg(const SearchEnvironment& env) {
  NvjpegLoad out;
  const LoadedLibrary lib = load_library(nvjpeg_library_spec(), env);
  if (!lib) {
    out.reason = lib.reason;
    return out;
  }
  NvjpegApi& a = out.api;
  a.path = lib.path;
  std::string missing;
  resolve(lib.handle, "nvjpegCreateSimple", a.CreateSimple, missing);
  resolve(lib.handle, "nvjpegDestroy", a.Destroy, missing);
  resolve(lib.handle, "nvjpegJpegStateCreate", a.JpegStateCreate, missing);
  resolve(lib.handle, "nvjpegJpegStateDestroy", a.JpegStateDestroy, missing);
  resolve(lib.handle, "nvjpegGetImageInfo", a.GetImageInfo, missing);
  resolve(lib.handle, "nvjpegDecodeBatchedInitialize", a.DecodeBatchedInitialize, missing);
  resolve(lib.handle, "nvjpegDecodeBatched", a.DecodeBatched, missing);
  if (!missing.empty()) {
    out.reason = lib.path + " has no symbol " + missing + " (not an nvJPEG 11+ library)";
    return out;
  }
  out.ok = true;
  return out;
}

const NvjpegApi* nvjpeg_api(std::string* reason) {
  // Loaded once (thread-safe static), never unloaded.
  static const NvjpegLoad loaded = load_nvjpeg(SearchEnvironment::from_process());
  if (!loaded.ok) {
    if (reason) *reason = loaded.reason;
    return nullptr;
  }
  return &loaded.api;
}

std::string nvjpeg_status_name(int status) {
  if (status >= 0 && status < static_cast<int>(std::size(k_statuses))) {
    return k_statuses[status].name;
  }
  return "nvjpegStatus_t " + std::to_string(status);
}

std::string nvjpeg_status_text(int status) {
  if (status >= 0 && status < static_cast<int>(std::size(k_statuses))) {
    return std::string(k_statuses[status].name) + " (" + k_statuses[status].meaning + ")";
  }
  return "nvjpegStatus_t " + std::to_string(status) + " (a status the nvJPEG documentation " +
         "does not list: a newer library?)";
}

}  // namespace gpubench::dataloader
