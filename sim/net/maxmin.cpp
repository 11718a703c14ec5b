#include "sim/net/maxmin.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace k3::net {

namespace {

// An index into `items` to (re)use: the last one freed, else a new element at the end.
template <typename T>
std::uint32_t take_slot(std::vector<T>& items, std::vector<std::uint32_t>& freed) {
  if (freed.empty()) {
    items.emplace_back();
    return static_cast<std::uint32_t>(items.size() - 1);
  }
  const std::uint32_t id = freed.back();
  freed.pop_back();
  return id;
}

}  // namespace

std::uint64_t MaxMinSystem::route_hash(std::span<const MaxMinLink> links) {
  // FNV-1a over the link ids, then MurmurHash3's finalizer: the table takes the low bits.
  std::uint64_t h = 1469598103934665603ull;
  for (MaxMinLink l : links) {
    h ^= l;
    h *= 1099511628211ull;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

std::size_t MaxMinSystem::index_place(std::span<const MaxMinLink> links, std::uint64_t hash) const {
  const std::size_t mask = route_index_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const RouteId id = route_index_[i];
    if (id == kNoRoute) return i;
    if (routes_[id].hash == hash && std::ranges::equal(routes_[id].links, links)) return i;
  }
}

void MaxMinSystem::index_insert(RouteId route) {
  if (2 * (indexed_routes_ + 1) > route_index_.size()) {
    // Doubled (from 64 places) and every route placed again.
    std::vector<RouteId> old(std::max<std::size_t>(64, 2 * route_index_.size()), kNoRoute);
    old.swap(route_index_);
    for (RouteId id : old) {
      if (id != kNoRoute) route_index_[index_place(routes_[id].links, routes_[id].hash)] = id;
    }
  }
  route_index_[index_place(routes_[route].links, routes_[route].hash)] = route;
  ++indexed_routes_;
}

void MaxMinSystem::index_erase(RouteId route) {
  // Backward-shift deletion: the entries after the hole that probed past it move into it, so every probe
  // still reaches its route without tombstones.
  const std::size_t mask = route_index_.size() - 1;
  std::size_t hole = index_place(routes_[route].links, routes_[route].hash);
  for (std::size_t j = (hole + 1) & mask; route_index_[j] != kNoRoute; j = (j + 1) & mask) {
    const std::size_t home = routes_[route_index_[j]].hash & mask;
    // The entry at j stays when its home lies cyclically in (hole, j].
    const bool stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!stays) {
      route_index_[hole] = route_index_[j];
      hole = j;
    }
  }
  route_index_[hole] = kNoRoute;
  --indexed_routes_;
}

MaxMinLink MaxMinSystem::add_link(core::BytesPerSec capacity) {
  K3SIM_ASSERT(capacity > 0, "link capacity must be positive");
  links_.emplace_back();
  links_.back().capacity = capacity;
  return static_cast<MaxMinLink>(links_.size() - 1);
}

void MaxMinSystem::mark_dirty(MaxMinLink link) {
  if (!links_[link].dirty) {
    links_[link].dirty = true;
    dirty_links_.push_back(link);
  }
}

MaxMinSystem::RouteId MaxMinSystem::route_for(std::span<const MaxMinLink> links) {
  const std::uint64_t hash = route_hash(links);
  if (!route_index_.empty()) {
    const RouteId found = route_index_[index_place(links, hash)];
    if (found != kNoRoute) return found;
  }
  const RouteId id = take_slot(routes_, free_routes_);
  Route& r = routes_[id];
  r.links.assign(links.begin(), links.end());
  r.hash = hash;
  r.slot.resize(links.size());
  r.weight = 0;
  r.level = 0;
  for (std::uint32_t i = 0; i < r.links.size(); ++i) {
    const MaxMinLink l = r.links[i];
    K3SIM_ASSERT(l < links_.size(), "max-min variable crosses an unknown link");
    r.slot[i] = static_cast<std::uint32_t>(links_[l].incidences.size());
    links_[l].incidences.push_back(Incidence{id, i});
  }
  index_insert(id);
  return id;
}

void MaxMinSystem::drop_route(RouteId id) {
  index_erase(id);
  Route& r = routes_[id];
  for (std::uint32_t i = 0; i < r.links.size(); ++i) {
    Link& link = links_[r.links[i]];
    const std::uint32_t at = r.slot[i];
    const Incidence moved = link.incidences.back();
    link.incidences[at] = moved;
    routes_[moved.route].slot[moved.position] = at;
    link.incidences.pop_back();
  }
  r.links.clear();
  r.slot.clear();
  free_routes_.push_back(id);
}

