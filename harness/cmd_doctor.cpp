// gpubench doctor [--format text|json] [--data-dir DIR]: readiness checks of this server
// (harness/doctor.hpp). Exit 0 when no check fails, 1 when one does.
#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "harness/cli_common.hpp"
#include "harness/command.hpp"
#include "harness/doctor.hpp"

namespace gpubench::cli {

namespace {
struct DoctorArgs {
  std::string format = "text";
  std::string data_dir;
};

void do_doctor(const DoctorArgs& args, Context& ctx) {
  check_format(args.format, {"text", "json"});
  harness::DoctorOptions options;
  options.data_dir = args.data_dir;
  const std::vector<results::DoctorCheck> checks = harness::run_doctor(options);
  const results::DoctorCounts counts = results::count_checks(checks);
  if (args.format == "json") {
    *ctx.out << harness::doctor_json(checks).dump(2) << '\n';
  } else {
    harness::print_doctor_text(*ctx.out, checks);
  }
  if (counts.fail > 0) ctx.exit_code = 1;
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
  cmd->footer("Exit codes: 0 no check failed, 1 a check failed, 2 bad command line.");
  cmd->callback([args, &ctx] { do_doctor(*args, ctx); });
}

}  // namespace gpubench::cli
