// Store: opening a database (checks, creation, migration) and guarding its file during a run.
// Runs are written in store_runs.cpp, telemetry in store_telemetry.cpp, reads in store_read.cpp.
#include "results/store.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <fstream>

#include "results/liveness.hpp"
#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store_detail.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {

namespace fs = std::filesystem;
using detail::quoted;

std::string detail::quoted(const fs::path& path) {
  return "'" + path.string() + "'";
}

namespace {

// Refuses, before SQLite touches the file, what can be refused by looking at it: a missing
// directory or file, a directory, no permission, a file that is not SQLite.
void check_file(const fs::path& path, OpenMode mode) {
  const std::string db = quoted(path);
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) {
    const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec)) {
      throw infrastructure("cannot open database " + db,
                           "directory '" + parent.string() + "' does not exist",
                           "create the directory or choose another --db path");
    }
    if (mode != OpenMode::read_write_create) {
      throw infrastructure("cannot open database " + db, "the file does not exist",
                           "check the path given to --db or GPUBENCH_DB, or record a run first "
                           "with `gpubench run`");
    }
    return;
  }
  if (fs::is_directory(st)) {
    throw infrastructure("cannot open database " + db, "it is a directory",
                         "give the path of a database file with --db");
  }
  if (::access(path.c_str(), R_OK) != 0) {
    throw infrastructure("cannot open database " + db, "cannot read it: " + errno_text(errno),
                         "check the file's permissions");
  }
  if (mode != OpenMode::read_only && ::access(path.c_str(), W_OK) != 0) {
    throw infrastructure("cannot write database " + db, "cannot write it: " + errno_text(errno),
                         "check the file's permissions");
  }
  std::ifstream in(path, std::ios::binary);
  std::array<char, 16> header{};
  in.read(header.data(), header.size());
  const auto got = in.gcount();
  static constexpr char k_magic[16] = "SQLite format 3";  // 15 chars + NUL, as in the file
  if (got == 0) return;  // an empty file is an empty SQLite database
  if (got < 16 || !std::equal(header.begin(), header.end(), k_magic)) {
    throw infrastructure("cannot use database " + db,
                         "not a gpubench database (file is not SQLite)",
                         "check the path given to --db or GPUBENCH_DB");
  }
}

// True when `path`-wal holds more than its 32-byte header: changes not yet in the file itself.
bool wal_has_frames(const fs::path& path) {
  std::error_code ec;
  const auto bytes = fs::file_size(path.string() + "-wal", ec);
  return !ec && bytes > 32;
}

// A copy of the database and its WAL in a temporary directory that lives until the process
// ends (read-only commands are short-lived), so SQLite can build the WAL index there.
fs::path snapshot_with_wal(const fs::path& path) {
  static std::vector<std::unique_ptr<TempDir>> snapshots;  // removed at exit
  snapshots.push_back(std::make_unique<TempDir>("gpubench-snapshot", TempDirLock::held));
  const fs::path copy = snapshots.back()->path() / path.filename();
  std::error_code ec;
  fs::copy_file(path, copy, ec);
  if (!ec) fs::copy_file(path.string() + "-wal", copy.string() + "-wal", ec);
  if (ec) {
    throw infrastructure("cannot read database " + quoted(path),
                         "its -wal file holds changes that a read-only open here cannot see, and "
                         "copying the two failed: " +
                             ec.message(),
                         "free space in the temporary directory, or open it where it is writable");
  }
  return copy;
}

// Tables other than SQLite's own.
int64_t count_user_tables(Database& db) {
  Statement st = db.prepare(
      "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  st.step();
  return st.column_int64(0);
}

}  // namespace

