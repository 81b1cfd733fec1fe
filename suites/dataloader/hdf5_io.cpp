#include "suites/dataloader/hdf5_io.hpp"

#include <hdf5.h>

#include <vector>

#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

[[noreturn]] void hdf5_fail(const std::filesystem::path& path, const std::string& call) {
  throw bad_input("HDF5 call " + call + " failed on '" + path.string() + "'",
                  "the file is missing, truncated or not an HDF5 shard of this dataset",
                  "delete the dataset directory so it is regenerated");
}

// libhdf5 prints its error stack to stderr by default; our errors already say what failed.
void quiet_hdf5() {
  static const bool done = [] {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    return true;
  }();
  (void)done;
}

// Closes an HDF5 id when it goes out of scope.
struct Id {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Id() {
    if (id >= 0) close(id);
  }
};

}  // namespace

void write_hdf5_shard(const std::filesystem::path& path, const DatasetSpec& spec,
                      std::uint64_t shard) {
  quiet_hdf5();
  const std::uint64_t n = spec.samples_in_shard(shard);
  const std::uint64_t first = shard * spec.samples_per_shard;
  Id file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
  if (file.id < 0) hdf5_fail(path, "H5Fcreate");
  hsize_t dims[2] = {n, spec.record_bytes};
  Id space{H5Screate_simple(2, dims, nullptr), H5Sclose};
  Id images{H5Dcreate2(file.id, "images", H5T_NATIVE_UINT8, space.id, H5P_DEFAULT, H5P_DEFAULT,
                       H5P_DEFAULT),
            H5Dclose};
  if (images.id < 0) hdf5_fail(path, "H5Dcreate2(images)");
  std::vector<std::uint8_t> pixels(spec.record_bytes);
  std::vector<std::uint32_t> labels(n);
  // Written one sample at a time through a hyperslab, so memory stays at one record.
  hsize_t row_dims[2] = {1, spec.record_bytes};
  Id mem{H5Screate_simple(2, row_dims, nullptr), H5Sclose};
  for (std::uint64_t i = 0; i < n; ++i) {
    fill_sample_pixels(spec.seed, first + i, pixels);
    labels[i] = sample_label(spec.seed, first + i);
    hsize_t start[2] = {i, 0};
    if (H5Sselect_hyperslab(space.id, H5S_SELECT_SET, start, nullptr, row_dims, nullptr) < 0 ||
        H5Dwrite(images.id, H5T_NATIVE_UINT8, mem.id, space.id, H5P_DEFAULT, pixels.data()) < 0) {
      hdf5_fail(path, "H5Dwrite(images)");
    }
  }
  hsize_t ldims[1] = {n};
  Id lspace{H5Screate_simple(1, ldims, nullptr), H5Sclose};
  Id lset{H5Dcreate2(file.id, "labels", H5T_STD_U32LE, lspace.id, H5P_DEFAULT, H5P_DEFAULT,
                     H5P_DEFAULT),
          H5Dclose};
  if (lset.id < 0 ||
      H5Dwrite(lset.id, H5T_NATIVE_UINT32, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels.data()) < 0) {
    hdf5_fail(path, "H5Dwrite(labels)");
  }
}

Hdf5Shard::Hdf5Shard(const std::filesystem::path& path) : m_path(path) {
  quiet_hdf5();
  m_file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (m_file < 0) hdf5_fail(path, "H5Fopen");
  m_images = H5Dopen2(m_file, "images", H5P_DEFAULT);
  m_labels = H5Dopen2(m_file, "labels", H5P_DEFAULT);
  if (m_images < 0 || m_labels < 0) {
    this->~Hdf5Shard();
    hdf5_fail(path, "H5Dopen2");
  }
  Id space{H5Dget_space(m_images), H5Sclose};
  hsize_t dims[2] = {0, 0};
  if (H5Sget_simple_extent_ndims(space.id) != 2 ||
      H5Sget_simple_extent_dims(space.id, dims, nullptr) < 0) {
    this->~Hdf5Shard();
    hdf5_fail(path, "H5Sget_simple_extent_dims(images)");
  }
  m_samples = dims[0];
  m_record_bytes = dims[1];
}

Hdf5Shard::~Hdf5Shard() {
  if (m_images >= 0) H5Dclose(m_images);
  if (m_labels >= 0) H5Dclose(m_labels);
  if (m_file >= 0) H5Fclose(m_file);
  m_images = m_labels = m_file = -1;
}

void Hdf5Shard::read(std::uint64_t first, std::span<std::uint32_t> labels,
                     std::span<std::uint8_t> pixels) {
  const hsize_t count = labels.size();
  if (first + count > m_samples || pixels.size() != count * m_record_bytes) {
    throw bad_input("HDF5 read out of range in '" + m_path.string() + "'");
  }
  Id space{H5Dget_space(m_images), H5Sclose};
  hsize_t start[2] = {first, 0};
  hsize_t dims[2] = {count, m_record_bytes};
  Id mem{H5Screate_simple(2, dims, nullptr), H5Sclose};
  if (H5Sselect_hyperslab(space.id, H5S_SELECT_SET, start, nullptr, dims, nullptr) < 0 ||
      H5Dread(m_images, H5T_NATIVE_UINT8, mem.id, space.id, H5P_DEFAULT, pixels.data()) < 0) {
    hdf5_fail(m_path, "H5Dread(images)");
  }
  Id lspace{H5Dget_space(m_labels), H5Sclose};
  hsize_t lstart[1] = {first};
  hsize_t ldims[1] = {count};
  Id lmem{H5Screate_simple(1, ldims, nullptr), H5Sclose};
  if (H5Sselect_hyperslab(lspace.id, H5S_SELECT_SET, lstart, nullptr, ldims, nullptr) < 0 ||
      H5Dread(m_labels, H5T_NATIVE_UINT32, lmem.id, lspace.id, H5P_DEFAULT, labels.data()) < 0) {
    hdf5_fail(m_path, "H5Dread(labels)");
  }
}

}  // namespace gpubench::dataloader
