// The `gpubench` executable: a thin main over the harness library. To add a subcommand, write
// harness/cli/cmd_<name>.cpp with add_<name>_command(), declare it in harness/cli/command.hpp, and
// add it to the list below.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "harness/cli/command.hpp"
#include "util/error.hpp"

int main(int argc, char** argv) {
  using namespace gpubench::cli;
  // A file-size limit (ulimit -f, set by CI runners and batch systems) would otherwise kill
  // gpubench with SIGXFSZ mid-write: no message, a run left `running`. Ignored, the write fails
  // with EFBIG and takes the paths every other write error takes (exit 3 with the reason; a suite
  // that could not be stored is recorded failed). Suites get the default back (harness/process).
  signal(SIGXFSZ, SIG_IGN);
  static constexpr Adder k_adders[] = {
      add_run_command,      add_suites_command, add_runs_command,    add_show_command,
      add_import_command,   add_export_command, add_compare_command, add_accept_command,
      add_baseline_command, add_report_command,
      add_doctor_command,
      add_history_command,  add_annotate_command, add_site_command,  // issue 25
      add_models_command,   add_fleet_command,  // issue 24
      add_peers_command,                        // issue 40
  };
  const int rc = run_cli(argc, argv, k_adders);
  // The last buffered bytes are written here: a full disk or /dev/full shows up now. close()
  // too, so a file system that reports write errors only at close (NFS) is heard.
  const bool out_ok = std::fflush(stdout) == 0 && std::ferror(stdout) == 0;
  const int out_errno = errno;
  const bool closed_ok = ::close(STDOUT_FILENO) == 0 || errno == EBADF;
  const int close_errno = errno;
  if (!out_ok || !closed_ok) {
    // An infrastructure exit has already said why (usually this very write, caught by the
    // command's own check): one message, not two.
    if (rc == static_cast<int>(gpubench::ExitCode::infrastructure)) return rc;
    const int err = !out_ok ? out_errno : close_errno;
    std::fprintf(stderr,
                 "gpubench: error: cannot write the output (%s; check the disk or file the "
                 "output goes to)\n",
                 err != 0 ? std::strerror(err) : "the write failed");
    return rc != 0 ? rc : static_cast<int>(gpubench::ExitCode::infrastructure);
  }
  if (std::fflush(stderr) != 0 && rc == 0)
    return static_cast<int>(gpubench::ExitCode::infrastructure);
  return rc;
}
