// "Did you mean" for typed names (issue 26): commands, options, selectors, suites, baselines.
// Candidates always come from the caller's live list (the CLI's registered subcommands and
// options, the store's baselines), never from a copy kept here.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench {

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
// two adjacent characters each cost 1 ("comapre" is 1 from "compare"). Case-sensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` (compared lower-case), when it is close enough to be a typo:
// at most 1 edit for words of up to 4 characters, 2 up to 8, 3 beyond; ties go to the earlier
// candidate. nullopt when none is close or `word` is itself a candidate.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);

// "did you mean 'X'?" for closest_match's answer, with `prefix` before X ("gpubench " gives
// "did you mean 'gpubench compare'?"); "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         std::string_view prefix = "");

}  // namespace gpubench