MaxMinVariable MaxMinSystem::add_variable(std::span<const MaxMinLink> links, double weight) {
  K3SIM_ASSERT(!links.empty(), "a max-min variable must cross at least one link");
  K3SIM_ASSERT(weight > 0, "a max-min variable needs a positive weight");
  const MaxMinVariable id = take_slot(vars_, free_vars_);
  const RouteId route = route_for(links);
  Route& r = routes_[route];
  Variable& v = vars_[id];
  v.route = route;
  v.member_index = static_cast<std::uint32_t>(r.members.size());
  v.weight = weight;
  v.alive = true;
  v.solved = false;
  r.members.push_back(id);
  r.weight += weight;
  added_.push_back(id);
  for (MaxMinLink l : r.links) mark_dirty(l);
  return id;
}

void MaxMinSystem::remove_variable(MaxMinVariable id) {
  K3SIM_ASSERT(alive(id), "removing a dead max-min variable");
  Variable& v = vars_[id];
  Route& r = routes_[v.route];
  const MaxMinVariable moved = r.members.back();
  r.members[v.member_index] = moved;
  vars_[moved].member_index = v.member_index;
  r.members.pop_back();
  r.weight -= v.weight;
  for (MaxMinLink l : r.links) mark_dirty(l);
  if (r.members.empty()) drop_route(v.route);
  v.alive = false;
  free_vars_.push_back(id);
}

void MaxMinSystem::collect_components() {
  ++epoch_;
  component_links_.clear();
  component_routes_.clear();
  component_variables_ = 0;
  for (MaxMinLink l : dirty_links_) {
    links_[l].dirty = false;
    if (links_[l].mark != epoch_) {
      links_[l].mark = epoch_;
      component_links_.push_back(l);
    }
  }
  dirty_links_.clear();
  // Breadth-first over the bipartite link/route graph; component_links_ doubles as the queue. Each link is
  // set up for filling as it is visited (its capacity, its routes' weight summed in incidence order): one walk
  // over the incidences instead of two.
  for (std::size_t head = 0; head < component_links_.size(); ++head) {
    Link& link = links_[component_links_[head]];
    double weight = 0;
    for (const Incidence& inc : link.incidences) {
      Route& r = routes_[inc.route];
      weight += r.weight;
      if (r.mark == epoch_) continue;
      r.mark = epoch_;
      r.fixed = false;
      component_routes_.push_back(inc.route);
      component_variables_ += r.members.size();
      for (MaxMinLink l : r.links) {
        if (links_[l].mark != epoch_) {
          links_[l].mark = epoch_;
          component_links_.push_back(l);
        }
      }
    }
    link.remaining = link.capacity;
    link.unfixed_weight = weight;
    link.unfixed_count = static_cast<std::uint32_t>(link.incidences.size());
    if (link.unfixed_count > 0) link.share = link.remaining / link.unfixed_weight;
  }
}

void MaxMinSystem::fill() {
  // collect_components() set the links up.
  if (component_links_.size() <= scan_links_) {
    fill_by_scan();
  } else {
    fill_by_heap();
  }
}

// Every unfixed route on the bottleneck gets the level; the links they cross lose that capacity and are
// listed in touched_.
void MaxMinSystem::fix_bottleneck(MaxMinLink bottleneck, double level) {
  for (const Incidence& inc : links_[bottleneck].incidences) {
    Route& r = routes_[inc.route];
    if (r.fixed) continue;
    r.fixed = true;
    r.level_changed = level != r.level;
    r.level = level;
    const double rate = level * r.weight;
    for (MaxMinLink l : r.links) {
      Link& other = links_[l];
      other.remaining = std::max(0.0, other.remaining - rate);
      other.unfixed_weight -= r.weight;
      --other.unfixed_count;
      if (!other.touched) {
        other.touched = true;
        touched_.push_back(l);
      }
    }
  }
}

void MaxMinSystem::fill_by_scan() {
  active_.clear();
  for (MaxMinLink l : component_links_) {
    Link& link = links_[l];
    if (link.unfixed_count > 0) active_.push_back(l);
  }
  while (!active_.empty()) {
    MaxMinLink bottleneck = active_.front();
    for (MaxMinLink l : active_) {
      const double share = links_[l].share, best = links_[bottleneck].share;
      if (share < best || (share == best && l < bottleneck)) bottleneck = l;
    }
    fix_bottleneck(bottleneck, links_[bottleneck].share);
    for (MaxMinLink l : touched_) {
      Link& other = links_[l];
      other.touched = false;
      if (other.unfixed_count > 0) other.share = other.remaining / other.unfixed_weight;
    }
    touched_.clear();
    std::erase_if(active_, [&](MaxMinLink l) { return links_[l].unfixed_count == 0; });
  }
}

void MaxMinSystem::heap_place(std::uint32_t pos, MaxMinLink link) {
  heap_[pos] = link;
  links_[link].heap_pos = pos;
}

