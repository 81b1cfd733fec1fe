// Internal to results/exchange/: the checks an exported run passes before import_run_json
// stores it (exchange_checks.cpp). A run imported from an export must be one gpubench could have
// stored itself: the limits the command line and ingest keep hold for it too.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace gpubench::results::exchange_detail {

// Throws Error(bad_input) "cannot import '<source>' (<why>; ...)".
[[noreturn]] void bad_export(const std::string& source, const std::string& why);

// Throws bad_export when `s` is longer than `limit` bytes, naming `where` and the length.
void check_text_limit(const std::string& source, const std::string& where, const std::string& s,
                      std::size_t limit);

// Throws bad_export when `uuid` is not a UUID.
void check_uuid(const std::string& source, const std::string& where, const std::string& uuid);

// A value of an exported row (`at`: "tables.T.rows[i]") checked as the command line and ingest
// check it: the run's UUID, the lengths of benchmark names, notes, tags and annotations, and the
// depth of JSON text columns.
void check_exported_value(const std::string& source, const std::string& table,
                          const std::string& column, const nlohmann::json& v,
                          const std::string& at);

// A value of an exported result that is not a number is refused (exit 2), never skipped.
[[noreturn]] void not_a_value(const std::string& benchmark, const std::string& metric,
                              const std::string& field, const nlohmann::json& value);

// Throws bad_export when the export's "tables" disagree with its "run" (another UUID) or its
// "results" (a value that is not a number, another count of repetition values).
void check_tables_agree(const nlohmann::json& doc, const std::string& uuid,
                        const std::string& source);

}  // namespace gpubench::results::exchange_detail
