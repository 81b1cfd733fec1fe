// gpubench suites: each suite found, what it measures, its benchmarks, and whether it can run here.
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "harness/run/discovery.hpp"
#include "harness/run/runner.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::cli {

namespace {
std::string text_field(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "?";
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get_ref<const std::string&>() : std::string("?");
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
    out << "no suites found (looked for gpubench-<suite> in GPUBENCH_SUITE_PATH and next to "
           "gpubench)\n";
    return;
  }
  for (const auto& d : described) {
    out << d.suite.name << "  (" << d.suite.path.string() << ")\n";
    if (!d.description.empty()) out << "  " << d.description << '\n';
    out << "  runs here: " << (d.runnable ? "yes" : "no");
    if (!d.reason.empty()) out << " (" << d.reason << ")";
    out << '\n';
    for (const auto& n : d.notes) out << "  note: " << n << '\n';
    const auto metrics = nlohmann::json::parse(d.metrics_json, nullptr, false);
    if (metrics.is_array() && !metrics.empty()) {
      std::vector<std::string> names;
      for (const auto& m : metrics) {
        names.push_back(text_field(m, "name") + " [" + text_field(m, "unit") + ", " +
                        text_field(m, "direction") + " is better]");
      }
      out << "  metrics: " << join(names, ", ") << '\n';
    }
    out << "  benchmarks (" << d.benchmarks.size() << ", profile " << args.profile << "):\n";
    for (const auto& b : d.benchmarks) out << "    " << b << '\n';
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
