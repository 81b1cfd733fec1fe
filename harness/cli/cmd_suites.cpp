// gpubench suites: each suite found, what it measures, its benchmarks, and whether it can run here.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "harness/run/discovery.hpp"
#include "harness/run/runner.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::cli {

namespace {
std::string text_field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "?";
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get_ref<const std::string&>() : std::string("?");
}

// Benchmark names as listed at `width` (0, or every one fits: as they are): without Google
// Benchmark's suffixes (iterations:N, manual_time) and without the '/'-prefix they all share,
// returned first to be said once. Whole segments only (issue 39): a number is never cut.
std::pair<std::string, std::vector<std::string>> listed_names(
    const std::vector<std::string>& benchmarks, std::size_t width) {
  const bool fits = std::all_of(benchmarks.begin(), benchmarks.end(), [&](const std::string& b) {
    return 4 + display_width(b) <= width;
  });
  if (width == 0 || fits) return {"", benchmarks};
  std::vector<std::string> names;
  for (const std::string& b : benchmarks) {
    std::vector<std::string> kept;
    for (const std::string& part : split(b, '/')) {
      if (part == "manual_time" || part == "real_time" || part.rfind("iterations:", 0) == 0) {
        continue;
      }
      kept.push_back(part);
    }
    names.push_back(join(kept, "/"));
  }
  std::string prefix = names.size() > 1 ? names.front() : "";
  for (const std::string& n : names) {
    std::size_t i = 0;
    while (i < prefix.size() && i < n.size() && prefix[i] == n[i]) ++i;
    prefix.resize(i);
  }
  // Up to a '/', and every name keeps something after it.
  for (const std::string& n : names) {
    if (n.size() == prefix.size() && !prefix.empty()) prefix.pop_back();
  }
  const std::size_t slash = prefix.rfind('/');
  prefix = slash == std::string::npos ? "" : prefix.substr(0, slash + 1);
  for (std::string& n : names) n = n.substr(prefix.size());
  return {prefix, names};
}

// One benchmark name, indented 4, as lines of at most `width` columns (0: no limit): a name
// longer than that is broken after a '/' (a line ending in '/' goes on), never inside a segment,
// so no number is cut; continuation lines are indented 8.
std::string name_lines(const std::string& name, std::size_t width) {
  if (width == 0 || 4 + display_width(name) <= width) return "    " + name + "\n";
  std::string out;
  std::string line = "    ";
  bool empty = true;
  const std::vector<std::string> parts = split(name, '/');
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string part = parts[i] + (i + 1 < parts.size() ? "/" : "");
    if (!empty && display_width(line) + display_width(part) > width) {
      out += line + "\n";
      line = "        ";
    }
    line += part;
    empty = false;
  }
  return out + line + "\n";
}

struct SuitesArgs {
  std::string format = "text";
  std::string profile = "standard";
  double timeout_s = 30;  // per question asked of a suite
};

void do_suites(const SuitesArgs& args, Context& ctx) {
  check_format(args.format, {"text", "json"});
  harness::profile_defaults(args.profile);  // validates
  const auto found = harness::discover_suites();
  std::vector<harness::SuiteDescription> described;
  check_timeout_seconds(args.timeout_s, "--timeout");
  for (const auto& s : found) {
    described.push_back(harness::describe_suite(s, args.profile, args.timeout_s));
  }

  std::ostream& out = *ctx.out;
  if (args.format == "json") {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& d : described) {
      arr.push_back({{"suite", d.suite.name},
                     {"path", d.suite.path.string()},
                     {"description", d.description},
                     {"runnable", d.runnable},
                     {"reason", d.reason},
                     {"notes", d.notes},
                     {"metrics", nlohmann::json::parse(d.metrics_json, nullptr, false)},
                     {"benchmarks", d.benchmarks}});
    }
    out << arr.dump(2) << '\n';
    return;
  }
  if (described.empty()) {
    out << wrap_lines(
        "no suites found (looked for gpubench-<suite> in GPUBENCH_SUITE_PATH and "
        "next to gpubench)\n",
        output_width());
    return;
  }
  // Each line fitted to the output width at spaces, continuations under their text (issue 39).
  const std::size_t width = output_width();
  for (const auto& d : described) {
    out << hang(d.suite.name + "  ", "(" + d.suite.path.string() + ")", width);
    if (!d.description.empty()) out << hang("  ", d.description, width);
    out << hang(
        "  runs here: ",
        std::string(d.runnable ? "yes" : "no") + (d.reason.empty() ? "" : " (" + d.reason + ")"),
        width);
    for (const auto& n : d.notes) out << hang("  note: ", n, width);
    const auto metrics = nlohmann::json::parse(d.metrics_json, nullptr, false);
    if (metrics.is_array() && !metrics.empty()) {
      std::vector<std::string> names;
      for (const auto& m : metrics) {
        names.push_back(text_field(m, "name") + " [" + text_field(m, "unit") + ", " +
                        text_field(m, "direction") + " is better]");
      }
      out << hang("  metrics: ", join(names, ", "), width);
    }
    const auto [prefix, names] = listed_names(d.benchmarks, width);
    out << "  benchmarks (" << d.benchmarks.size() << ", profile " << args.profile
        << (prefix.empty() ? "):\n" : "), every name below starts with " + prefix + "\n");
    for (const auto& b : names) out << name_lines(b, width);
  }
}
}  // namespace

void add_suites_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<SuitesArgs>();
  CLI::App* cmd =
      app.add_subcommand("suites", "list the suites, their benchmarks and availability");
  cmd->add_option("--format", args->format, "text or json")->capture_default_str();
  cmd->add_option("--profile", args->profile, "list the benchmarks of this profile")
      ->capture_default_str();
  cmd->add_option("--timeout", args->timeout_s,
                  "seconds a suite may take to describe itself before it is reported as not "
                  "answering")
      ->capture_default_str();
  cmd->callback([args, &ctx] { do_suites(*args, ctx); });
}

}  // namespace gpubench::cli
