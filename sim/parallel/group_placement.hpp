#pragma once
// Where each kind of parallel group lands: how many NVLink domains (topology nodes: an 8-GPU server, or
// a 72-GPU NVL72 rack) one group of the kind spans. A group inside one domain talks over NVLink only; one
// spanning several crosses the scale-out fabric. What a planner checks first when a layout is slow.
#include <string>
#include <vector>

#include "sim/parallel/rank_mapping.hpp"

namespace k3::parallel {

struct GroupPlacement {
  std::string group;    // "TP", "CP", "DP x CP", "EP", "ETP", "EDP", "PP"
  int size = 1;         // GPUs in one group
  int min_domains = 1;  // NVLink domains the most compact group of the kind spans
  int max_domains = 1;  // ... and the most spread one
};

// Every kind of group with more than one member, over all groups of the kind.
std::vector<GroupPlacement> group_placement(const RankMapping& map);

}  // namespace k3::parallel
