#include "suites/dataloader/hdf5_api.hpp"

#include <dlfcn.h>

#include "util/dynlib.hpp"

namespace gpubench::dataloader {
namespace {

struct Loaded {
  Hdf5Api api;
  bool ok = false;
  std::string reason;
};

// Debian/Ubuntu name the serial build libhdf5_serial, other distributions libhdf5. The soname of
// the headers the suite was built with comes first; the later ones (1.12: .200, 1.14: .310) keep
// the 1.10 API used here (64-bit hid_t, H5Dcreate2/H5Dopen2, the *_g type ids).
LibrarySpec hdf5_spec() {
  LibrarySpec spec;
  spec.sonames = {"libhdf5_serial.so.103", "libhdf5.so.103", "libhdf5_serial.so.200",
                  "libhdf5.so.200",        "libhdf5.so.310", "libhdf5_serial.so.310"};
  spec.system_dirs = {"/usr/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu/hdf5/serial",
                      "/usr/lib64", "/usr/local/lib", "/usr/local/hdf5/lib"};
  spec.env_dirs = true;  // GPUBENCH_HDF5_LIBS(_ONLY); no pip layouts, so no site-packages
  return spec;
}

template <class Fn>
bool resolve(void* handle, const char* name, Fn& out, std::string& missing) {
  out = reinterpret_cast<Fn>(dlsym(handle, name));
  if (out == nullptr && missing.empty()) missing = name;
  return out != nullptr;
}

Loaded load() {
  Loaded out;
  const LibrarySpec spec = hdf5_spec();
  const LoadedLibrary lib =
      load_library(spec, SearchEnvironment::from_process("GPUBENCH_HDF5_LIBS"));
  if (!lib) {
    out.reason = lib.reason;
    return out;
  }
  void* h = lib.handle;
  Hdf5Api& a = out.api;
  a.path = lib.path;
  std::string missing;
  decltype(&::H5open) open = nullptr;
  decltype(&::H5get_libversion) libversion = nullptr;
  resolve(h, "H5open", open, missing);
  resolve(h, "H5get_libversion", libversion, missing);
  resolve(h, "H5Eset_auto2", a.Eset_auto2, missing);
  resolve(h, "H5Fcreate", a.Fcreate, missing);
  resolve(h, "H5Fopen", a.Fopen, missing);
  resolve(h, "H5Fclose", a.Fclose, missing);
  resolve(h, "H5Screate_simple", a.Screate_simple, missing);
  resolve(h, "H5Sclose", a.Sclose, missing);
  resolve(h, "H5Sselect_hyperslab", a.Sselect_hyperslab, missing);
  resolve(h, "H5Sget_simple_extent_ndims", a.Sget_simple_extent_ndims, missing);
  resolve(h, "H5Sget_simple_extent_dims", a.Sget_simple_extent_dims, missing);
  resolve(h, "H5Dcreate2", a.Dcreate2, missing);
  resolve(h, "H5Dopen2", a.Dopen2, missing);
  resolve(h, "H5Dclose", a.Dclose, missing);
  resolve(h, "H5Dget_space", a.Dget_space, missing);
  resolve(h, "H5Dwrite", a.Dwrite, missing);
  resolve(h, "H5Dread", a.Dread, missing);
  hid_t* uint8_g = nullptr;
  hid_t* uint32_g = nullptr;
  hid_t* u32le_g = nullptr;
  resolve(h, "H5T_NATIVE_UINT8_g", uint8_g, missing);
  resolve(h, "H5T_NATIVE_UINT32_g", uint32_g, missing);
  resolve(h, "H5T_STD_U32LE_g", u32le_g, missing);
  if (!missing.empty()) {
    out.reason = lib.path + " has no symbol " + missing + " (not an HDF5 1.10+ C library)";
    return out;
  }
  unsigned major = 0, minor = 0, release = 0;
  if (libversion(&major, &minor, &release) < 0 || major != 1 || minor < 10) {
    out.reason = lib.path + " is HDF5 " + std::to_string(major) + "." + std::to_string(minor) +
                 " (gpubench needs 1.10 or newer)";
    return out;
  }
  a.version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
  // H5open initialises the library and fills the global type ids the macros read.
  if (open() < 0) {
    out.reason = lib.path + ": H5open failed";
    return out;
  }
  a.native_uint8 = *uint8_g;
  a.native_uint32 = *uint32_g;
  a.std_u32le = *u32le_g;
  // libhdf5 prints its error stack to stderr by default; our errors already say what failed.
  a.Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  out.ok = true;
  return out;
}

const Loaded& loaded() {
  static const Loaded l = load();  // once, thread-safe; the library is never unloaded
  return l;
}

}  // namespace

const Hdf5Api* hdf5_api() {
  return loaded().ok ? &loaded().api : nullptr;
}

std::string hdf5_unavailable_reason() {
  return loaded().reason;
}

std::string hdf5_library_text() {
  const Hdf5Api* a = hdf5_api();
  return a != nullptr ? "libhdf5 " + a->version + " (" + a->path + ")" : std::string();
}

}  // namespace gpubench::dataloader
