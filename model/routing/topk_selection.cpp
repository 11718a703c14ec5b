#include "model/routing/topk_selection.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>
#include <numeric>

#include "core/error.hpp"

namespace k3::routing {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The `size` largest values seen so far, descending, with their indices. `size` is k + 1 (<= a few tens), so
// insertion into a short sorted array beats a heap; most candidates fail the first comparison.
class SmallTopList {
 public:
  explicit SmallTopList(int size) : size_(size), values_(static_cast<std::size_t>(size)), index_(values_.size()) {}
  void clear() {
    std::fill(values_.begin(), values_.end(), kNegInf);
    std::fill(index_.begin(), index_.end(), -1);
  }
  float threshold() const { return values_.back(); }
  void offer(float v, std::int32_t idx) {
    if (!(v > values_.back())) return;
    int pos = size_ - 1;
    while (pos > 0 && values_[static_cast<std::size_t>(pos - 1)] < v) {
      values_[static_cast<std::size_t>(pos)] = values_[static_cast<std::size_t>(pos - 1)];
      index_[static_cast<std::size_t>(pos)] = index_[static_cast<std::size_t>(pos - 1)];
      --pos;
    }
    values_[static_cast<std::size_t>(pos)] = v;
    index_[static_cast<std::size_t>(pos)] = idx;
  }
  float value(int i) const { return values_[static_cast<std::size_t>(i)]; }
  std::vector<float>& values() { return values_; }
  std::vector<std::int32_t>& indices() { return index_; }
  std::int32_t index(int i) const { return index_[static_cast<std::size_t>(i)]; }

 private:
  int size_;
  std::vector<float> values_;
  std::vector<std::int32_t> index_;
};

void prepare(RoutedBatch& out, int tokens, int top_k) {
  out.tokens = tokens;
  out.top_k = top_k;
  out.experts.resize(static_cast<std::size_t>(tokens) * top_k);
  out.gates.resize(out.experts.size());
  out.cutoff.resize(static_cast<std::size_t>(tokens));
}

// Writes token i's chosen experts, gates (bias removed) and cutoff from the top-(k+1) list.
void emit(const SmallTopList& top, const float* row, int token, int top_k, RoutedBatch& out) {
  const std::size_t base = static_cast<std::size_t>(token) * top_k;
  float sum = 0;
  for (int s = 0; s < top_k; ++s) {
    const std::int32_t e = top.index(s);
    out.experts[base + s] = e;
    const float score = row[e];
    out.gates[base + s] = score;
    sum += score;
  }
  const float inv = sum > 0 ? 1.0f / sum : 0.0f;
  for (int s = 0; s < top_k; ++s) out.gates[base + s] *= inv;
  out.cutoff[static_cast<std::size_t>(token)] = top.value(top_k);
}

}  // namespace

// Top-`count` of one token's biased scores without sorting all n of them. The row is viewed as a
// rows x kGroups table (column q = experts q, q + 32, ...); the column maxima are an elementwise max that
// vectorises. The count-th largest column maximum is a lower bound on the count-th largest value (count
// distinct columns each hold a value at least that large), so only the columns whose maximum reaches it can
// hold the answer; their few candidates are then partially sorted.
class TopSelector {
 public:
  static constexpr int kGroups = 32;
  TopSelector(int experts, int count)
      : n_(experts), count_(count), rows_((experts + kGroups - 1) / kGroups),
        padded_(static_cast<std::size_t>(rows_) * kGroups, kNegInf), column_max_(kGroups) {}

  static bool applicable(int experts, int count) { return count <= kGroups * 3 / 4 && experts >= 2 * kGroups; }

  // Fills `values`/`index` (size count) descending; ties broken by the lower expert index.
  void select(const float* row, std::span<const float> bias, std::vector<float>& values, std::vector<std::int32_t>& index) {
    float* p = padded_.data();
    for (int j = 0; j < n_; ++j) p[j] = row[j] + bias[static_cast<std::size_t>(j)];
    float* cmax = column_max_.data();
    for (int q = 0; q < kGroups; ++q) cmax[q] = p[q];
    for (int r = 1; r < rows_; ++r) {
      const float* line = p + static_cast<std::ptrdiff_t>(r) * kGroups;
      for (int q = 0; q < kGroups; ++q) cmax[q] = line[q] > cmax[q] ? line[q] : cmax[q];
    }
    // The count-th largest column maximum, by counting for each column how many are larger: branch-free and
    // vectorised, far cheaper than nth_element's mispredicted branches on 32 values.
    float bound = std::numeric_limits<float>::infinity();
    for (int q = 0; q < kGroups; ++q) {
      const float v = cmax[q];
      int larger = 0;
      for (int r = 0; r < kGroups; ++r) larger += cmax[r] > v ? 1 : 0;
      bound = (larger < count_ && v < bound) ? v : bound;
    }
    candidates_.clear();
    for (int q = 0; q < kGroups; ++q) {
      if (cmax[q] < bound) continue;
      for (int r = 0; r < rows_; ++r) {
        const int j = r * kGroups + q;
        if (j < n_ && p[j] >= bound) candidates_.emplace_back(p[j], j);
      }
    }
    auto before = [](const std::pair<float, std::int32_t>& a, const std::pair<float, std::int32_t>& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    };
    std::partial_sort(candidates_.begin(), candidates_.begin() + count_, candidates_.end(), before);
    for (int s = 0; s < count_; ++s) {
      values[static_cast<std::size_t>(s)] = candidates_[static_cast<std::size_t>(s)].first;
      index[static_cast<std::size_t>(s)] = candidates_[static_cast<std::size_t>(s)].second;
    }
  }

