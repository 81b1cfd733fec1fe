// Renderers for comparisons and single-run reports. Like Google Benchmark's reporters they write
// to a std::ostream, so tests render into a std::stringstream. Every string that came from the
// database is escaped for the target format (HTML, Markdown, XML, CSV).
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compare/compare.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {

enum class Format { text, md, html, json, junit, csv };

// Version of the JSON written by `compare --format json` (compare/SCHEMA.md). 2: verdicts of
// issue 8 (one estimator, missing, null for unknown, counts objects, options recorded).
inline constexpr int k_json_schema_version = 2;
inline constexpr const char* k_estimator_name =
    "two-level (execution log means; between-execution variance: the suite's shared part plus "
    "each series' own, moderated over the suite; history's run-level remainder added) for runs "
    "of several executions; yuen-trimmed-log-ratio (20% a side from 8 samples; Welch on logs "
    "below) for runs of one execution a suite";
std::optional<Format> format_from_string(std::string_view text);
const char* to_string(Format format);


// colour: ANSI colours in text output (only when stdout is a terminal).
// unchanged_csv: where a large Markdown or HTML comparison (render_large.hpp) writes its unchanged
// entries (sidecar_path(output, ".unchanged.csv")); "" (output to stdout): HTML lists them in a
// collapsed block, Markdown says how to get them. Other formats and small comparisons ignore it.
void render_comparison(const Comparison& cmp, Format format, std::ostream& out, bool colour = false,
                       const std::string& unchanged_csv = "", Detail detail = Detail::summary);

void render_text(const Comparison& cmp, std::ostream& out, bool colour,
                 Detail detail = Detail::summary);
void render_markdown(const Comparison& cmp, std::ostream& out,
                     const std::string& unchanged_csv = "", Detail detail = Detail::summary);
// Written as it is produced (issue 16): each entry straight to `out`, never the whole document.
void render_json(const Comparison& cmp, std::ostream& out);
void render_junit(const Comparison& cmp, std::ostream& out);
void render_csv(const Comparison& cmp, std::ostream& out);
void render_html(const Comparison& cmp, std::ostream& out, const std::string& unchanged_csv = "");

// The first line of every comparison (issue 26): "FAIL: 2 failing under --fail-on regression (2
// regression, 38 unchanged of 40 compared)", "PASS: ...", or "NOT GATED (--fail-on never): ...".
std::string verdict_headline(const Comparison& cmp);
// A run as named outside its database (issue 39: ids are local, UUIDs travel with the run):
// "2 (23285c63)", the id and the UUID's first 8 characters; the id alone when the UUID is unknown.
std::string run_ref(int64_t id, const std::string& uuid);
// "run 2 (23285c63)" or "runs 1 (acd22344), 3 (5f3a9c1e)".
std::string runs_ref(const std::vector<RunHeader>& runs);
// GPU UUIDs shortened for people: each to its shortest prefix of at least 12 characters
// ("GPU-5f3a9c1e") that no other UUID of `uuids` shares; whole when shorter. Keyed by the UUID.
std::map<std::string, std::string> short_uuids(const std::vector<std::string>& uuids);
// Per-GPU verdicts over the primary entries of GPU series (issue 39): each GPU with failing
// entries, worst first, then the others counted: "gpu3 GPU-FIXTURE-00000003: FAIL (5
// regressions); 7 GPUs PASS". Under --fail-on never, judged as --fail-on regression would and
// said so ("would FAIL"). Empty when no entry is on a GPU.
std::string gpu_verdicts(const Comparison& cmp);
// Entries worst first (issue 39): regressions by how much worse, then missing, invalid, changed
// (largest change first), inconclusive (worst first), improvements, unchanged; ties in reading
// order.
std::vector<const Entry*> by_severity(std::vector<const Entry*> entries);
// Benchmark names with what every one of them shares printed once (issue 39): `pattern` is the
// shared shape with "*" where names differ ("gemm/cublaslt/dtype:*/m:8192/.../device:*"), and
// `name` maps each full name to its differing parts ("dtype:bf16/device:3"). Segments shared by
// every name are dropped only where names keep the same shape and stay unique; else only the
// shared leading segments are. Run-control segments (manual_time, iterations:N) are always
// dropped. Shorten::when_width_limited (text): with --wide (no width limit) names stay whole and
// `pattern` is empty; Shorten::always (Markdown, read on a page of its own width).
struct ShortNames {
  std::string pattern;
  std::map<std::string, std::string> name;
};
enum class Shorten { when_width_limited, always };
ShortNames short_names(const std::vector<std::string>& names, Shorten shorten);
// "8 cases skipped: int8 GEMM needs ..." per distinct reason, most frequent first (as `show`
// groups skipped cases): one line per reason, `what` after each count ("cases skipped").
std::vector<std::string> grouped_reasons(const std::vector<std::string>& reasons,
                                         const std::string& what);

// The Markdown table of the compared runs: selection, run ids, start dates, hosts, git sha.
void write_md_runs(const Comparison& cmp, std::ostream& out);
// The compared runs' annotations (`gpubench annotate`, issue 25), one line each, base first:
// "base run 7: BIOS 2.1 -> 2.3". Empty when no run is annotated.
std::vector<std::string> annotation_lines(const Comparison& cmp);

// Benchmark names for text tables (issue 26): with a limited output width (util/text_width.hpp),
// each name as the charts label it (svg::compact_labels: run-control segments such as
// iterations:N and manual_time dropped, common leading segments dropped, large numbers short,
// still unique); unchanged with --wide. Keyed by the full name.
std::map<std::string, std::string> text_names(const std::vector<std::string>& names);
// One name alone (a line of prose, not a table): run-control segments dropped, numbers short.
std::string text_name(const std::string& name);

// What a run measured, for the first line of `show` and `report` after their PROBLEM lines
// (issue 26): "run 7: 3 suites (1 failed), 165 benchmarks: 39 measured, 126 skipped (120 no CUDA
// device), 0 failed". add() once per result row; a benchmark counts once (measured when any of its
// rows is ok, else failed, else skipped); a suite that did not end ok (failed, crashed, timed out,
// interrupted) is counted as failed. A suite measured in several executions (issue 35: one suite
// run each) counts once, failed when any execution did: "2 suites × 3 executions (1 failed)".
class RunTally {
 public:
  void add(const std::string& benchmark, results::BenchmarkStatus status,
           const std::string& message);
  // run_uuid: named after the id as "run 2 (23285c63)" when given (issue 39).
  std::string line(int64_t run_id, const std::vector<results::SuiteRunInfo>& suites,
                   const std::string& run_uuid = "") const;

 private:
  std::map<std::string, int> m_state;  // benchmark -> 0 skipped, 1 failed, 2 measured
  std::map<std::string, std::string> m_skip_reason;
};

// The "why" column in plain words, from the entry's figures: "4.1% worse, between 2.0% and 6.2%
// worse with 99% confidence (margin 2.0%)"; secondary metrics say they are not counted.
std::string plain_why(const Entry& e, double confidence);
// Entries in reading order: suite, then case and parameters with numbers compared as numbers.
std::vector<const Entry*> entries_in_order(const Comparison& cmp);
// When a suite's geometric mean and its per-benchmark verdicts seem to disagree, why ("" when
// they agree): e.g. all a little slower, none beyond its own margin.
std::string suite_note(const SuiteSummary& s);

// The document render_json writes, as one value (small comparisons and tests): render_json's
// output is byte for byte comparison_json(cmp).dump(2) and a newline.
nlohmann::json comparison_json(const Comparison& cmp);

// Escaping, shared by renderers (exposed for tests).
std::string html_escape(std::string_view text);      // also valid for XML text and attributes
std::string markdown_escape(std::string_view text);  // table cells: | * _ ` [ ] < > \ and newlines
std::string csv_field(std::string_view text);        // RFC 4180 quoting when needed
const char* direction_text(results::Direction direction);
// "1.234x [1.10, 1.30]" style figures.
std::string format_ratio(double ratio);
std::string change_pct(double ratio);  // 1.0523 -> "+5.23%"; "—" when not finite

}  // namespace gpubench::compare

namespace gpubench::compare {
// Writes `text` to `path` atomically, or to `out` when `path` is empty or "-". An unwritable path
// throws Error(bad_input) naming it.
void write_output(const std::string& path, const std::string& text, std::ostream& out);
// Checks an -o path before any work is done, so a typo fails fast: its directory must exist.
void check_output_path(const std::string& path);
}  // namespace gpubench::compare