Store::Store(std::unique_ptr<Database> db) : m_db(std::move(db)) {}
namespace {
std::optional<std::pair<uint64_t, uint64_t>> file_id(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::pair{static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}
}  // namespace

Store::~Store() {
  if (!m_db || !m_file_gone) return;
  // The database was deleted or replaced while this Store wrote it (check_database_file). Its
  // runs' lock files name runs the file at the path does not hold: removed. The connection is
  // closed first (SQLite leaves its WAL: the file it belongs to has moved), then this
  // connection's -wal and -shm are removed, only while they are the very files it used: the
  // WAL holds pages of the old file, and applied to the file now at the path they corrupt it.
  // (What another process opened in between, it opened with them; nothing can undo that.)
  for (auto& [id, lock] : m_run_locks) lock->finished();
  m_run_locks.clear();
  const std::string path = m_db->path().string();
  m_db.reset();
  for (const auto& [suffix, id] : {std::pair{"-wal", m_wal_id}, std::pair{"-shm", m_shm_id}}) {
    const std::string side = path + suffix;
    if (id && file_id(side) == id) ::unlink(side.c_str());
  }
}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;

int Store::schema_version() {
  return schema::k_version;
}

Database& Store::database() {
  return *m_db;
}

Store Store::open(const fs::path& path, OpenMode mode, int busy_timeout_ms) {
  check_file(path, mode);
  const std::string db_name = quoted(path);
  const Access access = mode == OpenMode::read_only    ? Access::read_only
                        : mode == OpenMode::read_write ? Access::read_write
                                                       : Access::read_write_create;
  // Read-only media or a directory this user cannot write: SQLite could neither take its locks
  // nor create the WAL index, so the file is opened immutable (nobody can be writing it there).
  bool immutable = false;
  fs::path open_path = path;
  if (mode == OpenMode::read_only) {
    const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
    immutable = ::access(dir.c_str(), W_OK) != 0 || ::access(path.c_str(), W_OK) != 0;
    // Immutable mode ignores a WAL: the runs only in it (a copied or mounted snapshot taken
    // while a run wrote) would vanish and `latest` point at an older run. Such a file is read
    // through a copy of it and its WAL in a directory of our own, WAL included.
    if (immutable && wal_has_frames(path)) {
      open_path = snapshot_with_wal(path);
      immutable = false;
    }
  }
  auto db =
      std::make_unique<Database>(Database::open(open_path, access, busy_timeout_ms, immutable));

  // Everything up to the version check only reads, so a refused file is left byte-identical.
  const schema::Versions v = schema::read_versions(*db);
  if (v.schema_version == 0 && count_user_tables(*db) > 0) {
    throw infrastructure(
        "cannot use database " + db_name,
        "not a gpubench database (an SQLite file with other tables and no gpubench "
        "'meta' table)",
        "use another --db path; gpubench leaves this file alone");
  }
  if (v.compatible_version > schema::k_version) {
    throw infrastructure(
        "cannot use database " + db_name,
        "it was written by a newer gpubench (schema version " + std::to_string(v.schema_version) +
            ", readable from version " + std::to_string(v.compatible_version) +
            " on; this gpubench reads version " + std::to_string(schema::k_version) + ")",
        "upgrade gpubench, or use another --db");
  }
  db->exec("PRAGMA foreign_keys = ON");
  if (mode == OpenMode::read_only) {
    if (v.schema_version == 0) {
      throw infrastructure("cannot read database " + db_name, "it holds no gpubench data yet",
                           "record a run first with `gpubench run`, or check the --db path");
    }
    if (v.schema_version < schema::k_version) {
      throw infrastructure("cannot read database " + db_name,
                           "it has schema version " + std::to_string(v.schema_version) +
                               " and this gpubench reads version " +
                               std::to_string(schema::k_version),
                           "upgrade it once with a writing command (`gpubench run` or "
                           "`gpubench import`)");
    }
    db->exec("PRAGMA query_only = ON");
    return Store(std::move(db));
  }
  // WAL: readers do not block the writer and a crash mid-write leaves the file consistent.
  db->exec("PRAGMA journal_mode = WAL");
  // Up to 64 MiB of page cache (allocated as used): a large ingest then writes each page once
  // instead of spilling and re-reading it.
  db->exec("PRAGMA cache_size = -65536");
  if (v.schema_version < schema::k_version) schema::migrate(*db);
  try {
    detail::mark_abandoned_runs(*db);
  } catch (const Error& e) {
    // Best effort: a database busy past the timeout is marked by the next writer instead.
    if (e.code() != ExitCode::infrastructure) throw;
  }
  Store store(std::move(db));
  store.m_file_id = file_id(path.string());
  // WAL mode and the writes above have opened both (SQLite keeps them while connected).
  store.m_wal_id = file_id(path.string() + "-wal");
  store.m_shm_id = file_id(path.string() + "-shm");
  return store;
}

void Store::check_database_file(int64_t run_id) {
  if (!m_file_id) return;
  const fs::path& path = m_db->path();
  const std::string db = quoted(path);
  const std::string run = "run " + std::to_string(run_id);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err != ENOENT) {
      throw infrastructure("cannot check database " + db + " while " + run + " writes it",
                           errno_text(err), "check the disk and the file system, then run again");
    }
    m_file_gone = true;
    throw infrastructure("database " + db + " was deleted while " + run + " was writing it",
                         "what the run stored went to the deleted file and is lost",
                         "keep the database in place while a run writes it (copy it with "
                         "`gpubench import`), then run again");
  }
  if (static_cast<uint64_t>(st.st_dev) != m_file_id->first ||
      static_cast<uint64_t>(st.st_ino) != m_file_id->second) {
    m_file_gone = true;
    throw infrastructure(
        "database " + db + " was replaced by another file while " + run + " was writing it",
        "what the run stored went to the file that was there before; the file "
        "there now was not written",
        "keep the database in place while a run writes it (copy it with "
        "`gpubench import`), then run again");
  }
  // A run this Store began (not an id a caller made up: that stays bad input) must be there.
  if (!m_run_locks.count(run_id)) return;
  Statement row = m_db->prepare("SELECT 1 FROM runs WHERE id = ?1");
  row.bind(1, run_id);
  if (!row.step()) {
    throw infrastructure(run + " is no longer in database " + db,
                         "its row was deleted while the run was going",
                         "keep the database unchanged while a run writes it, then run again");
  }
}

}  // namespace gpubench::results
