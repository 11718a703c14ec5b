#pragma once
// "Did you mean": the allowed name nearest a mistyped one, for errors that list what is allowed (issue 47).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace k3::core {

// Edits (insertions, deletions, substitutions, and swaps of two neighbouring characters) between a and b: the
// optimal string alignment distance.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The name of `allowed` nearest `given`, when it is near enough to be a typo: at most 1 edit for names of up to 4
// characters, 2 up to 8, 3 beyond; of equally near ones the first that starts with the same character, else the
// first. nullopt when none is.
std::optional<std::string> closest_name(std::string_view given, const std::vector<std::string>& allowed);

// " (did you mean 'x'?)" for closest_name, "" when there is none: to append to a problem.
std::string did_you_mean(std::string_view given, const std::vector<std::string>& allowed);

}  // namespace k3::core