void MaxMinSystem::heap_sift_up(std::uint32_t pos) {
  const MaxMinLink link = heap_[pos];
  while (pos > 0) {
    const std::uint32_t parent = (pos - 1) / 2;
    if (!heap_before(link, heap_[parent])) break;
    heap_place(pos, heap_[parent]);
    pos = parent;
  }
  heap_place(pos, link);
}

void MaxMinSystem::heap_sift_down(std::uint32_t pos) {
  const MaxMinLink link = heap_[pos];
  const auto n = static_cast<std::uint32_t>(heap_.size());
  for (;;) {
    std::uint32_t child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n && heap_before(heap_[child + 1], heap_[child])) ++child;
    if (!heap_before(heap_[child], link)) break;
    heap_place(pos, heap_[child]);
    pos = child;
  }
  heap_place(pos, link);
}

void MaxMinSystem::heap_remove(std::uint32_t pos) {
  const MaxMinLink last = heap_.back();
  heap_.pop_back();
  if (pos == heap_.size()) return;
  heap_place(pos, last);
  heap_sift_up(pos);
  heap_sift_down(links_[last].heap_pos);
}

void MaxMinSystem::fill_by_heap() {
  // Keys are lazy: a touched link whose share rose keeps its old key, a lower bound, until it reaches the top,
  // where it is re-keyed and sunk. A link is touched by every route fixed across it and most leave before
  // reaching the top, so sifting each at every touch was a fifth of a K3 flow run. A share that fell (by
  // rounding: fixing routes at the lowest share never lowers another's in exact arithmetic) is re-keyed at
  // once, so every key stays at most its link's share and a top whose key is its share is the least
  // (share, id): the bottlenecks, their order and the rates are those of eager keys.
  heap_.clear();
  for (MaxMinLink l : component_links_) {
    Link& link = links_[l];
    if (link.unfixed_count > 0) {
      link.heap_share = link.share;
      link.heap_pos = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back(l);
    }
  }
  for (auto pos = static_cast<std::uint32_t>(heap_.size() / 2); pos-- > 0;) heap_sift_down(pos);
  while (!heap_.empty()) {
    const MaxMinLink bottleneck = heap_.front();
    Link& top = links_[bottleneck];
    if (top.share > top.heap_share) {
      top.heap_share = top.share;
      heap_sift_down(0);
      continue;
    }
    fix_bottleneck(bottleneck, top.share);  // leaves it with no unfixed route
    // Touched links with unfixed routes get their new share; those left with none leave (the bottleneck
    // among them).
    for (MaxMinLink l : touched_) {
      Link& other = links_[l];
      other.touched = false;
      if (other.unfixed_count > 0) {
        other.share = other.remaining / other.unfixed_weight;
        if (other.share < other.heap_share) {
          other.heap_share = other.share;
          heap_sift_up(other.heap_pos);
        }
      } else {
        heap_remove(other.heap_pos);
      }
    }
    touched_.clear();
  }
}

const std::vector<MaxMinRoute>& MaxMinSystem::solve_routes() {
  changed_routes_.clear();
  last_added_.clear();
  if (dirty_links_.empty()) return changed_routes_;
  collect_components();
  fill();
  for (RouteId r : component_routes_) {
    if (routes_[r].level_changed) changed_routes_.push_back(r);
  }
  for (MaxMinVariable id : added_) vars_[id].solved = true;
  last_added_.swap(added_);
  added_.clear();
#ifdef K3SIM_CHECK_INVARIANTS
  check_solution();
#endif
  return changed_routes_;
}

const std::vector<MaxMinVariable>& MaxMinSystem::solve() {
  solve_routes();
  changed_.clear();
  // A level change moves every member (weights are positive); a variable added to a route whose level held
  // goes from 0 to its first rate.
  const auto report = [&](MaxMinVariable id) {
    Variable& v = vars_[id];
    if (v.reported != epoch_) {
      v.reported = epoch_;
      changed_.push_back(id);
    }
  };
  for (RouteId r : changed_routes_) {
    for (MaxMinVariable id : routes_[r].members) report(id);
  }
  for (MaxMinVariable id : last_added_) {
    if (vars_[id].alive) report(id);
  }
  return changed_;
}

void MaxMinSystem::check_solution() const {
  for (RouteId r : component_routes_) {
    K3SIM_ASSERT(routes_[r].fixed && routes_[r].level > 0, "max-min left a route without a positive rate");
  }
  for (MaxMinLink l : component_links_) {
    double load = 0;
    for (const Incidence& inc : links_[l].incidences) load += routes_[inc.route].level * routes_[inc.route].weight;
    // Relative slack for the rounding of progressive filling's subtractions.
    K3SIM_ASSERT(load <= links_[l].capacity * (1 + 1e-9), "max-min rates exceed a link's capacity");
  }
}

}  // namespace k3::net
