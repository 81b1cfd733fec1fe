// Doctor checks stored with a run (table doctor_checks, created in schema_v2.cpp's v2_doctor).
#include <utility>

#include "results/doctor_store.hpp"
#include "results/sqlite/sqlite.hpp"
#include "results/store.hpp"
#include "util/error.hpp"

namespace gpubench::results {

const char* to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::pass:
      return "pass";
    case CheckStatus::warn:
      return "warn";
    case CheckStatus::fail:
      return "fail";
    case CheckStatus::unknown:
      break;
  }
  return "unknown";
}

std::optional<CheckStatus> check_status_from_string(const std::string& text) {
  for (CheckStatus s :
       {CheckStatus::pass, CheckStatus::warn, CheckStatus::fail, CheckStatus::unknown}) {
    if (text == to_string(s)) return s;
  }
  return std::nullopt;
}

DoctorCounts count_checks(const std::vector<DoctorCheck>& checks) {
  DoctorCounts c;
  for (const DoctorCheck& check : checks) {
    switch (check.status) {
      case CheckStatus::pass:
        ++c.pass;
        break;
      case CheckStatus::warn:
        ++c.warn;
        break;
      case CheckStatus::fail:
        ++c.fail;
        break;
      case CheckStatus::unknown:
        ++c.unknown;
        break;
    }
  }
  return c;
}

std::string counts_text(const DoctorCounts& c) {
  return std::to_string(c.pass) + " pass, " + std::to_string(c.warn) + " warn, " +
         std::to_string(c.fail) + " fail, " + std::to_string(c.unknown) + " unknown";
}

void add_doctor_checks(Store& store, int64_t run_id, const std::vector<DoctorCheck>& checks) {
  Database& db = store.database();
  Transaction tx(db);
  {
    Statement q = db.prepare("SELECT 1 FROM runs WHERE id = ?");
    q.bind(1, run_id);
    if (!q.step()) {
      throw bad_input("no run " + std::to_string(run_id) + " to store doctor checks for", "",
                      "store the run first");
    }
  }
  Statement ins = db.prepare(
      "INSERT INTO doctor_checks (run_id, position, name, area, status, value, expected, fix) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
  int position = 0;
  for (const DoctorCheck& c : checks) {
    ins.bind(1, run_id)
        .bind(2, position++)
        .bind(3, c.name)
        .bind(4, c.area)
        .bind(5, to_string(c.status))
        .bind(6, c.value)
        .bind(7, c.expected)
        .bind(8, c.fix);
    ins.step();
    ins.reset();
  }
  tx.commit();
}

std::vector<DoctorCheck> get_doctor_checks(Store& store, int64_t run_id) {
  Database& db = store.database();
  std::vector<DoctorCheck> out;
  if (!db.table_exists("doctor_checks")) return out;
  Statement q = db.prepare(
      "SELECT name, area, status, value, expected, fix FROM doctor_checks WHERE run_id = ? "
      "ORDER BY position");
  q.bind(1, run_id);
  while (q.step()) {
    DoctorCheck c;
    c.name = q.column_text(0);
    c.area = q.column_text(1);
    c.status = check_status_from_string(q.column_text(2)).value_or(CheckStatus::unknown);
    c.value = q.column_text(3);
    c.expected = q.column_text(4);
    c.fix = q.column_text(5);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace gpubench::results
