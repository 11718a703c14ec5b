// Max-min fair sharing, cases derived by hand (each comment is the derivation, then the assertion).
#include "sim/net/maxmin.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <vector>

using k3::net::MaxMinLink;
using k3::net::MaxMinSystem;

TEST(MaxMin, SharedBottleneckSplitsEqually) {
  // Two access links of 10 B/s feed one shared link of 10 B/s. Both flows cross the shared link, whose
  // share is 10 / 2 = 5 < 10 (the access links' share): each flow gets 5.
  MaxMinSystem s;
  const MaxMinLink a = s.add_link(10), b = s.add_link(10), shared = s.add_link(10);
  const auto f0 = s.add_variable(std::vector<MaxMinLink>{a, shared});
  const auto f1 = s.add_variable(std::vector<MaxMinLink>{b, shared});
  s.solve();
  EXPECT_DOUBLE_EQ(s.rate(f0), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(f1), 5.0);
}

TEST(MaxMin, BottleneckOnTheSecondHop) {
  // Flow A crosses L0 (100 B/s) then L1 (4 B/s); flow B crosses only L0. Shares: L0 100/2 = 50, L1 4/1 = 4.
  // L1 saturates first: A = 4. L0 then has 100 - 4 = 96 for B alone: B = 96.
  MaxMinSystem s;
  const MaxMinLink l0 = s.add_link(100), l1 = s.add_link(4);
  const auto fa = s.add_variable(std::vector<MaxMinLink>{l0, l1});
  const auto fb = s.add_variable(std::vector<MaxMinLink>{l0});
  s.solve();
  EXPECT_DOUBLE_EQ(s.rate(fa), 4.0);
  EXPECT_DOUBLE_EQ(s.rate(fb), 96.0);
}

TEST(MaxMin, FlowsOfUnequalRoutes) {
  // Link a = 1 B/s, link b = 2 B/s. f0 crosses a and b, f1 only a, f2 only b.
  // Shares: a 1/2 = 0.5, b 2/2 = 1. a saturates first: f0 = f1 = 0.5. b keeps 2 - 0.5 = 1.5 for f2.
  MaxMinSystem s;
  const MaxMinLink a = s.add_link(1), b = s.add_link(2);
  const auto f0 = s.add_variable(std::vector<MaxMinLink>{a, b});
  const auto f1 = s.add_variable(std::vector<MaxMinLink>{a});
  const auto f2 = s.add_variable(std::vector<MaxMinLink>{b});
  s.solve();
  EXPECT_DOUBLE_EQ(s.rate(f0), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(f1), 0.5);
  EXPECT_DOUBLE_EQ(s.rate(f2), 1.5);
}

TEST(MaxMin, ParkingLotChain) {
  // Three links of 6 B/s in a chain; the long flow crosses all three, one short flow per link.
  // Every link has 2 flows: share 3 everywhere, all saturate at level 3: every flow gets 3.
  MaxMinSystem s;
  const MaxMinLink l0 = s.add_link(6), l1 = s.add_link(6), l2 = s.add_link(6);
  const auto lng = s.add_variable(std::vector<MaxMinLink>{l0, l1, l2});
  const auto s0 = s.add_variable(std::vector<MaxMinLink>{l0});
  const auto s1 = s.add_variable(std::vector<MaxMinLink>{l1});
  const auto s2 = s.add_variable(std::vector<MaxMinLink>{l2});
  s.solve();
  for (auto v : {lng, s0, s1, s2}) EXPECT_DOUBLE_EQ(s.rate(v), 3.0);
}

TEST(MaxMin, RemovingAFlowSpeedsUpTheOthers) {
  // Three flows on one 9 B/s link: 3 each. Remove one: the two left get 9 / 2 = 4.5.
  MaxMinSystem s;
  const MaxMinLink l = s.add_link(9);
  const auto f0 = s.add_variable(std::vector<MaxMinLink>{l});
  const auto f1 = s.add_variable(std::vector<MaxMinLink>{l});
  const auto f2 = s.add_variable(std::vector<MaxMinLink>{l});
  s.solve();
  EXPECT_DOUBLE_EQ(s.rate(f0), 3.0);
  s.remove_variable(f1);
  const auto changed = s.solve();
  EXPECT_EQ(changed.size(), 2u);
  EXPECT_DOUBLE_EQ(s.rate(f0), 4.5);
  EXPECT_DOUBLE_EQ(s.rate(f2), 4.5);
}

