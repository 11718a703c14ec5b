#include "core/spelling.hpp"

#include <algorithm>

namespace k3::core {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Rows i - 2, i - 1 and i of the dynamic programme over prefixes of a and b.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::optional<std::string> closest_name(std::string_view given, const std::vector<std::string>& allowed) {
  const std::size_t limit = given.size() <= 4 ? 1 : given.size() <= 8 ? 2 : 3;
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto& name : allowed) {
    const std::size_t d = edit_distance(given, name);
    // Of equally near names, one that starts as the typo does ("epp": "ep" before "pp").
    const bool same_start = !given.empty() && !name.empty() && given.front() == name.front();
    const bool best_same_start = best && !best->empty() && !given.empty() && best->front() == given.front();
    if (d < best_distance || (d == best_distance && best && same_start && !best_same_start)) {
      best_distance = d;
      best = name;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view given, const std::vector<std::string>& allowed) {
  const auto name = closest_name(given, allowed);
  return name ? " (did you mean '" + *name + "'?)" : std::string();
}

}  // namespace k3::core
