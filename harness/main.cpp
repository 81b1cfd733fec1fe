// The `gpubench` executable: a thin main over the harness library. To add a subcommand, write
// harness/cmd_<name>.cpp with add_<name>_command(), declare it in harness/command.hpp, and add it
// to the list below.
#include "harness/command.hpp"

int main(int argc, char** argv) {
  using namespace gpubench::cli;
  static constexpr Adder k_adders[] = {
      add_run_command,      add_suites_command, add_runs_command,    add_show_command,
      add_import_command,   add_export_command, add_compare_command, add_accept_command,
      add_baseline_command, add_report_command,
      add_doctor_command,
  };
  return run_cli(argc, argv, k_adders);
}
