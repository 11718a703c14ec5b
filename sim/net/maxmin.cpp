#include "sim/net/maxmin.hpp"

#include <algorithm>

#include "core/error.hpp"

namespace k3::net {

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

MaxMinVariable MaxMinSystem::add_variable(std::span<const MaxMinLink> links, double weight) {
  K3SIM_ASSERT(!links.empty(), "a max-min variable must cross at least one link");
  K3SIM_ASSERT(weight > 0, "a max-min variable needs a positive weight");
  MaxMinVariable id;
  if (free_vars_.empty()) {
    id = static_cast<MaxMinVariable>(vars_.size());
    vars_.emplace_back();
  } else {
    id = free_vars_.back();
    free_vars_.pop_back();
  }
  Variable& v = vars_[id];
  v.links.assign(links.begin(), links.end());
  v.slot.resize(links.size());
  v.weight = weight;
  v.rate = 0;
  v.alive = true;
  for (std::uint32_t i = 0; i < v.links.size(); ++i) {
    const MaxMinLink l = v.links[i];
    K3SIM_ASSERT(l < links_.size(), "max-min variable crosses an unknown link");
    v.slot[i] = static_cast<std::uint32_t>(links_[l].incidences.size());
    links_[l].incidences.push_back(Incidence{id, i});
    mark_dirty(l);
  }
  return id;
}

void MaxMinSystem::remove_variable(MaxMinVariable id) {
  K3SIM_ASSERT(alive(id), "removing a dead max-min variable");
  Variable& v = vars_[id];
  for (std::uint32_t i = 0; i < v.links.size(); ++i) {
    Link& link = links_[v.links[i]];
    const std::uint32_t at = v.slot[i];
    const Incidence moved = link.incidences.back();
    link.incidences[at] = moved;
    vars_[moved.var].slot[moved.position] = at;
    link.incidences.pop_back();
    mark_dirty(v.links[i]);
  }
  v.alive = false;
  v.rate = 0;
  v.links.clear();
  v.slot.clear();
  free_vars_.push_back(id);
}

void MaxMinSystem::collect_components() {
  ++epoch_;
  component_links_.clear();
  component_vars_.clear();
  for (MaxMinLink l : dirty_links_) {
    links_[l].dirty = false;
    if (links_[l].mark != epoch_) {
      links_[l].mark = epoch_;
      component_links_.push_back(l);
    }
  }
  dirty_links_.clear();
  // Breadth-first over the bipartite link/variable graph; component_links_ doubles as the queue.
  for (std::size_t head = 0; head < component_links_.size(); ++head) {
    for (const Incidence& inc : links_[component_links_[head]].incidences) {
      Variable& v = vars_[inc.var];
      if (v.mark == epoch_) continue;
      v.mark = epoch_;
      component_vars_.push_back(inc.var);
      for (MaxMinLink l : v.links) {
        if (links_[l].mark != epoch_) {
          links_[l].mark = epoch_;
          component_links_.push_back(l);
        }
      }
    }
  }
}

void MaxMinSystem::fill() {
  const auto heap_after = [](const Share& a, const Share& b) {
    return a.level > b.level || (a.level == b.level && a.link > b.link);
  };
  heap_.clear();
  for (MaxMinLink l : component_links_) {
    Link& link = links_[l];
    link.remaining = link.capacity;
    link.unfixed_weight = 0;
    link.unfixed_count = static_cast<std::uint32_t>(link.incidences.size());
    for (const Incidence& inc : link.incidences) link.unfixed_weight += vars_[inc.var].weight;
    ++link.version;
    if (link.unfixed_count > 0) heap_.push_back(Share{link.remaining / link.unfixed_weight, l, link.version});
  }
  for (MaxMinVariable v : component_vars_) vars_[v].fixed = false;
  std::make_heap(heap_.begin(), heap_.end(), heap_after);

  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), heap_after);
    const Share top = heap_.back();
    heap_.pop_back();
    Link& bottleneck = links_[top.link];
    if (top.version != bottleneck.version || bottleneck.unfixed_count == 0) continue;
    // Every unfixed variable on the bottleneck gets the level; the links they cross lose that capacity.
    for (const Incidence& inc : bottleneck.incidences) {
      Variable& v = vars_[inc.var];
      if (v.fixed) continue;
      v.fixed = true;
      v.new_rate = top.level * v.weight;
      for (MaxMinLink l : v.links) {
        Link& other = links_[l];
        other.remaining = std::max(0.0, other.remaining - v.new_rate);
        other.unfixed_weight -= v.weight;
        --other.unfixed_count;
        if (!other.touched) {
          other.touched = true;
          touched_.push_back(l);
        }
      }
    }
    // One new share per touched link (not one per fixed variable): saturating a NIC shared by hundreds of
    // flows would otherwise push hundreds of entries for each link those flows cross.
    for (MaxMinLink l : touched_) {
      Link& other = links_[l];
      other.touched = false;
      ++other.version;
      if (other.unfixed_count > 0) {
        heap_.push_back(Share{other.remaining / other.unfixed_weight, l, other.version});
        std::push_heap(heap_.begin(), heap_.end(), heap_after);
      }
    }
    touched_.clear();
  }
}

const std::vector<MaxMinVariable>& MaxMinSystem::solve() {
  changed_.clear();
  if (dirty_links_.empty()) return changed_;
  collect_components();
  fill();
  for (MaxMinVariable id : component_vars_) {
    Variable& v = vars_[id];
    if (v.new_rate != v.rate) {
      v.rate = v.new_rate;
      changed_.push_back(id);
    }
  }
#ifdef K3SIM_CHECK_INVARIANTS
  check_solution();
#endif
  return changed_;
}

void MaxMinSystem::check_solution() const {
  for (MaxMinVariable id : component_vars_) {
    K3SIM_ASSERT(vars_[id].fixed && vars_[id].rate > 0, "max-min left a variable without a positive rate");
  }
  for (MaxMinLink l : component_links_) {
    double load = 0;
    for (const Incidence& inc : links_[l].incidences) load += vars_[inc.var].rate;
    // Relative slack for the rounding of progressive filling's subtractions.
    K3SIM_ASSERT(load <= links_[l].capacity * (1 + 1e-9), "max-min rates exceed a link's capacity");
  }
}

}  // namespace k3::net
