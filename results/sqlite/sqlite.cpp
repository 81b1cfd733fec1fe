#include "results/sqlite/sqlite.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <utility>

#include "util/error.hpp"

namespace gpubench::results {

namespace {

std::string quoted(const std::filesystem::path& path) {
  return "'" + path.string() + "'";
}

std::atomic<int (*)()> g_interrupt_counter{nullptr};

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

std::string uri_path(const std::string& path) {
  std::string out;
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c <= ' ') {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

void set_busy_interrupt_counter(int (*count)()) {
  g_interrupt_counter.store(count);
}

struct Database::BusyWait {
  int timeout_ms = 0;
  double started_s = 0;
  int signals_at_start = 0;
};

namespace {

// SQLite calls this while a lock is held elsewhere; `attempt` is 0 on the first call of a wait.
// Returns 0 to give up (SQLITE_BUSY), nonzero to retry.
int busy_wait(void* state, int attempt) {
  auto* w = static_cast<Database::BusyWait*>(state);
  int (*counter)() = g_interrupt_counter.load();
  const int signals = counter ? counter() : 0;
  if (attempt == 0) {
    w->started_s = now_s();
    w->signals_at_start = signals;
  }
  if (signals != w->signals_at_start) return 0;  // interrupted while waiting
  const double left_ms = w->timeout_ms - (now_s() - w->started_s) * 1000;
  if (left_ms <= 0) return 0;
  const double step_ms = std::min({left_ms, 1.0 + attempt, 25.0});
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(step_ms));
  return 1;
}

}  // namespace

// --- Database ------------------------------------------------------------------------------

Database::Database(sqlite3* db, std::filesystem::path path, Access access)
    : m_db(db), m_busy(std::make_unique<BusyWait>()), m_path(std::move(path)), m_access(access) {}

Database Database::open(const std::filesystem::path& path, Access access, int busy_timeout_ms,
                        bool immutable) {
  // No memory statistics (nothing reads them): with them every allocation SQLite makes takes a
  // process-wide mutex. Only possible before SQLite initialises; later calls change nothing.
  static const int no_memstatus = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)no_memstatus;
  int flags = SQLITE_OPEN_NOMUTEX;
  switch (access) {
    case Access::read_only:
      flags |= SQLITE_OPEN_READONLY;
      break;
    case Access::read_write:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case Access::read_write_create:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
  }
  sqlite3* raw = nullptr;
  std::string name = path.string();
  if (immutable && access == Access::read_only) {
    flags |= SQLITE_OPEN_URI;
    name = "file:" + uri_path(std::filesystem::absolute(path).string()) + "?immutable=1";
  } else if (name.rfind("file:", 0) != 0) {
    // URIs allowed for what this connection ATTACHes (a merge's read-only source, mode=ro);
    // a plain path means what it meant without the flag, a `file:` name keeps its old meaning.
    flags |= SQLITE_OPEN_URI;
  }
  const int rc = sqlite3_open_v2(name.c_str(), &raw, flags, nullptr);
  Database db(raw, path, access);  // owns raw even on failure (sqlite3_close it)
  if (rc != SQLITE_OK) {
    if (raw == nullptr) {
      throw infrastructure("cannot open database " + quoted(path), "SQLite is out of memory",
                           "free memory and retry");
    }
    db.fail(rc, "opening");
  }
  sqlite3_extended_result_codes(raw, 1);
  db.set_busy_timeout(busy_timeout_ms);
  return db;
}

Database::~Database() {
  if (m_db != nullptr) sqlite3_close_v2(m_db);
}

Database::Database(Database&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)),
      m_busy(std::move(other.m_busy)),
      m_path(std::move(other.m_path)),
      m_access(other.m_access) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    if (m_db != nullptr) sqlite3_close_v2(m_db);
    m_db = std::exchange(other.m_db, nullptr);
    m_busy = std::move(other.m_busy);
    m_path = std::move(other.m_path);
    m_access = other.m_access;
  }
  return *this;
}

void Database::exec(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  const int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &message);
  if (message != nullptr) sqlite3_free(message);
  if (rc != SQLITE_OK) fail(rc, "running SQL");
}

Statement Database::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(m_db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) fail(rc, "preparing a statement");
  return Statement(*this, stmt);
}

void Database::set_busy_timeout(int busy_timeout_ms) {
  m_busy->timeout_ms = busy_timeout_ms;
  sqlite3_busy_handler(m_db, &busy_wait, m_busy.get());
}

int64_t Database::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(m_db);
}

int64_t Database::changes() const {
  return sqlite3_changes(m_db);
}

bool Database::table_exists(std::string_view name) {
  Statement st = prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
  st.bind(1, name);
  return st.step();
}

std::string Database::last_error() const {
  return m_db != nullptr ? sqlite3_errmsg(m_db) : "no database";
}

