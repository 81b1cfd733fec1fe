// gpubench runs: one line per stored run, newest first.
#include <algorithm>
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "util/error.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

namespace gpubench::cli {

namespace {
struct RunsArgs {
  std::string format = "text";
  int64_t limit = 0;
};

// A key given more than once (accept adds a `gpubench.accept` verdict each time it judges the run)
// shows its newest value only, where the key first appeared, as the JSON's object does.
std::string tags_text(const std::vector<std::pair<std::string, std::string>>& tags) {
  std::vector<std::pair<std::string, std::string>> newest;
  for (const auto& [k, v] : tags) {
    auto it = std::find_if(newest.begin(), newest.end(), [&](const auto& t) { return t.first == k; });
    if (it == newest.end()) {
      newest.emplace_back(k, v);
    } else {
      it->second = v;
    }
  }
  std::vector<std::string> parts;
  for (const auto& [k, v] : newest) parts.push_back(k + "=" + v);
  return join(parts, ",");
}

void do_runs(const RunsArgs& args, Context& ctx) {
  check_format(args.format, {"text", "json"});
  if (args.limit < 0) {
    throw bad_input("--limit must be 0 (all) or more", "got " + std::to_string(args.limit),
                    "e.g. --limit 20");
  }
  results::Store store = open_store(ctx, results::OpenMode::read_only);
  const auto runs = store.list_runs(args.limit);
  std::ostream& out = *ctx.out;
  if (args.format == "json") {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& r : runs) {
      nlohmann::json tags = nlohmann::json::object();
      for (const auto& [k, v] : r.tags) tags[k] = v;
      // `history exclude`'s reason, null when the run counts in history.
      const nlohmann::json excluded =
          r.history_excluded.empty() ? nlohmann::json() : nlohmann::json(r.history_excluded);
      arr.push_back({{"id", r.id},
                     {"uuid", r.uuid},
                     {"started_at", r.started_at},
                     {"finished_at", r.finished_at},
                     {"status", results::to_string(r.status)},
                     {"owner_gone", r.owner_gone},
                     {"status_reason", r.status_reason},
                     {"history_excluded", excluded},
                     {"host", r.hostname},
                     {"gpus", r.gpu_summary},
                     {"profile", r.profile},
                     {"tags", tags},
                     {"note", r.note},
                     {"suites_total", r.suites_total},
                     {"suites_failed", r.suites_failed},
                     {"benchmarks", r.benchmarks}});
    }
    out << json_text(arr, 2) << '\n';
    return;
  }
  std::vector<std::vector<std::string>> rows;
  rows.reserve(runs.size());
  for (const auto& r : runs) {
    // "complete, no history": left out of every history (`history exclude`, reason in `show`).
    rows.push_back({std::to_string(r.id), r.uuid.substr(0, 8), r.started_at,
                    run_status_text(r) + (r.history_excluded.empty() ? "" : ", no history"),
                    r.hostname, r.gpu_summary, r.profile, tags_text(r.tags),
                    std::to_string(r.suites_failed) + "/" + std::to_string(r.suites_total)});
  }
  std::ostringstream text;
  if (rows.empty()) {
    text << "no runs in " << resolve_db_path(ctx) << " yet ('gpubench run' makes one)\n";
  } else {
    // At a narrow width tags, profile and uuid go first (a line says so); the start time, a
    // number, is never cut (issue 39). The id stays whole and first: scripts grep it.
    TableFit fit;
    fit.first_column = FirstColumn::keep_whole;
    fit.may_drop = {7, 6, 1};
    print_table(text,
                {"id", "uuid", "started", "status", "host", "gpus", "profile", "tags", "failed"},
                rows, fit);
  }
  write_output(ctx, "", OutputKind::for_people, text.str());
}
}  // namespace

void add_runs_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<RunsArgs>();
  CLI::App* cmd = app.add_subcommand("runs", "list stored runs, newest first");
  cmd->add_option("--format", args->format, "text or json")->capture_default_str();
  cmd->add_option("--limit", args->limit, "at most this many runs (0: all)")->capture_default_str();
  cmd->callback([args, &ctx] { do_runs(*args, ctx); });
}

}  // namespace gpubench::cli
