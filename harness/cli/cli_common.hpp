// Helpers the subcommands share: where the database is, opening it, tags, tables, statistics.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
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
// empty key or over k_max_label_bytes.
std::pair<std::string, std::string> parse_tag(const std::string& text);
// Throws Error(bad_input) for a note over k_max_label_bytes.
void check_note(const std::string& note);
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

// Output written as it is produced (issue 16; one place for it, issue 27): `write` streams into
// -o `path` through a temp file renamed into place once complete, or, for "" and "-", into
// `stdout_stream`, flushed at the end.
void stream_output(const std::string& path, std::ostream& stdout_stream,
                   const std::function<void(std::ostream&)>& write);

}  // namespace gpubench::cli