TEST(MaxMin, WeightsSplitABottleneckProportionally) {
  // Weights 1 and 3 on an 8 B/s link: level = 8 / (1 + 3) = 2, rates 2 and 6.
  MaxMinSystem s;
  const MaxMinLink l = s.add_link(8);
  const auto light = s.add_variable(std::vector<MaxMinLink>{l}, 1.0);
  const auto heavy = s.add_variable(std::vector<MaxMinLink>{l}, 3.0);
  s.solve();
  EXPECT_DOUBLE_EQ(s.rate(light), 2.0);
  EXPECT_DOUBLE_EQ(s.rate(heavy), 6.0);
}

TEST(MaxMin, ResolveTouchesOnlyTheChangedComponent) {
  // Component 1: link p (4 B/s) with 2 flows -> 2 each. Component 2: link q (10 B/s) with 1 flow -> 10.
  // Adding a flow on q re-solves q's component only: 2 variables, q's flows get 5, p's keep 2.
  MaxMinSystem s;
  const MaxMinLink p = s.add_link(4), q = s.add_link(10);
  const auto p0 = s.add_variable(std::vector<MaxMinLink>{p});
  const auto p1 = s.add_variable(std::vector<MaxMinLink>{p});
  const auto q0 = s.add_variable(std::vector<MaxMinLink>{q});
  s.solve();
  EXPECT_EQ(s.last_component_variables(), 3u);
  const auto q1 = s.add_variable(std::vector<MaxMinLink>{q});
  const auto changed = s.solve();
  EXPECT_EQ(s.last_component_variables(), 2u);
  EXPECT_EQ(changed.size(), 2u);
  EXPECT_DOUBLE_EQ(s.rate(q0), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(q1), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(p0), 2.0);
  EXPECT_DOUBLE_EQ(s.rate(p1), 2.0);
  EXPECT_FALSE(s.dirty());
}

TEST(MaxMin, FlowsOnOneRouteAreSolvedAsOneAndEachGetsItsShare) {
  // Link a = 12 B/s, link b = 6 B/s. f0 (weight 1) and f1 (weight 2) both cross a then b; f2 crosses a only.
  // Shares: a 12 / (1 + 2 + 1) = 3, b 6 / (1 + 2) = 2. b saturates first at level 2: f0 = 2, f1 = 4.
  // a keeps 12 - 6 = 6 for f2 alone: f2 = 6.
  MaxMinSystem s;
  const MaxMinLink a = s.add_link(12), b = s.add_link(6);
  const auto f0 = s.add_variable(std::vector<MaxMinLink>{a, b}, 1.0);
  const auto f1 = s.add_variable(std::vector<MaxMinLink>{a, b}, 2.0);
  const auto f2 = s.add_variable(std::vector<MaxMinLink>{a});
  s.solve();
  EXPECT_EQ(s.last_component_variables(), 3u);
  EXPECT_DOUBLE_EQ(s.rate(f0), 2.0);
  EXPECT_DOUBLE_EQ(s.rate(f1), 4.0);
  EXPECT_DOUBLE_EQ(s.rate(f2), 6.0);
  // f1 leaves: b's share is 6 / 1 = 6, a's (12 / 2) = 6 too; both saturate at level 6: f0 = f2 = 6.
  s.remove_variable(f1);
  s.solve();
  EXPECT_DOUBLE_EQ(s.rate(f0), 6.0);
  EXPECT_DOUBLE_EQ(s.rate(f2), 6.0);
  std::vector<k3::net::MaxMinVariable> on_b;
  s.for_each_variable_on(b, [&](k3::net::MaxMinVariable v) { on_b.push_back(v); });
  EXPECT_EQ(on_b, std::vector<k3::net::MaxMinVariable>{f0});
}

TEST(MaxMin, AFlowReplacingAnotherOnItsRouteIsReportedWithItsRate) {
  // Two flows on one 10 B/s link: 5 each. At one instant f0 finishes and f2 starts on the same link: the route
  // keeps weight 2 and level 5, so f1's rate holds and only f2, new at 5, is reported.
  MaxMinSystem s;
  const MaxMinLink l = s.add_link(10);
  const auto f0 = s.add_variable(std::vector<MaxMinLink>{l});
  const auto f1 = s.add_variable(std::vector<MaxMinLink>{l});
  s.solve();
  s.remove_variable(f0);
  const auto f2 = s.add_variable(std::vector<MaxMinLink>{l});
  const auto changed = s.solve();
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0], f2);
  EXPECT_DOUBLE_EQ(s.rate(f1), 5.0);
  EXPECT_DOUBLE_EQ(s.rate(f2), 5.0);
}

