#pragma once
// The design-space grid of `k3sim sweep`: axes given as `--grid key=v1,v2,...` (a list) or
// `--grid key=lo:hi:x2` (geometric, factor 2) or `--grid key=lo:hi:+s` (arithmetic, step s), and their
// Cartesian product. Every axis value is checked against the base scenario before any point runs, so a
// typo (unknown key, empty range, wrong type) is one error up front, not a thousand failed points.
#include <string>
#include <vector>

#include "sim/input/scenario.hpp"

namespace k3::sweep {

struct GridAxis {
  std::string key;                  // dotted scenario key, e.g. parallel.ep
  std::vector<std::string> values;  // YAML scalars, in the order given
};

// InputError naming --grid when the text is malformed or the range is empty.
GridAxis parse_grid_axis(const std::string& text);

// One point: the overrides of the base scenario that make it, one per axis, in axis order.
using GridPoint = std::vector<input::Override>;

// Cartesian product, the last axis varying fastest. Throws InputError when two axes share a key.
std::vector<GridPoint> expand_grid(const std::vector<GridAxis>& axes);

// Parses the base scenario with each axis value alone; rethrows the scenario's InputError prefixed with
// the --grid axis, so unknown keys and values of the wrong type fail before any point runs.
void validate_grid(const std::string& base_yaml, const std::string& source, const std::vector<input::Override>& sets,
                   const std::vector<GridAxis>& axes);

}  // namespace k3::sweep
