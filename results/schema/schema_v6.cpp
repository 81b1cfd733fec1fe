// Schema v6 (issue 36 "fixed algorithms"): what a run's GEMMs ran, kept with the run.
//  - cublaslt_algorithms: the cuBLASLt algorithm each gemm case of a run used (its opaque bytes,
//    the search's description, where it came from), with the GPU model, driver and cuBLAS version
//    it was chosen on, so later runs on the same three reuse it (harness/run/algorithm_seed.hpp).
//  - benchmark_outcomes.label: the Google Benchmark label of a benchmark's first labelled row in
//    a suite run, where a suite says what it ran (gemm: "algo=23 tile=20 stages=15 splitk=1 ..."),
//    so compare can say that two sides ran different algorithms. Databases written before keep ''
//    (unknown).
// A table and a column with a default: older gpubench ignores both (compatible_version stays 3).
#include "results/schema/schema.hpp"
#include "results/sqlite/sqlite.hpp"

namespace gpubench::results::schema {

void apply_v6(Database& db) {
  db.exec(R"sql(
ALTER TABLE benchmark_outcomes ADD COLUMN label TEXT NOT NULL DEFAULT '';
CREATE TABLE cublaslt_algorithms (
  run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  benchmark       TEXT NOT NULL,  -- the case's full name: device:N in it, one choice per GPU
  gpu_model       TEXT NOT NULL,  -- the GPU's name, the NVIDIA driver and the cuBLAS(Lt) version
  driver_version  TEXT NOT NULL,  -- it was chosen with: a later run reuses it only where all
  cublas_version  TEXT NOT NULL,  -- three match ('unknown' matches nothing)
  algorithm       TEXT NOT NULL,  -- cublasLtMatmulAlgo_t (uint64_t data[8]) as 128 hex digits
  description     TEXT NOT NULL,  -- the search's: "algo=23 tile=20 stages=15 splitk=1 ..."
  median_call_ms  REAL,           -- the chosen algorithm's median ms per call in the search
  origin_run_uuid TEXT NOT NULL DEFAULT '',  -- '': searched by this run; else the run that did
  PRIMARY KEY (run_id, benchmark)
);
CREATE INDEX cublaslt_algorithms_match ON cublaslt_algorithms(driver_version, cublas_version);
)sql");
}

}  // namespace gpubench::results::schema
