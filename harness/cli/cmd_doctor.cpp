// gpubench doctor [--format text|json] [--data-dir DIR] [--expect-gpus N]: readiness checks of
// this server (harness/doctor/doctor.hpp). Exit 0 when no check fails, 1 when one does, 3 when the
// server has fewer GPUs than --expect-gpus.
#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "compare/hardware.hpp"
#include "harness/cli/cli_common.hpp"
#include "harness/cli/command.hpp"
#include "harness/doctor/doctor.hpp"
#include "harness/probe/environment.hpp"
#include "harness/run/runner.hpp"
#include "results/store.hpp"
#include "util/error.hpp"

namespace gpubench::cli {

namespace {
struct DoctorArgs {
  std::string format = "text";
  std::string data_dir;
  std::string profile = "standard";  // whose datasets the free space must hold
  std::optional<int> expect_gpus;    // --expect-gpus N
};

// --expect-gpus: the GPUs NVML lists against N; a missing one is named from the store's runs on
// this host when there is a readable database (a doctor never needs one).
std::vector<std::string> gpu_shortfall(const DoctorArgs& args, Context& ctx, std::size_t& found) {
  compare::ExpectedHardware expected;
  expected.gpus = *args.expect_gpus;
  expected.source = "--expect-gpus";
  results::SoftwareEnv software;
  const std::vector<results::GpuInfo> gpus = harness::probe_gpus(software);
  found = gpus.size();
  std::vector<compare::MissingGpu> missing;
  try {
    const std::string path = resolve_db_path(ctx);
    if (std::filesystem::exists(path)) {
      results::Store store = results::Store::open(path, results::OpenMode::read_only);
      missing = compare::missing_gpus(store, harness::probe_host().hostname, 0, gpus);
    }
  } catch (const Error&) {
    // Without a readable database the shortfall is still reported, the GPUs just not named.
  }
  return compare::hardware_problems(expected, gpus, missing);
}

void do_doctor(const DoctorArgs& args, Context& ctx) {
  check_format(args.format, {"text", "json"});
  if (args.expect_gpus) compare::check_expect_gpus(*args.expect_gpus, "--expect-gpus");
  harness::DoctorOptions options;
  options.data_dir = args.data_dir;
  harness::profile_defaults(args.profile);  // an unknown profile: exit 2 naming the known ones
  options.profile = args.profile;
  std::vector<results::DoctorCheck> checks = harness::run_doctor(options);
  std::vector<std::string> shortfall;
  if (args.expect_gpus.has_value()) {
    std::size_t found = 0;
    shortfall = gpu_shortfall(args, ctx, found);
    compare::ExpectedHardware expected;
    expected.gpus = *args.expect_gpus;
    expected.source = "--expect-gpus";
    checks.push_back(compare::expected_gpus_check(expected, found, shortfall));
  }
  const results::DoctorCounts counts = results::count_checks(checks);
  if (args.format == "json") {
    *ctx.out << harness::doctor_json(checks).dump(2) << '\n';
  } else {
    harness::print_doctor_text(*ctx.out, checks);
  }
  if (counts.fail > 0) ctx.exit_code = 1;
  // A server short of GPUs is broken, not unready: exit 3, as `run --expect-gpus` does.
  for (const std::string& p : shortfall) *ctx.err << "gpubench: error: " << p << '\n';
  if (!shortfall.empty()) ctx.exit_code = static_cast<int>(ExitCode::infrastructure);
}
}  // namespace

void add_doctor_command(CLI::App& app, Context& ctx) {
  auto args = std::make_shared<DoctorArgs>();
  CLI::App* cmd = app.add_subcommand(
      "doctor", "check this server's readiness (CPU, memory, storage, driver, limits, GPUs)");
  cmd->add_option("--format", args->format, "text or json")->capture_default_str();
  cmd->add_option("--data-dir", args->data_dir,
                  "dataset directory to check (default: the dataloader's: $GPUBENCH_DATA_DIR, "
                  "else $XDG_CACHE_HOME/gpubench, else ~/.cache/gpubench)");
  cmd->add_option("--profile", args->profile,
                  "the run profile whose dataloader datasets the data directory's free space must "
                  "hold (quick, standard, full)")
      ->capture_default_str();
  cmd->add_option("--expect-gpus", args->expect_gpus,
                  "GPUs this server must have: fewer fail (exit 3), naming the missing GPU's UUID "
                  "and the last run that saw it");
  cmd->footer(
      "Exit codes: 0 no check failed, 1 a check failed, 2 bad command line, 3 fewer GPUs than "
      "--expect-gpus.");
  cmd->callback([args, &ctx] { do_doctor(*args, ctx); });
}

}  // namespace gpubench::cli
