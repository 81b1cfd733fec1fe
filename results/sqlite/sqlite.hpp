// Three small move-only RAII types over SQLite (after Chromium's sql/): Database, Statement with
// typed binds, Transaction that rolls back unless committed. Every SQLite failure becomes a
// gpubench::Error naming the database file, SQLite's own message and what to do.
//
// Not thread-safe: a Database and its Statements belong to one thread.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace gpubench::results {

class Statement;

// Lock waits are interruptible: while a statement waits for another process's lock, the busy
// handler polls `count` (the number of SIGINT/SIGTERM/SIGHUP received, kept by the harness) and
// gives up, as if the busy timeout had passed, when it grows during that wait. A later wait
// starts from the new count, so bookkeeping after an interrupt can still wait (a second signal
// stops that too). Null: waits are not interruptible. Process-wide; set by the harness.
void set_busy_interrupt_counter(int (*count)());

// "%" -> "%25" etc.: an (absolute) path as the path part of a `file:` URI.
std::string uri_path(const std::string& path);

enum class Access {
  read_only,          // SQLITE_OPEN_READONLY: never writes the file
  read_write,         // the file must exist
  read_write_create,  // created when missing
};

class Database {
 public:
  // Opens `path`. `busy_timeout_ms`: how long a statement waits for another process's lock
  // before failing with the "database is locked" error.
  // Access::read_only with `immutable`: SQLite's immutable=1 (no locks, no -shm/-wal files), for
  // files on read-only media or in a directory this user cannot write.
  static Database open(const std::filesystem::path& path, Access access, int busy_timeout_ms,
                       bool immutable = false);
  ~Database();
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs one or more ';'-separated statements that return no rows.
  void exec(std::string_view sql);
  Statement prepare(std::string_view sql);
  void set_busy_timeout(int busy_timeout_ms);

  int64_t last_insert_rowid() const;
  int64_t changes() const;  // rows changed by the last INSERT/UPDATE/DELETE
  bool table_exists(std::string_view name);
  std::string last_error() const;  // SQLite's message for the last failed call
  const std::filesystem::path& path() const noexcept { return m_path; }
  Access access() const noexcept { return m_access; }
  sqlite3* handle() noexcept { return m_db; }

  // Throws the gpubench::Error for SQLite result code `rc` while doing `action`
  // ("preparing a statement"). BUSY/LOCKED become the "database is locked" error.
  [[noreturn]] void fail(int rc, std::string_view action) const;

  struct BusyWait;  // the busy handler's state; on the heap so a moved Database keeps it

 private:
  Database(sqlite3* db, std::filesystem::path path, Access access);
  sqlite3* m_db = nullptr;
  std::unique_ptr<BusyWait> m_busy;
  std::filesystem::path m_path;
  Access m_access = Access::read_only;
};

// A prepared statement. Bind indexes start at 1 (SQLite's convention), column indexes at 0.
class Statement {
 public:
  Statement(Database& db, sqlite3_stmt* stmt) noexcept : m_db(&db), m_stmt(stmt) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, const std::string& value) {
    return bind(index, std::string_view(value));
  }
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind_null(int index);
  // Text SQLite does not copy: it must stay unchanged until the statement is next stepped to its
  // end, reset or bound again (hot loops that keep the text alive meanwhile).
  Statement& bind_static(int index, std::string_view value);
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  // One step: true when a row is available, false when the statement is done.
  bool step();
  // Steps a statement that returns no rows (INSERT/UPDATE/DDL), then resets it for reuse.
  // Bindings are kept (bind every parameter again, or call reset()).
  void run();
  // Ready for another execution; bindings are cleared.
  void reset();

  bool is_null(int column) const;
  int64_t column_int64(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;  // NULL -> ""
  // The text without a copy: valid until the next step(), reset() or destruction (hot loops).
  std::string_view column_view(int column) const;  // NULL -> ""
  std::optional<int64_t> column_optional_int64(int column) const;
  std::optional<double> column_optional_double(int column) const;
  // Result columns of the statement and their names (for copying rows of any table).
  int column_count() const;
  std::string column_name(int column) const;
  // The value's storage class: SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or
  // SQLITE_NULL (sqlite3.h's numbers).
  int column_type(int column) const;

 private:
  Database* m_db;
  sqlite3_stmt* m_stmt;
};

enum class TransactionKind {
  deferred,   // reads: takes the lock on first access
  immediate,  // writes: takes the write lock at BEGIN, so lock waits happen up front
};

// BEGIN in the constructor; ROLLBACK in the destructor unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Database& db, TransactionKind kind = TransactionKind::immediate);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database* m_db;
  bool m_open = false;
};

}  // namespace gpubench::results
