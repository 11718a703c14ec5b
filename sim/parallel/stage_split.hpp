#pragma once
// Which blocks of the model (embedding, decoder layers, LM head, MTP) each pipeline stage holds.
// Decoder layers are split as evenly as possible; the embedding goes to the first stage and the LM head
// and MTP blocks to the last (Megatron-LM and DeepSeek-V3 practice). Stages that must hold one layer more
// are the middle ones, so the first and last stages, which also hold the embedding and the head, are
// never the ones with an extra layer when the split is uneven.
#include <vector>

#include "model/ops.hpp"

namespace k3::parallel {

struct StageBlocks {
  std::vector<int> blocks;  // indices into build_ops() output, in execution order
  int decoder_layers = 0;
};

// Throws InputError (key parallel.pp) when there are fewer decoder layers than stages.
std::vector<StageBlocks> split_into_stages(const std::vector<model::OpBlock>& blocks, int stages,
                                           const std::string& source);

}  // namespace k3::parallel
