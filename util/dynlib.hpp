// Shared libraries loaded at run time (dlopen), found in a fixed, recorded search order, so a
// binary starts on a machine that lacks them and the features that need them report
// `skipped: <soname> not found (searched: ...)` instead of a dynamic-loader failure.
//
// Used for the libraries gpubench does not bundle: cuBLAS, cuBLASLt and NCCL (taken from the
// target's CUDA toolkit or pip `nvidia-*` wheels) and HDF5 (the dataloader's; its closure is
// large and tied to the build machine's glibc); also for libturbojpeg, which the bundle does
// carry (libc only), so that a build without it still starts. Search order with `env_dirs` set:
//   1. each directory of the environment variable (GPUBENCH_CUDA_LIBS for the CUDA libraries,
//      GPUBENCH_HDF5_LIBS for HDF5; colon-separated): the directory itself, then the pip layouts
//      under it (nvidia/cu<N>/lib, nvidia/<package>/lib, cu<N>/lib, <package>/lib), so a
//      site-packages or site-packages/nvidia directory works too; <variable>_ONLY=1 stops here
//      (tests use it to simulate a machine without the library on one that has it);
//   2. the plain soname: the dynamic loader's own path (LD_LIBRARY_PATH as set when the process
//      started, the binary's RUNPATH, the ld.so cache, the default directories);
//   3. the spec's system directories (the CUDA toolkit's usual places, /usr/local/cuda-*/...);
//   4. the pip layouts under the Python site-packages directories (VIRTUAL_ENV, CONDA_PREFIX,
//      system, /usr/local, user).
// Without `env_dirs`, steps 1 and 4 are skipped. No part of this needs CUDA.
#pragma once

#include <string>
#include <vector>

namespace gpubench {

struct LibrarySpec {
  std::vector<std::string> sonames;   // tried in this order at every place, e.g. "libcublas.so.13"
  std::vector<std::string> pip_dirs;  // relative lib dirs of pip wheels: "nvidia/cu13/lib", ...
  std::vector<std::string>
      system_dirs;       // absolute; may hold one '*' (glob), "/usr/local/cuda-*/lib64"
  bool env_dirs = true;  // honour the environment's directories (step 1) and site-packages (step 4)
};

// What the search reads from the process environment, separated so tests can set it.
struct SearchEnvironment {
  std::string variable = "GPUBENCH_CUDA_LIBS";  // names the directories in the reason text
  std::string dirs;                             // its value: directories, colon-separated
  bool dirs_only = false;                       // <variable>_ONLY=1: search only `dirs`
  std::vector<std::string> site_dirs;           // Python site-packages directories that exist

  static SearchEnvironment from_process(const std::string& variable = "GPUBENCH_CUDA_LIBS");
};

// One place in the search: a full path (contains '/') or a bare soname left to the dynamic loader.
struct SearchStep {
  std::string candidate;
  std::string place;  // how the reason text names it: a directory, or "the dynamic loader's path"
};

// The ordered candidates (directories expanded, globs resolved, duplicates removed).
std::vector<SearchStep> search_steps(const LibrarySpec& spec, const SearchEnvironment& env);

struct LoadedLibrary {
  void* handle = nullptr;  // dlopen handle (RTLD_NOW | RTLD_LOCAL); the caller owns it
  std::string path;  // where it was loaded from (the file, or the soname when the loader found it)
  std::string
      reason;  // empty when loaded: "<soname> not found (searched: ...)" or "cannot load ..."
  explicit operator bool() const noexcept { return handle != nullptr; }
};

// Walks search_steps() and dlopens the first candidate that exists. A candidate that exists but
// fails to load (wrong architecture, a missing dependency) is remembered, and the search goes on;
// when nothing loads, the reason names that error in preference to "not found".
LoadedLibrary load_library(const LibrarySpec& spec, const SearchEnvironment& env);

// The spec for a CUDA library of the toolkit: `pip_package` is the wheel's directory name before
// CUDA 13 ("cublas", "nccl"); `cuda_major` gives the CUDA 13+ layout (nvidia/cu13/lib).
LibrarySpec cuda_library_spec(std::vector<std::string> sonames, const std::string& pip_package,
                              int cuda_major);

}  // namespace gpubench
