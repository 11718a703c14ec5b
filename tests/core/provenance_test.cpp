// The provenance registry: registration, overrides inside the range, reads of unregistered numbers.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/provenance.hpp"

using k3::core::Provenance;
using k3::core::SourceKind;

TEST(Provenance, AnEntryIsReadBackAtItsValueOrItsOverride) {
  Provenance plain;
  EXPECT_EQ(plain.add("hbm.efficiency", 0.9, 0.8, 0.93, "fraction", SourceKind::assumption, "s"), 0.9);
  EXPECT_EQ(plain.value("hbm.efficiency"), 0.9);
  Provenance moved({{"hbm.efficiency", 0.85}});
  EXPECT_EQ(moved.add("hbm.efficiency", 0.9, 0.8, 0.93, "fraction", SourceKind::assumption, "s"), 0.85);
  EXPECT_EQ(moved.entry("hbm.efficiency").nominal, 0.9);
  EXPECT_TRUE(moved.unused_overrides().empty());
}

TEST(Provenance, ANumberReadWithoutAnEntryIsAnError) {
  Provenance p;
  EXPECT_THROW((void)p.value("link.nvlink.efficiency"), k3::core::InternalError);
}

TEST(Provenance, AnOverrideOutsideTheRangeNamesTheEntry) {
  Provenance p({{"kernel.min_time", 1e-3}});
  try {
    p.add("kernel.min_time", 3e-6, 2e-6, 5e-6, "s", SourceKind::assumption, "s");
    FAIL() << "1 ms is outside 2..5 us";
  } catch (const k3::core::InputError& e) {
    EXPECT_EQ(e.where().key, "kernel.min_time");
  }
}

TEST(Provenance, TheFirstRegistrationOfAnIdWinsAndUnusedOverridesAreListed) {
  Provenance p({{"typo.efficiency", 0.5}});
  EXPECT_EQ(p.add_exact("gpu.sms", 132, "count", SourceKind::datasheet, "sheet"), 132);
  EXPECT_EQ(p.add_exact("gpu.sms", 108, "count", SourceKind::datasheet, "other"), 132);
  EXPECT_EQ(p.entries().size(), 1u);
  EXPECT_FALSE(p.entry("gpu.sms").has_range());
  EXPECT_EQ(p.unused_overrides(), std::vector<std::string>{"typo.efficiency"});
}

TEST(Provenance, DescribedWithValueRangeKindAndSource) {
  Provenance p;
  p.add("attention.fwd.efficiency", 0.6, 0.5, 0.73, "fraction", SourceKind::kernel_measurement, "FlashAttention-2");
  p.add_exact("gpu.bf16_peak", 989e12, "FLOP/s", SourceKind::datasheet, "H100 datasheet");
  const auto lines = k3::core::describe(p.entries());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "attention.fwd.efficiency = 0.6 (range 0.5 .. 0.73, kernel measurement): FlashAttention-2");
  EXPECT_EQ(lines[1], "gpu.bf16_peak = 989 TFLOP/s (exact, datasheet): H100 datasheet");
}
