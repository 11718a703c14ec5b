#include "sim/parallel/stage_split.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace k3::parallel {

std::vector<StageBlocks> split_into_stages(const std::vector<model::OpBlock>& blocks, int stages,
                                           const std::string& source) {
  std::vector<int> layers;
  std::vector<int> before;
  std::vector<int> after;
  for (int i = 0; i < static_cast<int>(blocks.size()); ++i) {
    switch (blocks[static_cast<std::size_t>(i)].role) {
      case model::BlockRole::Embedding: before.push_back(i); break;
      case model::BlockRole::Layer: layers.push_back(i); break;
      case model::BlockRole::Head:
      case model::BlockRole::Mtp: after.push_back(i); break;
    }
  }
  const int n = static_cast<int>(layers.size());
  if (n < stages) {
    throw core::InputError({source, "parallel.pp", 0},
                           "the model has " + std::to_string(n) + " decoder layers, fewer than the " +
                               std::to_string(stages) + " pipeline stages",
                           "PP x virtual stages <= " + std::to_string(n));
  }
  std::vector<int> count(static_cast<std::size_t>(stages), n / stages);
  // Hand the remainder to the stages nearest the middle.
  std::vector<int> order(static_cast<std::size_t>(stages));
  for (int st = 0; st < stages; ++st) order[static_cast<std::size_t>(st)] = st;
  const double middle = (stages - 1) / 2.0;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return std::abs(a - middle) < std::abs(b - middle); });
  for (int i = 0; i < n % stages; ++i) ++count[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
  std::vector<StageBlocks> out(static_cast<std::size_t>(stages));
  out.front().blocks = before;
  std::size_t next = 0;
  for (int s = 0; s < stages; ++s) {
    auto& st = out[static_cast<std::size_t>(s)];
    for (int i = 0; i < count[static_cast<std::size_t>(s)]; ++i) st.blocks.push_back(layers[next++]);
    st.decoder_layers = count[static_cast<std::size_t>(s)];
  }
  for (int i : after) out.back().blocks.push_back(i);
  return out;
}

}  // namespace k3::parallel