TEST(MaxMin, SolveRoutesReportsNewRoutesAndLevelChangesOnly) {
  // Link l: 12 B/s. Route {l} gets f0, f1, f2: level 12 / 3 = 4, one new route reported. f0 leaves and f3
  // joins: weight and level hold (4), nothing reported, f3 has rate 4. f1 leaves: level 12 / 2 = 6, reported.
  // f2 and f3 leave: the route is dropped, and a route over {m} created next takes its id and is reported.
  MaxMinSystem s;
  const MaxMinLink l = s.add_link(12), m = s.add_link(5);
  const auto f0 = s.add_variable(std::vector<MaxMinLink>{l});
  const auto f1 = s.add_variable(std::vector<MaxMinLink>{l});
  const auto f2 = s.add_variable(std::vector<MaxMinLink>{l});
  const auto route = s.route_of(f0);
  EXPECT_EQ(s.route_of(f2), route);
  EXPECT_DOUBLE_EQ(s.level(route), 0.0);
  EXPECT_EQ(s.solve_routes(), std::vector<k3::net::MaxMinRoute>{route});
  EXPECT_DOUBLE_EQ(s.level(route), 4.0);
  s.remove_variable(f0);
  const auto f3 = s.add_variable(std::vector<MaxMinLink>{l});
  EXPECT_DOUBLE_EQ(s.rate(f3), 0.0);  // not solved yet
  EXPECT_TRUE(s.solve_routes().empty());
  EXPECT_DOUBLE_EQ(s.rate(f3), 4.0);
  s.remove_variable(f1);
  EXPECT_EQ(s.solve_routes(), std::vector<k3::net::MaxMinRoute>{route});
  EXPECT_DOUBLE_EQ(s.level(route), 6.0);
  s.remove_variable(f2);
  s.remove_variable(f3);
  EXPECT_DOUBLE_EQ(s.rate(f3), 0.0);
  const auto g = s.add_variable(std::vector<MaxMinLink>{m});
  EXPECT_EQ(s.route_of(g), route);
  EXPECT_EQ(s.solve_routes(), std::vector<k3::net::MaxMinRoute>{route});
  EXPECT_DOUBLE_EQ(s.rate(g), 5.0);
}

namespace {

// Progressive filling one variable at a time, with no grouping and no incremental state: the definition the
// system is checked against.
std::vector<double> reference_max_min(const std::vector<double>& capacity, const std::vector<std::vector<MaxMinLink>>& routes,
                                      const std::vector<double>& weight) {
  std::vector<double> rate(routes.size(), 0), remaining = capacity;
  std::vector<bool> fixed(routes.size(), false);
  for (;;) {
    double level = std::numeric_limits<double>::infinity();
    std::size_t bottleneck = capacity.size();
    for (std::size_t l = 0; l < capacity.size(); ++l) {
      double w = 0;
      for (std::size_t v = 0; v < routes.size(); ++v) {
        if (!fixed[v] && std::ranges::find(routes[v], static_cast<MaxMinLink>(l)) != routes[v].end()) w += weight[v];
      }
      if (w > 0 && remaining[l] / w < level) {
        level = remaining[l] / w;
        bottleneck = l;
      }
    }
    if (bottleneck == capacity.size()) return rate;
    for (std::size_t v = 0; v < routes.size(); ++v) {
      if (fixed[v] || std::ranges::find(routes[v], static_cast<MaxMinLink>(bottleneck)) == routes[v].end()) continue;
      fixed[v] = true;
      rate[v] = level * weight[v];
      for (MaxMinLink l : routes[v]) remaining[l] -= rate[v];
    }
  }
}

// `count` links of 1 to `max_capacity` B/s (whole numbers), the same in both systems; their capacities.
std::vector<double> add_random_links(std::mt19937_64& rng, int count, int max_capacity, MaxMinSystem& scan,
                                     MaxMinSystem& heap) {
  std::vector<double> capacity;
  for (int l = 0; l < count; ++l) {
    capacity.push_back(1.0 + static_cast<double>(rng() % static_cast<std::uint64_t>(max_capacity)));
    scan.add_link(capacity.back());
    heap.add_link(capacity.back());
  }
  return capacity;
}

// Removes live variable i from both systems, and its entry from `live` and each list kept beside it.
template <typename... Lists>
void remove_live(std::size_t i, MaxMinSystem& scan, MaxMinSystem& heap, std::vector<k3::net::MaxMinVariable>& live,
                 Lists&... lists) {
  scan.remove_variable(live[i]);
  heap.remove_variable(live[i]);
  live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
  (lists.erase(lists.begin() + static_cast<std::ptrdiff_t>(i)), ...);
}

}  // namespace

