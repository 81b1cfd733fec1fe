// `gpubench run --launcher "mpirun -np 16 -N 8 --hostfile hosts"`: a suite run under an MPI
// launcher (mpirun, mpiexec, srun). The harness starts the launcher with the suite's command line
// appended; the launcher starts the ranks; rank 0 writes the Google Benchmark JSON the harness
// stores. The launcher is an ordinary child process: its exit status, signal and stderr are the
// suite's, so a launcher that is missing or whose ranks die is recorded as a failed suite.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gpubench::harness {

// Whether `suite` runs under --launcher. Only suites written for many ranks do (they have rank 0
// alone write the output); the others run directly, once, as without --launcher: N copies of a
// single-process suite would measure each other and write one file together.
bool runs_under_launcher(const std::string& suite);

// Splits a launcher command line into words: blanks separate, '...' and "..." group (no other
// shell syntax). Throws Error(bad_input) for an empty line or an unclosed quote.
std::vector<std::string> split_launcher(const std::string& line);

// The full path of `program` (as execve needs it): itself when it contains '/', else the first
// executable match in the ':'-separated `path_list` (PATH). nullopt when none.
std::optional<std::string> find_program(const std::string& program, const std::string& path_list);

struct LaunchCommand {
  std::vector<std::string> argv;  // launcher words (program resolved), then the suite's argv
  std::string problem;            // nonempty: the launcher cannot be started, and why
};

// Wraps `suite_argv` in `launcher` (empty: suite_argv unchanged). PATH is read from the
// environment.
LaunchCommand launch_command(const std::vector<std::string>& launcher,
                             const std::vector<std::string>& suite_argv);

}  // namespace gpubench::harness
