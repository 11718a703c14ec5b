#pragma once
// Which blocks of the model (embedding, decoder layers, LM head, MTP) each pipeline stage holds.
// Decoder layers are split as evenly as possible; the embedding goes to the first stage and the LM head
// and MTP blocks to the last (Megatron-LM and DeepSeek-V3 practice). Stages that must hold one layer more
// are the middle ones, so the first and last stages, which also hold the embedding and the head, are
// never the ones with an extra layer when the split is uneven.
#include <string>
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

// A layout written as Megatron-Core's --pipeline-model-parallel-layout says it: the (virtual) stages in
// order, separated by '|', each a run of E (embedding), t (decoder layer), m (MTP block) and L (LM head and
// loss); `X*N` repeats one symbol and `(...)*N` a group, which may span stages. "E|(t*3|)*31,tL" is not
// accepted (',' is no symbol); "Et|(tt|)*46|tL" is PP x VPP = 48 stages for 94 layers. Every symbol must
// appear as often as the model has such blocks; InputError (key parallel.pipeline_layout) names what is off.
std::vector<StageBlocks> split_by_layout(const std::vector<model::OpBlock>& blocks, int stages,
                                         const std::string& layout, const std::string& source);
// The layout string with repetitions expanded ("E|(tt|)*2L" -> "E|tt|tt|L"); InputError on bad syntax.
std::string expand_pipeline_layout(const std::string& layout, const std::string& source);

}  // namespace k3::parallel
