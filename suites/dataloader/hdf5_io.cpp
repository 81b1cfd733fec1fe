#include "suites/dataloader/hdf5_io.hpp"

#include <vector>

#include "suites/dataloader/hdf5_api.hpp"
#include "util/error.hpp"

namespace gpubench::dataloader {
namespace {

[[noreturn]] void hdf5_fail(const std::filesystem::path& path, const std::string& call) {
  throw bad_input("HDF5 call " + call + " failed on '" + path.string() + "'",
                  "the file is missing, truncated or not an HDF5 shard of this dataset",
                  "delete the dataset directory so it is regenerated");
}

// The loaded libhdf5 (hdf5_api.hpp; its error printing is already off). Callers skip HDF5 cases
// when it is missing, so reaching here without it is an infrastructure failure with the reason.
const Hdf5Api& api() {
  if (const Hdf5Api* a = hdf5_api()) return *a;
  throw infrastructure(
      "HDF5 shards need libhdf5", hdf5_unavailable_reason(),
      "install the serial libhdf5 (Debian: libhdf5-103-1) or skip the hdf5 format");
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
  const Hdf5Api& h5 = api();
  const std::uint64_t n = spec.samples_in_shard(shard);
  const std::uint64_t first = shard * spec.samples_per_shard;
  Id file{h5.Fcreate(path.c_str(), Hdf5Api::k_acc_trunc, H5P_DEFAULT, H5P_DEFAULT), h5.Fclose};
  if (file.id < 0) hdf5_fail(path, "H5Fcreate");
  hsize_t dims[2] = {n, spec.record_bytes};
  Id space{h5.Screate_simple(2, dims, nullptr), h5.Sclose};
  Id images{h5.Dcreate2(file.id, "images", h5.native_uint8, space.id, H5P_DEFAULT, H5P_DEFAULT,
                        H5P_DEFAULT),
            h5.Dclose};
  if (images.id < 0) hdf5_fail(path, "H5Dcreate2(images)");
  std::vector<std::uint8_t> pixels(spec.record_bytes);
  std::vector<std::uint32_t> labels(n);
  // Written one sample at a time through a hyperslab, so memory stays at one record.
  hsize_t row_dims[2] = {1, spec.record_bytes};
  Id mem{h5.Screate_simple(2, row_dims, nullptr), h5.Sclose};
  for (std::uint64_t i = 0; i < n; ++i) {
    fill_sample_pixels(spec.seed, first + i, pixels);
    labels[i] = sample_label(spec.seed, first + i);
    hsize_t start[2] = {i, 0};
    if (h5.Sselect_hyperslab(space.id, H5S_SELECT_SET, start, nullptr, row_dims, nullptr) < 0 ||
        h5.Dwrite(images.id, h5.native_uint8, mem.id, space.id, H5P_DEFAULT, pixels.data()) < 0) {
      hdf5_fail(path, "H5Dwrite(images)");
    }
  }
  hsize_t ldims[1] = {n};
  Id lspace{h5.Screate_simple(1, ldims, nullptr), h5.Sclose};
  Id lset{h5.Dcreate2(file.id, "labels", h5.std_u32le, lspace.id, H5P_DEFAULT, H5P_DEFAULT,
                      H5P_DEFAULT),
          h5.Dclose};
  if (lset.id < 0 ||
      h5.Dwrite(lset.id, h5.native_uint32, H5S_ALL, H5S_ALL, H5P_DEFAULT, labels.data()) < 0) {
    hdf5_fail(path, "H5Dwrite(labels)");
  }
}

Hdf5Shard::Hdf5Shard(const std::filesystem::path& path) : m_path(path) {
  const Hdf5Api& h5 = api();
  m_file = h5.Fopen(path.c_str(), Hdf5Api::k_acc_rdonly, H5P_DEFAULT);
  if (m_file < 0) hdf5_fail(path, "H5Fopen");
  m_images = h5.Dopen2(m_file, "images", H5P_DEFAULT);
  m_labels = h5.Dopen2(m_file, "labels", H5P_DEFAULT);
  if (m_images < 0 || m_labels < 0) {
    this->~Hdf5Shard();
    hdf5_fail(path, "H5Dopen2");
  }
  Id space{h5.Dget_space(m_images), h5.Sclose};
  hsize_t dims[2] = {0, 0};
  if (h5.Sget_simple_extent_ndims(space.id) != 2 ||
      h5.Sget_simple_extent_dims(space.id, dims, nullptr) < 0) {
    this->~Hdf5Shard();
    hdf5_fail(path, "H5Sget_simple_extent_dims(images)");
  }
  m_samples = dims[0];
  m_record_bytes = dims[1];
}

Hdf5Shard::~Hdf5Shard() {
  // Ids exist only if the library was loaded (the constructor threw otherwise).
  const Hdf5Api* h5 = hdf5_api();
  if (h5 != nullptr) {
    if (m_images >= 0) h5->Dclose(m_images);
    if (m_labels >= 0) h5->Dclose(m_labels);
    if (m_file >= 0) h5->Fclose(m_file);
  }
  m_images = m_labels = m_file = -1;
}

void Hdf5Shard::read(std::uint64_t first, std::span<std::uint32_t> labels,
                     std::span<std::uint8_t> pixels) {
  const Hdf5Api& h5 = api();
  const hsize_t count = labels.size();
  if (first + count > m_samples || pixels.size() != count * m_record_bytes) {
    throw bad_input("HDF5 read out of range in '" + m_path.string() + "'");
  }
  Id space{h5.Dget_space(m_images), h5.Sclose};
  hsize_t start[2] = {first, 0};
  hsize_t dims[2] = {count, m_record_bytes};
  Id mem{h5.Screate_simple(2, dims, nullptr), h5.Sclose};
  if (h5.Sselect_hyperslab(space.id, H5S_SELECT_SET, start, nullptr, dims, nullptr) < 0 ||
      h5.Dread(m_images, h5.native_uint8, mem.id, space.id, H5P_DEFAULT, pixels.data()) < 0) {
    hdf5_fail(m_path, "H5Dread(images)");
  }
  Id lspace{h5.Dget_space(m_labels), h5.Sclose};
  hsize_t lstart[1] = {first};
  hsize_t ldims[1] = {count};
  Id lmem{h5.Screate_simple(1, ldims, nullptr), h5.Sclose};
  if (h5.Sselect_hyperslab(lspace.id, H5S_SELECT_SET, lstart, nullptr, ldims, nullptr) < 0 ||
      h5.Dread(m_labels, h5.native_uint32, lmem.id, lspace.id, H5P_DEFAULT, labels.data()) < 0) {
    hdf5_fail(m_path, "H5Dread(labels)");
  }
}

}  // namespace gpubench::dataloader