TEST(MaxMin, AgreesWithPlainProgressiveFillingOnRandomSystemsWithSharedRoutes) {
  // Random systems where most flows repeat one of a few routes (as an all-to-all's chunks do), changed and
  // re-solved incrementally: every rate matches the one-variable-at-a-time definition to rounding, and the
  // scan and the heap (a system that scans no component) give the same rates to the bit.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    MaxMinSystem scan, heap(0);
    const auto capacity = add_random_links(rng, 6, 20, scan, heap);
    std::vector<std::vector<MaxMinLink>> route_pool;
    for (int r = 0; r < 4; ++r) {
      std::vector<MaxMinLink> route;
      for (MaxMinLink l = 0; l < 6; ++l) {
        if (rng() % 3 == 0) route.push_back(l);
      }
      if (route.empty()) route.push_back(static_cast<MaxMinLink>(rng() % 6));
      route_pool.push_back(route);
    }
    std::vector<k3::net::MaxMinVariable> live;  // the same ids in both systems (same operations)
    std::vector<std::vector<MaxMinLink>> live_routes;
    std::vector<double> live_weights;
    for (int step = 0; step < 12; ++step) {
      if (!live.empty() && rng() % 3 == 0) {
        remove_live(rng() % live.size(), scan, heap, live, live_routes, live_weights);
      } else {
        const auto& route = route_pool[rng() % route_pool.size()];
        const double w = 1.0 + static_cast<double>(rng() % 3);
        live.push_back(scan.add_variable(route, w));
        ASSERT_EQ(heap.add_variable(route, w), live.back());
        live_routes.push_back(route);
        live_weights.push_back(w);
      }
      scan.solve();
      heap.solve();
      const auto expected = reference_max_min(capacity, live_routes, live_weights);
      for (std::size_t i = 0; i < live.size(); ++i) {
        EXPECT_NEAR(scan.rate(live[i]), expected[i], 1e-9 * expected[i]) << "trial " << trial << " step " << step;
        EXPECT_EQ(scan.rate(live[i]), heap.rate(live[i])) << "trial " << trial << " step " << step;
      }
    }
  }
}

TEST(MaxMin, LargerSystemsUnderChurnKeepRoutesFoundAndScanAndHeapEqual) {
  // 40 links and a pool of 150 routes, 600 adds and removes keeping ~100 variables live: routes are created
  // and dropped all along (the route table grows past its first 64 places and deletes shift entries back).
  // Every variable added on the links of a live one joins that one's route, scan and heap (a system that scans
  // no component: its keys are lazy) give the same rates to the bit, and every 25 steps the rates match the
  // one-variable-at-a-time definition to rounding.
  std::mt19937_64 rng(11);
  constexpr int kLinks = 40;
  MaxMinSystem scan, heap(0);
  const auto capacity = add_random_links(rng, kLinks, 50, scan, heap);
  std::vector<std::vector<MaxMinLink>> route_pool;
  for (int r = 0; r < 150; ++r) {
    std::vector<MaxMinLink> route;
    const std::size_t hops = 1 + rng() % 5;
    while (route.size() < hops) {
      const auto l = static_cast<MaxMinLink>(rng() % kLinks);
      if (std::ranges::find(route, l) == route.end()) route.push_back(l);
    }
    route_pool.push_back(route);
  }
  std::vector<k3::net::MaxMinVariable> live;
  std::vector<std::size_t> live_pool;  // the pool index of each live variable's route
  std::vector<double> live_weights;
  for (int step = 0; step < 600; ++step) {
    if (!live.empty() && (live.size() > 120 || rng() % 5 < 2)) {
      remove_live(rng() % live.size(), scan, heap, live, live_pool, live_weights);
    } else {
      const std::size_t p = rng() % route_pool.size();
      const double w = 1.0 + static_cast<double>(rng() % 3);
      const auto v = scan.add_variable(route_pool[p], w);
      ASSERT_EQ(heap.add_variable(route_pool[p], w), v);
      for (std::size_t i = 0; i < live.size(); ++i) {
        if (route_pool[live_pool[i]] == route_pool[p]) {
          ASSERT_EQ(scan.route_of(v), scan.route_of(live[i])) << "step " << step;
        }
      }
      live.push_back(v);
      live_pool.push_back(p);
      live_weights.push_back(w);
    }
    scan.solve();
    heap.solve();
    for (auto v : live) ASSERT_EQ(scan.rate(v), heap.rate(v)) << "step " << step;
    if (step % 25 != 24) continue;
    std::vector<std::vector<MaxMinLink>> routes;
    for (std::size_t p : live_pool) routes.push_back(route_pool[p]);
    const auto expected = reference_max_min(capacity, routes, live_weights);
    for (std::size_t i = 0; i < live.size(); ++i) {
      EXPECT_NEAR(scan.rate(live[i]), expected[i], 1e-9 * expected[i]) << "step " << step;
    }
  }
}
