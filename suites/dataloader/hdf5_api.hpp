// libhdf5 loaded at run time (issue 22). Debian's libhdf5 pulls in 30 libraries (libcurl,
// libcrypto, krb5, ldap, ...) built for the build machine's glibc, which a portable bundle should
// not carry for one format, so the dataloader binary links no HDF5 library: the functions it
// calls are looked up with dlsym in the serial libhdf5 found at run time, and without one the
// HDF5 cases are skipped with hdf5_unavailable_reason().
//
// The data-type ids the C API exposes as macros (H5T_NATIVE_UINT8 is `(H5open(),
// H5T_NATIVE_UINT8_g)`) are read from the library's global variables after H5open(), as the macros
// do.
#pragma once

#include <hdf5.h>

#include <string>

#include "suites/dataloader/hdf5_io.hpp"

namespace gpubench::dataloader {

// Function pointers with the types of hdf5.h's declarations (decltype: a compile-time check
// against the header the suite was built with; no link dependency).
struct Hdf5Api {
  decltype(&::H5Eset_auto2) Eset_auto2 = nullptr;
  decltype(&::H5Fcreate) Fcreate = nullptr;
  decltype(&::H5Fopen) Fopen = nullptr;
  decltype(&::H5Fclose) Fclose = nullptr;
  decltype(&::H5Screate_simple) Screate_simple = nullptr;
  decltype(&::H5Sclose) Sclose = nullptr;
  decltype(&::H5Sselect_hyperslab) Sselect_hyperslab = nullptr;
  decltype(&::H5Sget_simple_extent_ndims) Sget_simple_extent_ndims = nullptr;
  decltype(&::H5Sget_simple_extent_dims) Sget_simple_extent_dims = nullptr;
  decltype(&::H5Dcreate2) Dcreate2 = nullptr;
  decltype(&::H5Dopen2) Dopen2 = nullptr;
  decltype(&::H5Dclose) Dclose = nullptr;
  decltype(&::H5Dget_space) Dget_space = nullptr;
  decltype(&::H5Dwrite) Dwrite = nullptr;
  decltype(&::H5Dread) Dread = nullptr;
  // H5T_NATIVE_UINT8, H5T_NATIVE_UINT32, H5T_STD_U32LE after H5open().
  hid_t native_uint8 = -1;
  hid_t native_uint32 = -1;
  hid_t std_u32le = -1;
  // H5F_ACC_TRUNC / H5F_ACC_RDONLY without the H5check()/H5open() calls their macros make
  // (H5Fpublic.h: 0x0002u and 0x0000u, unchanged since HDF5 1.0).
  static constexpr unsigned k_acc_trunc = 0x0002u;
  static constexpr unsigned k_acc_rdonly = 0x0000u;
  std::string path;     // where libhdf5 was loaded from
  std::string version;  // "1.10.8", from H5get_libversion
};

// The loaded API (loaded on the first call, thread-safe), or nullptr when libhdf5 is missing or
// unusable; then hdf5_unavailable_reason() (hdf5_io.hpp) says why.
const Hdf5Api* hdf5_api();

}  // namespace gpubench::dataloader
