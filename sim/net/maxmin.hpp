#pragma once
// Weighted max-min fair sharing of link capacities among variables (flows), by progressive filling.
//
// Every variable crosses a set of links; the solution gives each variable the largest rate such that no
// link is over capacity and no variable can grow without shrinking one whose rate (per unit weight) is not
// larger. Progressive filling raises all unfixed variables together, saturates the link with the smallest
// remaining capacity per unit of unfixed weight, fixes its variables at that level and repeats.
//
// Changes are incremental: adding or removing a variable marks its links dirty, and solve() re-solves only
// the connected components (links <-> variables) that contain a dirty link. Untouched components keep
// their rates, which is exact because max-min sharing decomposes over connected components.
#include <cstdint>
#include <span>
#include <vector>

#include "core/units.hpp"

namespace k3::net {

using MaxMinLink = std::uint32_t;
using MaxMinVariable = std::uint32_t;

class MaxMinSystem {
 public:
  MaxMinLink add_link(core::BytesPerSec capacity);
  std::size_t link_count() const { return links_.size(); }
  core::BytesPerSec capacity(MaxMinLink link) const { return links_[link].capacity; }

  // `weight` > 0: at a shared bottleneck a variable's rate is proportional to its weight.
  MaxMinVariable add_variable(std::span<const MaxMinLink> links, double weight = 1.0);
  void remove_variable(MaxMinVariable var);
  bool alive(MaxMinVariable var) const { return var < vars_.size() && vars_[var].alive; }

  bool dirty() const { return !dirty_links_.empty(); }
  // Re-solves the components touched since the last call. Returns the variables whose rate changed
  // (valid until the next call).
  const std::vector<MaxMinVariable>& solve();

  double rate(MaxMinVariable var) const { return vars_[var].rate; }
  // Variables currently crossing `link`.
  template <typename F>
  void for_each_variable_on(MaxMinLink link, F&& f) const {
    for (const Incidence& inc : links_[link].incidences) f(inc.var);
  }
  // Number of variables solved in the last solve() (the size of the touched components).
  std::size_t last_component_variables() const { return component_vars_.size(); }

 private:
  struct Incidence {
    MaxMinVariable var;
    std::uint32_t position;  // index of this link in the variable's link list
  };
  struct Link {
    core::BytesPerSec capacity = 0;
    std::vector<Incidence> incidences;
    // Solver scratch.
    double remaining = 0;
    double unfixed_weight = 0;
    std::uint32_t unfixed_count = 0;
    std::uint32_t version = 0;
    std::uint64_t mark = 0;
    bool dirty = false;
    bool touched = false;
  };
  struct Variable {
    std::vector<MaxMinLink> links;
    std::vector<std::uint32_t> slot;  // slot[i]: where this variable sits in links[i]'s incidence list
    double weight = 1.0;
    double rate = 0;
    double new_rate = 0;
    std::uint64_t mark = 0;
    bool alive = false;
    bool fixed = false;
  };
  struct Share {
    double level;
    MaxMinLink link;
    std::uint32_t version;
  };

  void mark_dirty(MaxMinLink link);
  void collect_components();
  void fill();
  // Invariant (checked in debug and sanitizer builds): in the solved components no link carries more than
  // its capacity and every variable was given a positive rate.
  void check_solution() const;

  std::vector<Link> links_;
  std::vector<Variable> vars_;
  std::vector<MaxMinVariable> free_vars_;
  std::vector<MaxMinLink> dirty_links_;
  std::vector<MaxMinLink> component_links_;
  std::vector<MaxMinVariable> component_vars_;
  std::vector<MaxMinVariable> changed_;
  std::vector<Share> heap_;
  std::vector<MaxMinLink> touched_;
  std::uint64_t epoch_ = 0;
};

}  // namespace k3::net
