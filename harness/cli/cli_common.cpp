#include "harness/cli/cli_common.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>

#include "compare/render/render.hpp"
#include "compare/render/render_large.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/median.hpp"
#include "util/strings.hpp"
#include "util/text_safety.hpp"
#include "util/text_width.hpp"

namespace gpubench::cli {

std::string resolve_db_path(const Context& ctx) {
  if (ctx.db_given) {
    if (ctx.db_path.empty()) {
      throw bad_input("--db is empty", "an empty path would silently mean ./gpubench.db",
                      "give the database file, e.g. --db results.db, or leave --db out");
    }
    return ctx.db_path;
  }
  if (const char* env = std::getenv("GPUBENCH_DB")) {
    if (*env == '\0') {
      throw bad_input("GPUBENCH_DB is set but empty",
                      "an empty path would silently mean ./gpubench.db",
                      "set it to a database file or unset it (unset GPUBENCH_DB)");
    }
    return env;
  }
  return "gpubench.db";
}

results::Store open_store(const Context& ctx, results::OpenMode mode) {
  int busy_ms = 10000;
  if (const char* env = std::getenv("GPUBENCH_BUSY_TIMEOUT_MS"); env && *env) {
    const auto v = parse_int(env);
    if (!v || *v < 0) {
      throw bad_input("GPUBENCH_BUSY_TIMEOUT_MS='" + std::string(env) + "' is not a number",
                      "it is the time to wait for a locked database, in milliseconds",
                      "set it to a whole number such as 10000, or unset it");
    }
    busy_ms = static_cast<int>(std::min<long long>(*v, 24LL * 3600 * 1000));
  }
  return results::Store::open(resolve_db_path(ctx), mode, busy_ms);
}

std::string run_status_text(const results::RunRow& run) {
  if (run.status == results::RunStatus::running && run.owner_gone) return "abandoned?";
  return results::to_string(run.status);
}

namespace {
// "4 KiB" and the first bytes of an over-long text, so the error stays readable.
std::string too_long_text(const std::string& text) {
  return std::to_string(text.size()) + " bytes, starting '" + text.substr(0, 40) + "…'";
}
}  // namespace

std::pair<std::string, std::string> parse_tag(const std::string& text) {
  check_utf8(text, "--tag '" + visible_text(text.substr(0, 40)) + "'");
  if (text.size() > k_max_label_bytes) {
    throw bad_input("tag too long (" + too_long_text(text) + ")",
                    "a tag is at most " + std::to_string(k_max_label_bytes) +
                        " bytes: it is printed in every 'runs' row and selected by exact match",
                    "shorten it, or put long text in a file and tag the file's name");
  }
  const auto eq = text.find('=');
  // Spaces around the key and the value are dropped, here and in tag: selections, so what is
  // stored is what `compare tag:K=V` finds.
  const std::string key(eq == std::string::npos ? std::string_view{} : trim(text.substr(0, eq)));
  if (eq == std::string::npos || key.empty()) {
    throw bad_input("bad tag '" + text + "'", "a tag is key=value with a non-empty key",
                    "write it as --tag key=value, e.g. --tag driver=560");
  }
  return {key, std::string(trim(std::string_view(text).substr(eq + 1)))};
}

void check_note(const std::string& note, const std::string& what) {
  check_utf8(note, what);
  if (note.size() <= k_max_label_bytes) return;
  throw bad_input(what + " too long (" + too_long_text(note) + ")",
                  what + " is at most " + std::to_string(k_max_label_bytes) +
                      " bytes: it is printed with the run in 'show', 'runs' and 'history'",
                  "shorten it, or keep long text in a file and note the file's name");
}

std::vector<std::string> split_list(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values) {
    for (const auto& part : split(v, ',')) {
      const std::string p(trim(part));
      if (!p.empty()) out.push_back(p);
    }
  }
  return out;
}

