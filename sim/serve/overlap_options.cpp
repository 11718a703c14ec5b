#include "sim/serve/overlap_options.hpp"

namespace k3::serve {

std::span<const OverlapEntry> overlap_options() {
  static constexpr OverlapEntry kOverlaps[] = {
      {"two_batch",
       "two half batches, each one's all-to-alls under the other's compute (SGLang's and DeepSeek's two-batch "
       "overlap; default)",
       Overlap::two_batch},
      {"combine_with_down_gemm",
       "decode: the combine sends each local expert's rows once the down GEMM signals that expert done (SGLang's "
       "single-batch overlap, sgl-project/sglang#9660 with deepseek-ai/DeepEP#483); DeepEP low-latency, moe_tp 1",
       Overlap::combine_with_down_gemm},
      {"shared_experts_with_dispatch",
       "the shared experts run while the dispatch is in flight, which they do not wait for (single-batch overlap's "
       "other half, sgl-project/sglang#9660 and #17289); prefill and decode, DeepEP all-to-alls, moe_tp 1, a model with "
       "shared experts",
       Overlap::shared_experts_with_dispatch},
  };
  return kOverlaps;
}

}  // namespace k3::serve
