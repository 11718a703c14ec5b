// Issue 44: the published measurements ship with the project (validate/data), derived from shared/validation.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "core/error.hpp"
#include "validate/published_data.hpp"
#include "validate/validation.hpp"
#include "validate/validation_csv.hpp"

namespace k3::validate {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The shipped tables are what the importer derives from the originals today: a published value changed in
// shared/validation and not re-imported fails here. Without ../shared (a fresh clone) there is nothing to compare.
TEST(PublishedData, ShippedTablesAreDerivedFromTheOriginals) {
  const std::string shared = std::string(K3SIM_SOURCE_DIR) + "/../shared/validation";
  if (!std::filesystem::exists(shared)) GTEST_SKIP() << "no " << shared << " to derive from";
  const std::string shipped = default_validation_paths().data_dir;
  for (const auto& f : published_files()) {
    const std::string original = read_text(shared + "/" + f.file);
    ASSERT_FALSE(original.empty()) << f.file;
    EXPECT_EQ(read_text(shipped + "/" + f.file), derive_published_table(original, f))
        << f.file << ": run `k3sim validate --import-data ../shared/validation --out validate/data`";
  }
}

// Every shipped row names its source, and the default data folder is the shipped one.
TEST(PublishedData, EveryShippedRowCarriesItsSource) {
  const auto paths = default_validation_paths();
  EXPECT_EQ(paths.data_dir, std::string(K3SIM_SOURCE_DIR) + "/validate/data");
  for (const auto& f : published_files()) {
    const auto t = read_published_csv(paths.data_dir + "/" + f.file);
    for (std::size_t r = 0; r < t.rows.size(); ++r) EXPECT_EQ(t.text(r, "source"), f.source) << f.file << " row " << r;
    EXPECT_NE(t.provenance.find("Derived by `k3sim validate --import-data`"), std::string::npos) << f.file;
  }
}

// By hand: "# note\na,b\n1,2\n" gains the derivation line, keeps "# note", and its one row ends in the citation.
TEST(PublishedData, DerivedTextKeepsProvenanceAndAddsTheSourceColumn) {
  const PublishedFile f{"toy.csv", "Someone 2025 Table 9"};
  EXPECT_EQ(derive_published_table("# note\na,b\n1,2\n", f),
            "# Derived by `k3sim validate --import-data` from shared/validation/toy.csv: the published rows with a "
            "source column; the publisher's notes follow.\n# note\na,b,source\n1,2,Someone 2025 Table 9\n");
  EXPECT_THROW(derive_published_table("# note\na,b\n", f), core::InputError);
}

}  // namespace
}  // namespace k3::validate
