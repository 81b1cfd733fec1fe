// Helpers the subcommands share: where the database is, opening it, tags, tables, statistics.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>
#include <utility>
#include <vector>
#include "util/text_width.hpp"

#include "harness/cli/command.hpp"
#include "results/store.hpp"

namespace gpubench::cli {

// --db > GPUBENCH_DB > "gpubench.db".
std::string resolve_db_path(const Context& ctx);
// Opens the store; busy timeout from GPUBENCH_BUSY_TIMEOUT_MS (default 10000 ms).
results::Store open_store(const Context& ctx, results::OpenMode mode);

// A run's status for people: "abandoned?" for a `running` run whose gpubench is gone (read
// commands do not write; the next writing command marks it abandoned).
std::string run_status_text(const results::RunRow& run);

// Most bytes a tag (key=value) or a note may have: they are shown in every listing.
inline constexpr std::size_t k_max_label_bytes = 4096;
// "k=v" -> (k, v), spaces around k and v trimmed. Throws Error(bad_input) without '=', with an
// empty key, over k_max_label_bytes or not UTF-8.
std::pair<std::string, std::string> parse_tag(const std::string& text);
// Throws Error(bad_input) for a note over k_max_label_bytes or not UTF-8; `what` names it in
// the message ("--note", "the annotation").
void check_note(const std::string& note, const std::string& what = "--note");
// "a,b" and repeated options -> ["a", "b"], empty parts dropped.
std::vector<std::string> split_list(const std::vector<std::string>& values);

// Median and spread of repetition samples.
struct SampleStats {
  std::size_t n = 0;
  double median = 0, min = 0, max = 0, mean = 0;
  double cv = 0;  // sample standard deviation / mean (0 with fewer than 2 samples)
};
SampleStats summarize(const std::vector<double>& values);

// "0.01 s", "12.3 s", "1234 s": durations for people.
std::string duration_text(double seconds);

// Makes every option that takes a value, in `app` and all its subcommands, refuse an empty one
// (Error(bad_input), exit 2): `--expect-gpus "$UNSET"` would otherwise mean "not given" and turn a
// gate off, `--suite ''` every suite, `--data-dir ''` the default directory. Call once, after
// every subcommand is added. --db keeps its own check (resolve_db_path).
void refuse_empty_option_values(CLI::App& app);

// A time limit in seconds from the command line: positive, finite and at most a week (`inf` or
// 1e308 would mean "never", silently). Error(bad_input) naming `option` otherwise.
inline constexpr double k_max_timeout_s = 7 * 24 * 3600.0;
void check_timeout_seconds(double seconds, const std::string& option);

// Checks --format against the allowed values; Error(bad_input) naming them otherwise.
void check_format(const std::string& format, const std::vector<std::string>& allowed);

// What an output holds (issue 43): text for people (text, Markdown), where the control
// characters and bidi overrides of stored strings are written as visible escapes
// (util/text_safety.hpp), or data written byte for byte (HTML, JSON, CSV, JUnit, OpenMetrics:
// each escapes in its own syntax).
enum class OutputKind { for_people, data };
// for_people for "text" and "md", data otherwise.
OutputKind output_kind(const std::string& format);

// Checks -o PATH before any work ("" and "-" are stdout): not a directory, a writable directory
// (compare::check_output_path), and never the database: Error(bad_input) when PATH, symlinks
// resolved, is the database file or its -wal, -shm or -journal (issue 43: `-o gpubench.db`
// replaced every stored run). write_output and stream_output check the database again.
void check_output(const Context& ctx, const std::string& path);
// Error(bad_input) when `path` is one of the database's files (see check_output).
void refuse_database_output(const Context& ctx, const std::string& path,
                            const std::string& option = "-o");
// The database file and the files SQLite keeps beside it (-wal, -shm, -journal).
std::vector<std::string> database_files(const Context& ctx);

// Writes `text` to -o `path` atomically, or for "" and "-" to ctx.out, made visible when
// `kind` is for_people.
void write_output(const Context& ctx, const std::string& path, OutputKind kind,
                  const std::string& text);
// Output written as it is produced (issue 16; one place for it, issue 27): `write` streams into
// -o `path` through a temp file renamed into place once complete, or, for "" and "-", into
// ctx.out, flushed at the end; made visible on the way when `kind` is for_people.
void stream_output(const Context& ctx, const std::string& path, OutputKind kind,
                   const std::function<void(std::ostream&)>& write);
// A large report's sidecar file beside -o `path` (compare::sidecar_path): "" for stdout, and for
// an output that is not a regular file (/dev/null, a FIFO: the report then lists the rows itself
// and says so, issue 43); refused like -o when it would be a database file.
std::string sidecar_for(const Context& ctx, const std::string& path, std::string_view suffix);

}  // namespace gpubench::cli
