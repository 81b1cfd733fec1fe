// `gpubench site -o DIR`: a static results site (issue 25): plain HTML + inline SVG + JSON, no
// script, no server, no framework; every link is relative, so it works from file:// and as a CI
// artifact. Pages:
//   index.html              runs (newest first) with status, change points and annotations;
//                           the suites; the change points grouped by run
//   suite-<name>-<hash>.html the suite's series (<name> its letters and digits, lower case;
//                           <hash> of the exact name, so names differing in punctuation or case
//                           get pages of their own), each with its sparkline and change count
//   series/<id>.html        one series: its history chart, change points marked and annotated
//   run-<id>.html           "what changed" at a run: its change points and environment
//                           differences to the run before it in its group
//   history.json            the `history --format json` document the pages were made from
// <id> is a hash of the series identity, so a series keeps its address as runs are added.
// Regeneration is incremental: a page whose content did not change is not written again.
#pragma once

#include <cstddef>
#include <filesystem>
#include <vector>

#include "compare/history/series_history.hpp"
#include "results/store.hpp"

namespace gpubench::compare {

struct SiteSummary {
  std::size_t pages_written = 0;    // new or changed
  std::size_t pages_unchanged = 0;  // left as they were
};

// Writes the site for `h` into `dir` (created when missing). `runs`: every stored run, for the
// index's status column (failed and running runs have no history but are listed). `keep`: files
// no page may replace (the database and its -wal/-shm): Error(bad_input) before anything is
// written when one would. index.html is written last, after every page it links.
SiteSummary write_site(const std::filesystem::path& dir, const History& h,
                       const std::vector<results::RunRow>& runs,
                       const std::vector<std::filesystem::path>& keep = {});

// The file name of a series' page inside series/ ("3f2a...e1.html").
std::string series_page(const SeriesHistory& s);

}  // namespace gpubench::compare