SampleStats summarize(const std::vector<double>& values) {
  SampleStats s;
  s.n = values.size();
  if (values.empty()) return s;
  std::vector<double> v = values;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.median = median_in_place(v.data(), v.data() + v.size());  // the store's and compare's median
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  if (v.size() >= 2 && s.mean != 0) {
    double sq = 0;
    for (double x : v) sq += (x - s.mean) * (x - s.mean);
    s.cv = std::sqrt(sq / static_cast<double>(v.size() - 1)) / std::fabs(s.mean);
  }
  return s;
}

std::string duration_text(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf,
                seconds < 10     ? "%.2f s"
                : seconds < 1000 ? "%.1f s"
                                 : "%.0f s",
                seconds);
  return buf;
}

void refuse_empty_option_values(CLI::App& app) {
  for (CLI::Option* opt : app.get_options()) {
    // Flags take no value; positionals are the commands' own business (selectors check theirs).
    if (!opt->nonpositional() || opt->get_expected_max() == 0) continue;
    const std::string name = opt->get_name();
    if (name == "--db") continue;
    opt->check(
        [name](const std::string& value) -> std::string {
          if (!value.empty()) return {};
          throw bad_input("empty value for " + name,
                          "an empty value would silently mean the default, or turn the option off",
                          "give " + name + " a value, or leave " + name + " out");
        },
        "");
  }
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    refuse_empty_option_values(*sub);
  }
}

void check_timeout_seconds(double seconds, const std::string& option) {
  if (seconds > 0 && seconds <= k_max_timeout_s) return;  // false for NaN too
  throw bad_input(option + " must be a positive number of seconds, at most a week",
                  "got " + format_significant(seconds) +
                      (std::isfinite(seconds) ? "" : ": a limit that never ends is no limit"),
                  "give the limit in seconds, e.g. " + option + " 600");
}

void check_format(const std::string& format, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), format) != allowed.end()) return;
  throw bad_input("unknown format '" + format + "'", "this command writes " + join(allowed, ", "),
                  "use --format " + join(allowed, "|"));
}

OutputKind output_kind(const std::string& format) {
  return format == "text" || format == "md" ? OutputKind::for_people : OutputKind::data;
}

std::vector<std::string> database_files(const Context& ctx) {
  const std::string db = resolve_db_path(ctx);
  return {db, db + "-wal", db + "-shm", db + "-journal"};
}

void refuse_database_output(const Context& ctx, const std::string& path,
                            const std::string& option) {
  if (path.empty() || path == "-") return;
  for (const std::string& file : database_files(ctx)) {
    if (!same_file(path, file)) continue;
    throw bad_input("refusing to write " + option + " '" + path + "'",
                    "it is the database '" + file +
                        "' this command reads: writing there would replace every stored run",
                    "give " + option + " another file name");
  }
}

void check_output(const Context& ctx, const std::string& path) {
  compare::check_output_path(path);
  refuse_database_output(ctx, path);
}

void write_output(const Context& ctx, const std::string& path, OutputKind kind,
                  const std::string& text) {
  refuse_database_output(ctx, path);
  compare::write_output(path, kind == OutputKind::for_people ? visible_text(text) : text, *ctx.out);
}

void stream_output(const Context& ctx, const std::string& path, OutputKind kind,
                   const std::function<void(std::ostream&)>& write) {
  refuse_database_output(ctx, path);
  const auto write_to = [&](std::ostream& target) {
    if (kind == OutputKind::data) {
      write(target);
      return;
    }
    VisibleTextStream visible(target);
    write(visible);
  };
  if (path.empty() || path == "-") {
    write_to(*ctx.out);
    ctx.out->flush();
    return;
  }
  AtomicFileWriter file(path);
  write_to(file.stream());
  file.commit();
}

std::string sidecar_for(const Context& ctx, const std::string& path, std::string_view suffix) {
  if (path.empty() || path == "-" || !regular_or_new_file(path)) return "";
  std::string sidecar = compare::sidecar_path(path, suffix);
  refuse_database_output(ctx, sidecar, "the sidecar file");
  return sidecar;
}

}  // namespace gpubench::cli
