// cuBLAS, cuBLASLt and NCCL are loaded at run time, not linked (issue 22): the suites start on a
// machine that has the NVIDIA driver but not these libraries, and the cases that need one are
// skipped with `<soname> not found (searched: ...)`. The search order is util/dynlib.hpp's
// (GPUBENCH_CUDA_LIBS, the dynamic loader's path, the toolkit's directories, pip wheels).
//
// The functions the suites call (cublasCreate, cublasLtMatmul, ncclAllReduce, ...) are defined in
// cublas_forward.cpp and nccl_forward.cpp with the headers' own signatures; each resolves its
// symbol on first use and, when the library or the symbol is missing, returns the API's own
// failure status (CUBLAS_STATUS_NOT_INITIALIZED, ncclSystemError). Callers that want a clean skip
// ask library_status() first. This header needs no CUDA header.
#pragma once

#include <initializer_list>
#include <string>

namespace gpubench::suite::cuda {

enum class Library { cublas, cublasLt, nccl };

struct LibraryStatus {
  bool loaded = false;
  std::string soname;  // "libcublasLt.so.13": from the headers' major version at build time
  std::string path;    // where it was loaded from; empty when not loaded
  std::string reason;  // empty when loaded, else "<soname> not found (searched: ...)" or why not
};

// Loads the library on the first call (thread-safe; cuBLAS loads cuBLASLt first, as it needs it)
// and returns the same answer afterwards.
const LibraryStatus& library_status(Library library);

// The symbol from the loaded library; nullptr when the library or the symbol is missing.
void* library_symbol(Library library, const char* name);

// The first missing library's reason, or empty when all of `libraries` are loaded: the skip
// reason of a case that needs them.
std::string unavailable_reason(std::initializer_list<Library> libraries);

// "cuBLAS", "cuBLASLt", "NCCL".
const char* to_string(Library library);

// Records in the suite's JSON context, key "gpubench.libraries" (stored with the suite run), where
// each of `libraries` was loaded from, or why it was not:
// {"cuBLASLt": {"soname": "libcublasLt.so.13", "path": "/usr/local/cuda/lib64/libcublasLt.so.13"}}
// or {"NCCL": {"soname": "libnccl.so.2", "reason": "libnccl.so.2 not found (searched: ...)"}}.
void add_libraries_context(std::initializer_list<Library> libraries);

// An availability note for --gpubench_info: "cuBLASLt: <path>" or "cuBLASLt: skipped: <reason>".
std::string library_note(Library library);

}  // namespace gpubench::suite::cuda
