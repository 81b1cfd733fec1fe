// The store's schema: the version this build writes, the oldest version that can still read
// what it writes, and the migration ladder that takes any older database forward.
#pragma once

#include <string>
#include <vector>

namespace gpubench::results {

class Database;

namespace schema {

// What this build writes into meta.schema_version.
inline constexpr int k_version = 8;
// Written into meta.compatible_version: the oldest gpubench schema that can read and write a
// database of k_version. Raise it only when older code would corrupt the new layout.
inline constexpr int k_compatible_version = 3;

struct Migration {
  int to_version;           // this step migrates to_version - 1 -> to_version
  std::string description;  // for people ("create the v1 schema")
  void (*apply)(Database& db);
};

// The v1 -> v2 step (results/schema/schema_v2.cpp).
void apply_v2(Database& db);
// The v2 -> v3 step (results/schema/schema_v3.cpp).
void apply_v3(Database& db);
// The v3 -> v4 step (results/schema/schema_v4.cpp).
void apply_v4(Database& db);
// The v4 -> v5 step (results/schema/schema_v5.cpp).
void apply_v5(Database& db);
// The v5 -> v6 step (results/schema/schema_v6.cpp).
void apply_v6(Database& db);
// The v6 -> v7 step (results/schema/schema_v7.cpp).
void apply_v7(Database& db);
// The v7 -> v8 step (results/schema/schema_v8.cpp).
void apply_v8(Database& db);

// v_samples as v1 documented it (schema.cpp): its column list and its joins up to the GPU. Every
// version that recreates the view keeps them and adds its own (schema_v2.cpp).
extern const char* const k_v_samples_v1_columns;
extern const char* const k_v_samples_joins;

// migrations()[i] migrates version i to i + 1; version 0 is an empty database.
const std::vector<Migration>& migrations();

// Versions as stored in `meta` (0 when the table does not exist).
struct Versions {
  int schema_version = 0;
  int compatible_version = 0;
};
Versions read_versions(Database& db);

// Applies every step from `from_version` to k_version, each in its own IMMEDIATE transaction
// that re-reads the version first (another process may have migrated meanwhile).
void migrate(Database& db);

}  // namespace schema
}  // namespace gpubench::results
