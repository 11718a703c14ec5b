#pragma once
// Weighted max-min fair sharing of link capacities among variables (flows), by progressive filling.
//
// Every variable crosses a set of links; the solution gives each variable the largest rate such that no
// link is over capacity and no variable can grow without shrinking one whose rate (per unit weight) is not
// larger. Progressive filling raises all unfixed variables together, saturates the link with the smallest
// remaining capacity per unit of unfixed weight, fixes its variables at that level and repeats.
//
// Variables that cross the same links (the same route) are solved as one: progressive filling fixes them at
// the same step at the same level, so a route's variables are one entry of summed weight and each gets
// level x its weight, which is the same solution. An expert all-to-all keeps several flows on each route
// (DeepEP's chunks, the collectives of overlapped passes): a K3 step's components held ~6 variables per route.
//
// Changes are incremental: adding or removing a variable marks its links dirty, and solve() re-solves only
// the connected components (links <-> routes) that contain a dirty link. Untouched components keep their
// rates, which is exact because max-min sharing decomposes over connected components.
//
// A route is visible (route_of(), level(), solve_routes()) so that a caller whose variables all have weight 1
// can follow a route's members together: they all move at the route's level, and a level change is one
// event per route rather than one per member (FlowNetwork's per-route virtual clocks).
#include <cstdint>
#include <span>
#include <vector>

#include "core/units.hpp"

namespace k3::net {

using MaxMinLink = std::uint32_t;
using MaxMinVariable = std::uint32_t;
// Reused after its last variable leaves (a later route, of any links, may get the same id).
using MaxMinRoute = std::uint32_t;

class MaxMinSystem {
 public:
  // Components of at most `scan_links` links find each next bottleneck by scanning their links' shares; larger
  // ones keep their links in a heap ordered by share, updated in place. Both fix the same links in the same
  // order (ties to the lower link id), so they give the same rates. Most of a K3 DualPipe step's solves are of
  // 16-63 links, where a scan beats any heap; one in twenty is of 256-511 links, and those carry two fifths
  // of the links visited.
  static constexpr std::size_t kScanLinks = 128;
  explicit MaxMinSystem(std::size_t scan_links = kScanLinks) : scan_links_(scan_links) {}

  MaxMinLink add_link(core::BytesPerSec capacity);
  std::size_t link_count() const { return links_.size(); }
  core::BytesPerSec capacity(MaxMinLink link) const { return links_[link].capacity; }

  // `weight` > 0: at a shared bottleneck a variable's rate is proportional to its weight.
  MaxMinVariable add_variable(std::span<const MaxMinLink> links, double weight = 1.0);
  void remove_variable(MaxMinVariable var);
  bool alive(MaxMinVariable var) const { return var < vars_.size() && vars_[var].alive; }

  bool dirty() const { return !dirty_links_.empty(); }
  // Re-solves the components touched since the last call. Returns the routes whose level changed, those
  // created since the last call among them (valid until the next call). A variable that joined a route whose
  // level held is not reported: its caller knows it joined.
  const std::vector<MaxMinRoute>& solve_routes();
  // solve_routes(), reported per variable: those whose rate changed, those added since the last call among
  // them (valid until the next call).
  const std::vector<MaxMinVariable>& solve();

  // As of the last solve; 0 for a variable added since, or removed.
  double rate(MaxMinVariable var) const {
    const Variable& v = vars_[var];
    return v.alive && v.solved ? routes_[v.route].level * v.weight : 0.0;
  }
  MaxMinRoute route_of(MaxMinVariable var) const { return vars_[var].route; }
  // Rate per unit weight of the route's variables as of the last solve; 0 for a route created since.
  double level(MaxMinRoute route) const { return routes_[route].level; }
  // Variables currently crossing `link`.
  template <typename F>
  void for_each_variable_on(MaxMinLink link, F&& f) const {
    for (const Incidence& inc : links_[link].incidences) {
      for (MaxMinVariable v : routes_[inc.route].members) f(v);
    }
  }
  // Number of variables solved in the last solve() (those of the touched components).
  std::size_t last_component_variables() const { return component_variables_; }

