#include "sim/train/layer_results.hpp"

#include <algorithm>
#include <string>

#include "sim/train/step_accounting.hpp"

namespace k3::train {

namespace {

LayerPassResult simulate_layer_pass(const workload::PassBuildContext& ctx, int block, workload::PassPart part,
                                    const exec::PassRunner& runner) {
  workload::PassProgram program;
  parallel::StageBlocks stage;
  stage.blocks = {block};
  stage.decoder_layers = 1;
  workload::append_stage_pass(program, ctx, stage, part);
  exec::LinkClassBytes bytes;
  const auto record = summarize_pass(program, runner.run(program, &bytes), bytes);
  LayerPassResult out;
  out.compute_s = record.compute_s;
  out.exposed_s = record.exposed_s;
  for (std::size_t c = 0; c < bytes.bytes.size(); ++c) {
    if (bytes.bytes[c] > 0) out.bytes[std::string(topo::to_string(static_cast<topo::LinkClass>(c)))] = bytes.bytes[c];
  }
  if (bytes.host > 0) out.bytes["host"] = bytes.host;
  return out;
}

}  // namespace

std::vector<LayerKindResult> simulate_layer_kinds(const std::vector<model::OpBlock>& blocks,
                                                  const workload::PassBuildContext& ctx,
                                                  const exec::PassRunner& runner) {
  std::vector<LayerKindResult> out;
  std::vector<int> representative;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const auto& block = blocks[b];
    if (block.role != model::BlockRole::Layer) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const LayerKindResult& k) { return k.kind == block.kind; });
    if (it == out.end()) {
      out.push_back({block.kind, 0, {}, {}});
      representative.push_back(-1);
      it = out.end() - 1;
    }
    ++it->count;
    auto& rep = representative[static_cast<std::size_t>(it - out.begin())];
    const bool usable = !model::has_expert_dispatch(block) || ctx.moe.count(static_cast<int>(b)) > 0;
    if (rep < 0 && usable) rep = static_cast<int>(b);
  }
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (representative[k] < 0) continue;  // no sampled expert load for this kind (not simulated)
    out[k].forward = simulate_layer_pass(ctx, representative[k], workload::PassPart::forward, runner);
    out[k].backward = simulate_layer_pass(ctx, representative[k], workload::PassPart::backward, runner);
  }
  return out;
}

}  // namespace k3::train
