#include "suites/common/cuda/libraries.hpp"

#include <dlfcn.h>

// Only for the major versions: the sonames the suites were compiled against.
#include <cublas_api.h>
#if __has_include(<nccl.h>)
#include <nccl.h>
#define GPUBENCH_NCCL_MAJOR NCCL_MAJOR
#else
#define GPUBENCH_NCCL_MAJOR 2  // NCCL 2.x has been libnccl.so.2 since 2017
#endif

#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>
#include <string>

#include "util/dynlib.hpp"

namespace gpubench::suite::cuda {
namespace {

// cuBLAS versions follow the CUDA toolkit's major version (cuBLAS 13 ships with CUDA 13), and so
// do the pip wheels' directories (nvidia/cu13/lib).
constexpr int k_cuda_major = CUBLAS_VER_MAJOR;

struct Loaded {
  LibraryStatus status;
  void* handle = nullptr;
};

Loaded load(Library library) {
  const std::string major = std::to_string(k_cuda_major);
  LibrarySpec spec;
  switch (library) {
    case Library::cublas:
      spec = cuda_library_spec({"libcublas.so." + major}, "cublas", k_cuda_major);
      break;
    case Library::cublasLt:
      spec = cuda_library_spec({"libcublasLt.so." + major}, "cublas", k_cuda_major);
      break;
    case Library::nccl:
      spec = cuda_library_spec({"libnccl.so." + std::to_string(GPUBENCH_NCCL_MAJOR)}, "nccl",
                               k_cuda_major);
      break;
  }
  Loaded out;
  out.status.soname = spec.sonames.front();
  const LoadedLibrary lib = load_library(spec, SearchEnvironment::from_process());
  out.handle = lib.handle;
  out.status.loaded = lib.handle != nullptr;
  out.status.path = lib.path;
  out.status.reason = lib.reason;
  return out;
}

const Loaded& loaded(Library library) {
  // Function-local statics: loaded once, thread-safe (C++11 magic statics), never unloaded.
  switch (library) {
    case Library::cublas: {
      // libcublas needs libcublasLt: load the one our search finds first, so libcublas's
      // DT_NEEDED resolves to it rather than to another copy.
      static const Loaded lt_first = [] {
        (void)loaded(Library::cublasLt);
        return load(Library::cublas);
      }();
      return lt_first;
    }
    case Library::cublasLt: {
      static const Loaded lt = load(Library::cublasLt);
      return lt;
    }
    case Library::nccl:
      break;
  }
  static const Loaded nccl = load(Library::nccl);
  return nccl;
}

}  // namespace

const LibraryStatus& library_status(Library library) {
  return loaded(library).status;
}

void* library_symbol(Library library, const char* name) {
  const Loaded& lib = loaded(library);
  return lib.handle != nullptr ? dlsym(lib.handle, name) : nullptr;
}

std::string unavailable_reason(std::initializer_list<Library> libraries) {
  for (Library library : libraries) {
    if (const LibraryStatus& s = library_status(library); !s.loaded) return s.reason;
  }
  return {};
}

const char* to_string(Library library) {
  switch (library) {
    case Library::cublas:
      return "cuBLAS";
    case Library::cublasLt:
      return "cuBLASLt";
    case Library::nccl:
      return "NCCL";
  }
  return "unknown";
}

void add_libraries_context(std::initializer_list<Library> libraries) {
  nlohmann::json j = nlohmann::json::object();
  for (Library library : libraries) {
    const LibraryStatus& s = library_status(library);
    nlohmann::json entry = {{"soname", s.soname}};
    if (s.loaded) {
      entry["path"] = s.path;
    } else {
      entry["reason"] = s.reason;
    }
    j[to_string(library)] = entry;
  }
  benchmark::AddCustomContext("gpubench.libraries", j.dump());
}

std::string library_note(Library library) {
  const LibraryStatus& s = library_status(library);
  return std::string(to_string(library)) + ": " + (s.loaded ? s.path : "skipped: " + s.reason);
}

}  // namespace gpubench::suite::cuda
