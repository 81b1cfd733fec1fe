// The cache of generated datasets: the data directory (GPUBENCH_DATA_DIR), its checks (exists,
// writable, free space), the lock while a dataset is checked or generated, reuse of a dataset whose
// manifest matches, and checksums of every file. The samples and layouts are dataset.cpp's; writing
// a dataset is dataset_writer.cpp's (called here, never calling back).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "suites/dataloader/dataset.hpp"
#include "suites/dataloader/dataset_detail.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::dataloader {
namespace fs = std::filesystem;

namespace {

using detail::file_crc32c;
using detail::k_layout_version;

std::string mib_text(std::uint64_t bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

// The cached dataset when its manifest matches `spec` and every file has the recorded size.
bool load_cached(const fs::path& dir, const DatasetSpec& spec, Dataset& out) {
  std::error_code ec;
  if (!fs::exists(dir / "manifest.json", ec)) return false;
  try {
    auto j = nlohmann::json::parse(read_file(dir / "manifest.json"));
    if (j.at("layout_version").get<int>() != k_layout_version ||
        j.at("format").get<std::string>() != to_string(spec.format) ||
        j.at("seed").get<std::uint64_t>() != spec.seed ||
        j.at("record_bytes").get<std::size_t>() != spec.record_bytes ||
        j.at("samples").get<std::uint64_t>() != spec.samples ||
        j.at("samples_per_shard").get<std::uint64_t>() != spec.samples_per_shard ||
        // JPEG datasets: absent (0) in the manifests of the others.
        j.value("image_width", std::uint32_t{0}) != spec.image_width ||
        j.value("image_height", std::uint32_t{0}) != spec.image_height ||
        (spec.is_jpeg() && j.value("jpeg_quality", 0) != spec.jpeg_quality)) {
      return false;
    }
    out = Dataset{spec, dir, {}};
    for (const auto& f : j.at("files")) {
      ManifestFile m{f.at("name").get<std::string>(), f.at("bytes").get<std::uint64_t>(),
                     f.at("crc32c").get<std::uint32_t>()};
      if (fs::file_size(dir / m.name, ec) != m.bytes || ec) return false;
      out.files.push_back(m);
    }
    return true;
  } catch (const std::exception&) {
    return false;  // unreadable manifest: regenerate
  }
}

}  // namespace

fs::path resolve_data_dir() {
  const char* env = std::getenv("GPUBENCH_DATA_DIR");
  if (env && *env) {
    fs::path dir(env);
    check_data_dir(dir);
    return dir;
  }
  // One rule with `gpubench doctor` (util/fs.hpp), so doctor checks the disk used here.
  const fs::path dir = gpubench::default_data_dir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    throw bad_input("cannot create the data directory '" + dir.string() + "'", ec.message(),
                    "set GPUBENCH_DATA_DIR to a writable directory");
  }
  check_data_dir(dir);
  return dir;
}

void check_data_dir(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    throw bad_input("data directory '" + dir.string() + "' does not exist", {},
                    "create it or set GPUBENCH_DATA_DIR to an existing directory");
  }
  if (!fs::is_directory(dir, ec)) {
    throw bad_input("data directory '" + dir.string() + "' is not a directory", {},
                    "set GPUBENCH_DATA_DIR to a directory");
  }
  // access(W_OK) is not enough (read-only mounts, root): create and remove a probe file.
  // Unique per call, not only per process: threads of one process check concurrently.
  static std::atomic<unsigned> probes{0};
  const fs::path probe = dir / (".gpubench-probe-" + std::to_string(::getpid()) + "-" +
                                std::to_string(probes.fetch_add(1)));
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw bad_input("data directory '" + dir.string() + "' is not writable", errno_text(errno),
                    "fix its permissions or set GPUBENCH_DATA_DIR to a writable directory");
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

void check_free_space(const fs::path& dir, std::uint64_t needed_bytes) {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0) {
    throw bad_input("cannot query free space of '" + dir.string() + "'", errno_text(errno));
  }
  check_free_space(dir, needed_bytes, std::uint64_t{st.f_bavail} * st.f_frsize);
}

void check_free_space(const fs::path& dir, std::uint64_t needed_bytes, std::uint64_t free_bytes) {
  if (needed_bytes > free_bytes) {
    throw bad_input("dataset needs " + mib_text(needed_bytes) + " but '" + dir.string() + "' has " +
                        mib_text(free_bytes) + " free",
                    "refusing to start a generation that cannot finish",
                    "free disk space, use a smaller profile, or set GPUBENCH_DATA_DIR elsewhere");
  }
}

namespace {

// An exclusive flock on `<data dir>/<dataset>.lock` while a dataset is checked and generated,
// so concurrent suites (two runs, two ranks on one node) never generate the same dataset at
// once: the second waits, then finds it cached.
class DatasetLock {
 public:
  explicit DatasetLock(const fs::path& path)
      : m_fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (m_fd < 0) {
      throw bad_input("cannot create the dataset lock '" + path.string() + "'", errno_text(errno),
                      "fix the data directory's permissions or set "
                      "GPUBENCH_DATA_DIR to a writable directory");
    }
    while (::flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~DatasetLock() { ::close(m_fd); }  // releases the lock
  DatasetLock(const DatasetLock&) = delete;
  DatasetLock& operator=(const DatasetLock&) = delete;

 private:
  int m_fd;
};

}  // namespace

Dataset ensure_dataset(const fs::path& data_dir, const DatasetSpec& spec, bool* regenerated) {
  const fs::path dir = data_dir / spec.directory_name();
  Dataset d;
  if (load_cached(dir, spec, d)) {
    if (regenerated) *regenerated = false;
    return d;
  }
  check_data_dir(data_dir);
  check_free_space(data_dir, spec.estimated_disk_bytes());
  // Checked again under the lock: another process may have generated it while we waited.
  const DatasetLock lock(data_dir / (spec.directory_name() + ".lock"));
  if (load_cached(dir, spec, d)) {
    if (regenerated) *regenerated = false;
    return d;
  }
  const fs::path tmp = data_dir / (spec.directory_name() + ".tmp-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(tmp, ec);
  try {
    d = generate_dataset(tmp, spec);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
  fs::remove_all(dir, ec);  // a stale or mismatched copy
  fs::rename(tmp, dir, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    // Another process may have generated it at the same time.
    if (load_cached(dir, spec, d)) return d;
    throw bad_input("cannot move the generated dataset into '" + dir.string() + "'", ec.message());
  }
  d.dir = dir;
  if (regenerated) *regenerated = true;
  return d;
}

void verify_dataset_files(const Dataset& dataset) {
  for (const auto& f : dataset.files) {
    const std::uint32_t crc = file_crc32c(dataset.file(f.name));
    if (crc != f.crc32c) {
      throw bad_input("file '" + dataset.file(f.name).string() + "' fails its manifest checksum",
                      "the file changed after generation", "delete the dataset directory");
    }
  }
}

}  // namespace gpubench::dataloader