void Database::fail(int rc, std::string_view action) const {
  const std::string db = quoted(m_path);
  const std::string message = last_error();
  switch (rc & 0xff) {  // primary result code
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      throw infrastructure("database " + db + " is locked",
                           "another gpubench process is writing to it",
                           "wait for it to finish or use another --db");
    case SQLITE_NOTADB:
      throw infrastructure("cannot use database " + db,
                           "not a gpubench database (file is not SQLite)",
                           "check the path given to --db or GPUBENCH_DB");
    case SQLITE_CORRUPT:
      throw infrastructure("database " + db + " is corrupt", "SQLite: " + message,
                           "restore it from a copy, or use another --db");
    case SQLITE_CANTOPEN:
      throw infrastructure("cannot open database " + db, "SQLite: " + message,
                           "check that the file and its directory exist and are accessible");
    case SQLITE_READONLY:
      throw infrastructure("cannot write database " + db, "SQLite: " + message,
                           "check the permissions of the file and its directory");
    case SQLITE_FULL:
      throw infrastructure("cannot write database " + db, "the disk is full",
                           "free disk space or use another --db");
    case SQLITE_IOERR:
      throw infrastructure("I/O error on database " + db, "SQLite: " + message,
                           "check the disk and the file system");
    case SQLITE_PERM:
    case SQLITE_AUTH:
      throw infrastructure("access to database " + db + " denied", "SQLite: " + message,
                           "check the permissions of the file and its directory");
    default:
      throw infrastructure(std::string(action) + " failed on database " + db,
                           "SQLite: " + message + " (code " + std::to_string(rc) + ")",
                           "report this as a gpubench bug with the command that failed");
  }
}

// --- Statement -----------------------------------------------------------------------------

Statement::~Statement() {
  if (m_stmt != nullptr) sqlite3_finalize(m_stmt);
}

Statement::Statement(Statement&& other) noexcept
    : m_db(other.m_db), m_stmt(std::exchange(other.m_stmt, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (m_stmt != nullptr) sqlite3_finalize(m_stmt);
    m_db = other.m_db;
    m_stmt = std::exchange(other.m_stmt, nullptr);
  }
  return *this;
}

Statement& Statement::bind(int index, int64_t value) {
  const int rc = sqlite3_bind_int64(m_stmt, index, value);
  if (rc != SQLITE_OK) m_db->fail(rc, "binding a value");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  const int rc = sqlite3_bind_double(m_stmt, index, value);
  if (rc != SQLITE_OK) m_db->fail(rc, "binding a value");
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  const int rc =
      sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) m_db->fail(rc, "binding a value");
  return *this;
}

Statement& Statement::bind_static(int index, std::string_view value) {
  const int rc =
      sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_STATIC, SQLITE_UTF8);
  if (rc != SQLITE_OK) m_db->fail(rc, "binding a value");
  return *this;
}

Statement& Statement::bind_null(int index) {
  const int rc = sqlite3_bind_null(m_stmt, index);
  if (rc != SQLITE_OK) m_db->fail(rc, "binding a value");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // The statement must be reset before the connection's error message is reliable to reuse.
  const int code = sqlite3_extended_errcode(m_db->handle());
  sqlite3_reset(m_stmt);
  m_db->fail(code != SQLITE_OK ? code : rc, "running a statement");
}

void Statement::run() {
  while (step()) {
  }
  sqlite3_reset(m_stmt);
}

void Statement::reset() {
  sqlite3_reset(m_stmt);
  sqlite3_clear_bindings(m_stmt);
}

bool Statement::is_null(int column) const {
  return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

int64_t Statement::column_int64(int column) const {
  return sqlite3_column_int64(m_stmt, column);
}

double Statement::column_double(int column) const {
  return sqlite3_column_double(m_stmt, column);
}

std::string Statement::column_text(int column) const {
  const auto* text = sqlite3_column_text(m_stmt, column);
  if (text == nullptr) return {};
  const int bytes = sqlite3_column_bytes(m_stmt, column);
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(bytes));
}

std::string_view Statement::column_view(int column) const {
  const auto* text = sqlite3_column_text(m_stmt, column);
  if (text == nullptr) return {};
  const int bytes = sqlite3_column_bytes(m_stmt, column);
  return std::string_view(reinterpret_cast<const char*>(text), static_cast<size_t>(bytes));
}

std::optional<int64_t> Statement::column_optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_int64(column);
}

std::optional<double> Statement::column_optional_double(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_double(column);
}

int Statement::column_count() const {
  return sqlite3_column_count(m_stmt);
}

std::string Statement::column_name(int column) const {
  const char* name = sqlite3_column_name(m_stmt, column);
  return name != nullptr ? name : "";
}

int Statement::column_type(int column) const {
  return sqlite3_column_type(m_stmt, column);
}

// --- Transaction ---------------------------------------------------------------------------

Transaction::Transaction(Database& db, TransactionKind kind) : m_db(&db) {
  m_db->exec(kind == TransactionKind::immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED");
  m_open = true;
}

Transaction::~Transaction() {
  if (m_open) {
    // Best effort: a failed ROLLBACK leaves SQLite to roll back when the connection closes.
    sqlite3_exec(m_db->handle(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void Transaction::commit() {
  m_db->exec("COMMIT");
  m_open = false;
}

}  // namespace gpubench::results
