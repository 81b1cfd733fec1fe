// Long lists in one short line (compare/render/lists.hpp).
#include "compare/render/lists.hpp"

#include <algorithm>

#include "compare/render/svg.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {

std::string summarise_names(std::vector<std::string> names, std::size_t show) {
  std::sort(names.begin(), names.end(), svg::natural_less);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  if (names.empty()) return "none";
  if (names.size() <= std::max<std::size_t>(show, 2)) return join(names, ", ");
  return names.front() + " … " + names.back();
}

std::string summarise_ids(std::vector<int64_t> ids, std::size_t show) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  if (ids.empty()) return "none";
  std::vector<std::string> ranges;
  for (std::size_t i = 0; i < ids.size();) {
    std::size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1) ++j;
    ranges.push_back(j == i ? std::to_string(ids[i])
                            : std::to_string(ids[i]) + "-" + std::to_string(ids[j]));
    i = j + 1;
  }
  if (ranges.size() <= std::max<std::size_t>(show, 1)) return join(ranges, ", ");
  return std::to_string(ids.front()) + " … " + std::to_string(ids.back());
}

std::string runs_on_hosts(const std::vector<int64_t>& runs, const std::vector<std::string>& hosts) {
  std::vector<std::string> distinct = hosts;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<int64_t> ids = runs;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return std::to_string(ids.size()) + (ids.size() == 1 ? " run (" : " runs (") +
         summarise_ids(ids) + ") on " + std::to_string(distinct.size()) +
         (distinct.size() == 1 ? " host, " : " hosts, ") + summarise_names(distinct);
}

}  // namespace gpubench::compare
