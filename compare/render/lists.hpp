// Long lists said in one short line (issue 39): at fleet scale a models or fleet head listed 100
// run ids and 100 host names in one wrapped paragraph that broke a run id across two lines. Each
// summary keeps every token whole and stays short whatever the list's length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gpubench::compare {

// Names in natural order ("node-2" before "node-10"), duplicates dropped: all of them, comma
// separated, when there are at most `show`; else the first and the last around "…"
// ("node-000 … node-099"). Empty: "none".
std::string summarise_names(std::vector<std::string> names, std::size_t show = 4);

// Ids ascending as ranges ("1-3, 7, 9-12"), duplicates dropped; beyond `show` ranges the first
// and last id around "…" ("1 … 250"). Empty: "none".
std::string summarise_ids(std::vector<int64_t> ids, std::size_t show = 4);

// "100 runs (1-100) on 100 hosts, node-000 … node-099"; one of each in the singular
// ("1 run (3) on 1 host, h100-node").
std::string runs_on_hosts(const std::vector<int64_t>& runs, const std::vector<std::string>& hosts);

}  // namespace gpubench::compare
