#pragma once
// K3's operator shapes (DESIGN.md "K3 facts", arXiv:2607.24653) and the awkward sizes every kernel test uses.
#include <array>
#include <cstddef>

namespace k3::kernels {

inline constexpr std::size_t kHidden = 7168;           // model width
inline constexpr std::size_t kLatent = 3584;           // routed-expert latent width (LatentMoE)
inline constexpr std::size_t kExpertFfn = 3072;        // expert FFN width
inline constexpr std::size_t kRoutedExperts = 896;     // K3: top-16 of 896
inline constexpr std::size_t kTopK = 16;
inline constexpr std::size_t kIsoExperts = 448;        // iso-cost alternative: top-8 of 448 at full width
inline constexpr std::size_t kIsoTopK = 8;
inline constexpr float kSituCap = 4.0f;                // SiTU(x; 4)
inline constexpr float kSoftcapCap = 25.0f;            // softcap(x; 25)
inline constexpr std::size_t kMlaQkDim = 192;          // 128 nope + 64 "rope" (NoPE)
inline constexpr std::size_t kMlaVDim = 128;
inline constexpr std::size_t kMlaLatentKeyDim = 576;   // kv_lora 512 + 64
inline constexpr std::size_t kMlaLatentValueDim = 512;
inline constexpr std::size_t kKdaHeadDim = 128;
inline constexpr std::size_t kKdaChunk = 64;

// Token counts that catch off-by-one tails, partial blocks and multi-wave grids.
inline constexpr std::array<std::size_t, 4> kAwkwardTokens{1, 7, 989, 4096};

}  // namespace k3::kernels