 private:
  int n_, count_, rows_;
  std::vector<float> padded_, column_max_;
  std::vector<std::pair<float, std::int32_t>> candidates_;
};

void route_topk(const ScoreMatrix& scores, std::span<const float> bias, int top_k, RoutedBatch& out) {
  const int tokens = static_cast<int>(scores.rows());
  const int n = static_cast<int>(scores.cols());
  K3SIM_ASSERT(static_cast<int>(bias.size()) == n, "bias size differs from the number of experts");
  K3SIM_ASSERT(top_k >= 1 && top_k <= n, "top_k outside [1, n]");
  prepare(out, tokens, top_k);
  SmallTopList top(top_k + 1);
  if (TopSelector::applicable(n, top_k + 1)) {
    TopSelector selector(n, top_k + 1);
    for (int i = 0; i < tokens; ++i) {
      const float* row = scores.data() + static_cast<std::ptrdiff_t>(i) * n;
      selector.select(row, bias, top.values(), top.indices());
      emit(top, row, i, top_k, out);
    }
    return;
  }
  // Few experts or large k: a single pass through a short sorted list.
  for (int i = 0; i < tokens; ++i) {
    const float* row = scores.data() + static_cast<std::ptrdiff_t>(i) * n;
    top.clear();
    for (int j = 0; j < n; ++j) top.offer(row[j] + bias[static_cast<std::size_t>(j)], j);
    emit(top, row, i, top_k, out);
  }
}

void validate(const NodeLimit& limit, int top_k, const char* source) {
  if (limit.max_nodes < 1 || limit.max_nodes > limit.nodes)
    throw core::InputError({source, "node-limit", 0},
                           fmt::format("node limit {} with {} nodes", limit.max_nodes, limit.nodes),
                           fmt::format("1 <= M <= {}", limit.nodes));
  std::vector<int> per_node(static_cast<std::size_t>(limit.nodes), 0);
  for (int node : limit.node_of_expert) ++per_node[static_cast<std::size_t>(node)];
  std::sort(per_node.begin(), per_node.end(), std::greater<>());
  const int reachable = std::accumulate(per_node.begin(), per_node.begin() + limit.max_nodes, 0);
  if (reachable < top_k)
    throw core::InputError({source, "node-limit", 0},
                           fmt::format("{} nodes hold only {} experts, fewer than k = {}", limit.max_nodes, reachable, top_k),
                           "a node limit whose nodes hold at least k experts");
}

void route_node_limited(const ScoreMatrix& scores, std::span<const float> bias, int top_k, const NodeLimit& limit,
                        RoutedBatch& out) {
  const int tokens = static_cast<int>(scores.rows());
  const int n = static_cast<int>(scores.cols());
  K3SIM_ASSERT(static_cast<int>(limit.node_of_expert.size()) == n, "node map size differs from experts");
  validate(limit, top_k, "node limit");
  prepare(out, tokens, top_k);
  std::vector<std::vector<std::int32_t>> members(static_cast<std::size_t>(limit.nodes));
  for (int j = 0; j < n; ++j) members[static_cast<std::size_t>(limit.node_of_expert[static_cast<std::size_t>(j)])].push_back(j);
  const int per_node_best = (top_k + limit.max_nodes - 1) / limit.max_nodes;  // ceil(k / M)
  SmallTopList node_best(per_node_best);
  SmallTopList node_rank(limit.max_nodes);
  SmallTopList top(top_k + 1);
  for (int i = 0; i < tokens; ++i) {
    const float* row = scores.data() + static_cast<std::ptrdiff_t>(i) * n;
    node_rank.clear();
    for (int node = 0; node < limit.nodes; ++node) {
      node_best.clear();
      for (std::int32_t e : members[static_cast<std::size_t>(node)]) node_best.offer(row[e] + bias[static_cast<std::size_t>(e)], e);
      float sum = 0;
      for (int s = 0; s < per_node_best; ++s)
        if (node_best.index(s) >= 0) sum += node_best.value(s);
      if (!members[static_cast<std::size_t>(node)].empty()) node_rank.offer(sum, node);
    }
    top.clear();
    for (int r = 0; r < limit.max_nodes; ++r) {
      const int node = node_rank.index(r);
      if (node < 0) continue;
      for (std::int32_t e : members[static_cast<std::size_t>(node)]) top.offer(row[e] + bias[static_cast<std::size_t>(e)], e);
    }
    emit(top, row, i, top_k, out);
  }
}

void accumulate_expert_load(const RoutedBatch& batch, std::span<double> load) {
  for (std::int32_t e : batch.experts) load[static_cast<std::size_t>(e)] += 1.0;
}

}  // namespace k3::routing