 private:
  using RouteId = MaxMinRoute;
  struct Incidence {
    RouteId route;
    std::uint32_t position;  // index of this link in the route's link list
  };
  struct Link {
    core::BytesPerSec capacity = 0;
    std::vector<Incidence> incidences;  // the routes crossing it
    // Solver scratch.
    double remaining = 0;
    double unfixed_weight = 0;
    double share = 0;       // remaining / unfixed_weight
    double heap_share = 0;  // its key in fill_by_heap()'s heap: at most `share`
    std::uint32_t heap_pos = 0;
    std::uint32_t unfixed_count = 0;
    std::uint64_t mark = 0;
    bool dirty = false;
    bool touched = false;
  };
  // The variables that cross exactly `links`; exists while it has members.
  struct Route {
    std::vector<MaxMinLink> links;
    std::uint64_t hash = 0;           // of `links` (route_hash), its place in route_index_
    std::vector<std::uint32_t> slot;  // slot[i]: where this route sits in links[i]'s incidence list
    std::vector<MaxMinVariable> members;
    double weight = 0;                // the members' weights summed
    double level = 0;                 // rate per unit weight
    std::uint64_t mark = 0;
    bool fixed = false;
    bool level_changed = false;
  };
  struct Variable {
    RouteId route = 0;
    std::uint32_t member_index = 0;  // where it sits in its route's member list
    double weight = 1.0;
    std::uint64_t reported = 0;      // the solve that last put it in changed_
    bool alive = false;
    bool solved = false;             // a solve has run since it was added
  };
  // Routes by their link sequence: an open-addressing table of route ids (linear probing, kNoRoute empty),
  // probed from a route's hash. A K3 pass creates and drops a route per flow or two; a node-based map of
  // vector keys allocated a node and a key copy each time and missed the cache on every lookup.
  static constexpr RouteId kNoRoute = ~RouteId{0};
  static std::uint64_t route_hash(std::span<const MaxMinLink> links);
  // Where `links` sits in route_index_, or the empty place it would take.
  std::size_t index_place(std::span<const MaxMinLink> links, std::uint64_t hash) const;
  void index_insert(RouteId route);
  void index_erase(RouteId route);

  RouteId route_for(std::span<const MaxMinLink> links);
  void drop_route(RouteId route);
  void mark_dirty(MaxMinLink link);
  // The components holding a dirty link, their links set up for filling.
  void collect_components();
  // Progressive filling of the collected components: fix_bottleneck() for each next bottleneck, found by
  // fill_by_scan() or fill_by_heap().
  void fill();
  void fill_by_scan();
  void fill_by_heap();
  void fix_bottleneck(MaxMinLink bottleneck, double level);
  // The heap of fill_by_heap(): links by (heap_share, id), each knowing its position.
  bool heap_before(MaxMinLink a, MaxMinLink b) const {
    return links_[a].heap_share < links_[b].heap_share || (links_[a].heap_share == links_[b].heap_share && a < b);
  }
  void heap_place(std::uint32_t pos, MaxMinLink link);
  void heap_sift_up(std::uint32_t pos);
  void heap_sift_down(std::uint32_t pos);
  void heap_remove(std::uint32_t pos);
  // Invariant (checked in debug and sanitizer builds): in the solved components no link carries more than
  // its capacity and every variable was given a positive rate.
  void check_solution() const;

  std::vector<Link> links_;
  std::vector<Route> routes_;
  std::vector<RouteId> free_routes_;
  std::vector<RouteId> route_index_;  // size a power of two, at most half full
  std::size_t indexed_routes_ = 0;
  std::vector<Variable> vars_;
  std::vector<MaxMinVariable> free_vars_;
  std::vector<MaxMinVariable> added_;  // since the last solve
  std::vector<MaxMinVariable> last_added_;  // those the last solve settled
  std::vector<MaxMinLink> dirty_links_;
  std::vector<MaxMinLink> component_links_;
  std::vector<RouteId> component_routes_;
  std::size_t component_variables_ = 0;
  std::vector<MaxMinRoute> changed_routes_;
  std::vector<MaxMinVariable> changed_;
  std::size_t scan_links_;
  std::vector<MaxMinLink> heap_;
  std::vector<MaxMinLink> active_;  // scan: links with unfixed routes
  std::vector<MaxMinLink> touched_;
  std::uint64_t epoch_ = 0;
};

}  // namespace k3::net
