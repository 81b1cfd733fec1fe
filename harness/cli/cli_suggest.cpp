#include "harness/cli/cli_suggest.hpp"

#include <CLI/CLI.hpp>

#include "util/suggest.hpp"

namespace gpubench::cli {

namespace {

std::vector<const CLI::App*> subcommands_of(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* a) { return !a->get_name().empty(); });
}

const CLI::App* find_subcommand(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub : subcommands_of(app)) {
    if (sub->check_name(name)) return sub;
  }
  return nullptr;
}

// "--name" for every long option of `app` and of the apps above it (--db works everywhere).
std::vector<std::string> long_options(const CLI::App* app) {
  std::vector<std::string> out;
  for (; app != nullptr; app = app->get_parent()) {
    for (const CLI::Option* opt : app->get_options()) {
      for (const std::string& n : opt->get_lnames()) out.push_back("--" + n);
    }
  }
  return out;
}

bool has_option(const std::vector<std::string>& names, const std::string& name) {
  for (const std::string& n : names) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace

std::string command_line_suggestion(const CLI::App& app, const std::vector<std::string>& argv) {
  const CLI::App* current = &app;
  std::string path = "gpubench ";
  for (std::size_t i = 1; i < argv.size(); ++i) {
    const std::string& word = argv[i];
    if (word == "--") break;  // positional arguments only from here
    if (word.rfind("--", 0) == 0) {
      const std::string name = word.substr(0, word.find('='));
      const std::vector<std::string> known = long_options(current);
      if (!has_option(known, name)) {
        const std::string s = did_you_mean(name, known);
        if (!s.empty()) return s;
      }
      continue;
    }
    if (word.empty() || word[0] == '-') continue;
    // A word that is not an option: a (sub)command where the current app has subcommands and no
    // subcommand was chosen yet at this level, else a positional argument or an option's value.
    const std::vector<const CLI::App*> subs = subcommands_of(*current);
    if (subs.empty()) continue;
    if (const CLI::App* sub = find_subcommand(*current, word)) {
      path += sub->get_name() + " ";
      current = sub;
      continue;
    }
    // An option's value ("--db x.db compare"), not a command, when the word before is an option.
    if (i > 1 && argv[i - 1].rfind("--", 0) == 0 && argv[i - 1].find('=') == std::string::npos) {
      continue;
    }
    std::vector<std::string> names;
    for (const CLI::App* sub : subs) names.push_back(sub->get_name());
    return did_you_mean(word, names, path);
  }
  return {};
}

}  // namespace gpubench::cli
