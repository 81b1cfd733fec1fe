// "Did you mean" for a command line CLI11 refused (issue 26): a mistyped command, subcommand or
// option is matched against what `app` has registered (so commands added in other files are
// suggested without a list kept here).
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace gpubench::cli {

// "did you mean 'gpubench compare'?" / "did you mean '--threshold'?" for the first word of
// `argv` (argv[0] is the program) that names no command or option of `app`; "" when every word
// is known or nothing is close.
std::string command_line_suggestion(const CLI::App& app, const std::vector<std::string>& argv);

}  // namespace gpubench::cli
