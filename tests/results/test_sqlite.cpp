#include <gtest/gtest.h>

#include "results/sqlite/sqlite.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace gpubench::results {
namespace {

class SqliteTest : public ::testing::Test {
 protected:
  TempDir m_dir{"gpubench-test-sqlite"};
  std::filesystem::path db_path() const { return m_dir.path() / "t.db"; }
};

TEST_F(SqliteTest, TypedBindsAndColumns) {
  Database db = Database::open(db_path(), Access::read_write_create, 1000);
  db.exec("CREATE TABLE t(i INTEGER, d REAL, s TEXT, n INTEGER)");
  Statement ins = db.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)");
  ins.bind(1, int64_t{1} << 40).bind(2, 2.5).bind(3, std::string("h\xc3\xa9llo")).bind_null(4);
  ins.run();
  // The same statement, reused with optionals.
  ins.bind(1, std::optional<int64_t>{}).bind(2, std::optional<double>(-1.0));
  ins.bind(3, "x").bind(4, std::optional<int>(7)).run();
  EXPECT_EQ(db.changes(), 1);
  EXPECT_EQ(db.last_insert_rowid(), 2);

  Statement sel = db.prepare("SELECT i, d, s, n FROM t ORDER BY rowid");
  ASSERT_TRUE(sel.step());
  EXPECT_EQ(sel.column_int64(0), int64_t{1} << 40);
  EXPECT_DOUBLE_EQ(sel.column_double(1), 2.5);
  EXPECT_EQ(sel.column_text(2), "h\xc3\xa9llo");
  EXPECT_TRUE(sel.is_null(3));
  EXPECT_FALSE(sel.column_optional_int64(3).has_value());
  ASSERT_TRUE(sel.step());
  EXPECT_FALSE(sel.column_optional_int64(0).has_value());
  EXPECT_EQ(sel.column_optional_double(1), -1.0);
  EXPECT_EQ(sel.column_optional_int64(3), 7);
  EXPECT_FALSE(sel.step());
  sel.reset();
  EXPECT_TRUE(sel.step());  // reset makes it runnable again
}

TEST_F(SqliteTest, TransactionRollsBackUnlessCommitted) {
  Database db = Database::open(db_path(), Access::read_write_create, 1000);
  db.exec("CREATE TABLE t(x INTEGER)");
  {
    Transaction tx(db);
    db.exec("INSERT INTO t VALUES (1)");
  }  // no commit
  {
    Transaction tx(db);
    db.exec("INSERT INTO t VALUES (2)");
    tx.commit();
  }
  Statement st = db.prepare("SELECT group_concat(x) FROM t");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.column_text(0), "2");
}

TEST_F(SqliteTest, ErrorsNameTheFileAndSqliteMessage) {
  Database db = Database::open(db_path(), Access::read_write_create, 1000);
  try {
    db.prepare("SELEKT 1");
    FAIL() << "bad SQL was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::infrastructure);
    EXPECT_NE(e.what_failed().find(db_path().string()), std::string::npos) << e.what();
    EXPECT_NE(e.why().find("syntax error"), std::string::npos) << e.why();
    EXPECT_FALSE(e.fix().empty());
  }
  db.exec("CREATE TABLE u(x INTEGER UNIQUE)");
  db.exec("INSERT INTO u VALUES (1)");
  Statement dup = db.prepare("INSERT INTO u VALUES (1)");
  try {
    dup.run();
    FAIL() << "a UNIQUE violation was accepted";
  } catch (const Error& e) {
    EXPECT_NE(e.why().find("UNIQUE"), std::string::npos) << e.why();
  }
}

TEST_F(SqliteTest, LockedDatabaseFailsWithTheLockMessageAfterTheTimeout) {
  Database holder = Database::open(db_path(), Access::read_write_create, 1000);
  holder.exec("PRAGMA journal_mode = WAL; CREATE TABLE t(x INTEGER)");
  Transaction held(holder);
  holder.exec("INSERT INTO t VALUES (1)");

  Database other = Database::open(db_path(), Access::read_write, 50);
  try {
    Transaction tx(other);
    FAIL() << "a second writer got the lock";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::infrastructure);
    EXPECT_EQ(e.what_failed(), "database '" + db_path().string() + "' is locked");
    EXPECT_EQ(e.why(), "another gpubench process is writing to it");
    EXPECT_EQ(e.fix(), "wait for it to finish or use another --db");
  }
  held.commit();
  Transaction tx(other);  // free again
  tx.commit();
}

TEST_F(SqliteTest, MissingFileReadOnlyIsAnError) {
  EXPECT_THROW(Database::open(m_dir.path() / "absent.db", Access::read_only, 100), Error);
  EXPECT_FALSE(std::filesystem::exists(m_dir.path() / "absent.db"));
}

}  // namespace
}  // namespace gpubench::results
