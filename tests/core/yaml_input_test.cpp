#include <gtest/gtest.h>

#include "core/yaml_input.hpp"

using k3::core::InputError;
using k3::core::YamlValue;

namespace {
const char* kDoc =
    "model:\n"          // line 1
    "  layers: 93\n"    // line 2
    "  hidden: 7168\n"  // line 3
    "  kind: moe\n"     // line 4
    "  bogus: 1\n"      // line 5
    "sizes: [1, 2]\n";  // line 6
}

TEST(YamlInput, ReadsTypedValuesWithPaths) {
  auto doc = YamlValue::parse_string(kDoc, "s.yaml");
  auto model = doc.at("model");
  EXPECT_EQ(model.at("layers").as_positive_int(), 93);
  EXPECT_EQ(model.at("hidden").as_double(), 7168.0);
  EXPECT_EQ(model.at("kind").as_enum({"dense", "moe"}), "moe");
  EXPECT_EQ(model.at("layers").key_path(), "model.layers");
  EXPECT_EQ(model.at("layers").line(), 2);
  EXPECT_EQ(doc.at("sizes").items().size(), 2u);
  EXPECT_EQ(model.int_or("absent", 5), 5);
}

TEST(YamlInput, UnknownKeyNamesFileKeyLineAndAllowed) {
  auto model = YamlValue::parse_string(kDoc, "s.yaml").at("model");
  try {
    model.allow_only({"layers", "hidden", "kind"});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 5);
    EXPECT_EQ(e.where().key, "model.bogus");
    EXPECT_STREQ(e.what(), "s.yaml:5: key 'model.bogus': unknown key (allowed: layers, hidden or kind)");
  }
}

TEST(YamlInput, BadValuesAreInputErrors) {
  auto doc = YamlValue::parse_string("a: -3\nb: x\nc: moe\n", "t.yaml");
  EXPECT_THROW(doc.at("a").as_positive_int(), InputError);
  EXPECT_THROW(doc.at("b").as_double(), InputError);
  EXPECT_THROW(doc.at("c").as_enum({"dense"}), InputError);
  EXPECT_THROW(doc.at("missing"), InputError);
  try {
    doc.at("a").as_positive();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 1);
    EXPECT_NE(std::string(e.what()).find("> 0"), std::string::npos);
  }
}

TEST(YamlInput, MalformedYamlReportsLine) {
  try {
    YamlValue::parse_string("a: 1\nb: [1, 2\n", "bad.yaml");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "bad.yaml");
    EXPECT_GT(e.where().line, 0);
  }
}

TEST(YamlInput, MissingFile) {
  EXPECT_THROW(YamlValue::parse_file("/nonexistent/k3sim.yaml"), InputError);
}
