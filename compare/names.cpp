#include "compare/names.hpp"

#include "util/strings.hpp"

namespace gpubench::compare {

std::string short_host(std::string_view host) {
  return to_lower(host.substr(0, host.find('.')));
}

bool is_run_control_param(std::string_view key) {
  return key == "iterations" || key == "repeats" || key == "min_time" || key == "min_warmup_time" ||
         key == "manual_time" || key == "real_time" || key == "process_time";
}

}  // namespace gpubench::compare
