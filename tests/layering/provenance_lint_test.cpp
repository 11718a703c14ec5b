// Every number a prediction depends on goes through the provenance registry (core/provenance.hpp, issue 16).
// This test reads the files that turn a step into time (cost model, link figures, pass runner, step and DP
// phase) and fails on a floating-point literal that is neither inside a registration call
// (prov.add / prov.add_exact and the cost model's registering helpers) nor one of the structural numbers
// below, each a definition rather than a measurement or an assumption. A new efficiency, bandwidth or
// overlap written into one of these files as a bare number fails here with its file and line.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Structural numbers: the value and why it is not an assumption.
const std::map<std::string, std::string> kStructural = {
    {"0.0", "zero"},
    {"1.0", "one"},
    {"2.0", "bytes of a BF16/FP16 element; the causal half of a score matrix"},
    {"4.0", "bytes of an fp32 element"},
    {"26.0", "bytes per parameter Muon moves: fp32 master, one fp32 moment, fp32 gradient read; master, moment, BF16 weight written"},
    {"30.0", "bytes per parameter AdamW moves: as Muon plus the second fp32 moment read and written"},
    {"1e-3", "the pipeline dry run's placeholder pass time (its result is discarded)"},
    {"1e3", "ms per s"},
    {"1e6", "MB per B"},
    {"1e9", "GB per B"},
    {"1e12", "TFLOP/s per FLOP/s"},
    {"3600.0", "s per hour"},
    {"1e-9", "relative rounding slack of a sum of doubles (the link-capacity self-check)"},
    {"1e-12", "a fraction of a pass below which two bucket boundaries are one (rounding of sums of doubles)"},
};

// The files a step's time is computed in; default_efficiencies.cpp is all registrations.
const char* const kFiles[] = {"sim/cost/cost_model.cpp",      "sim/cost/default_efficiencies.cpp",
                              "sim/net/network_factory.cpp",  "sim/exec/pass_runner.cpp",
                              "sim/train/step_simulator.cpp", "sim/train/step_accounting.cpp",
                              "sim/train/dp_phase.cpp",       "sim/train/optimizer_update.cpp",
                              "sim/exec/graph_executor.cpp",  "sim/exec/pipeline_graph.cpp",
                              "sim/train/step_plan.cpp",      "sim/train/step_setup.cpp",
                              "sim/train/pass_context.cpp",   "sim/train/stage_passes.cpp"};

// Calls whose arguments register numbers in the registry.
const char* const kRegistering[] = {"prov.add(", "prov.add_exact(", "prov_.add(", "prov_.add_exact(",
                                    "in.prov.add(", "fraction(prov,", "gemm("};

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The text with comments, string and character literals blanked (newlines kept for line numbers).
std::string code_only(const std::string& t) {
  std::string out = t;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t.compare(i, 2, "//") == 0) {
      while (i < t.size() && t[i] != '\n') out[i++] = ' ';
    } else if (t.compare(i, 2, "/*") == 0) {
      while (i + 1 < t.size() && t.compare(i, 2, "*/") != 0) { if (t[i] != '\n') out[i] = ' '; ++i; }
      out[i] = ' ';
      if (i + 1 < t.size()) out[++i] = ' ';
    } else if (t[i] == '"' || t[i] == '\'') {
      const char q = t[i];
      out[i] = ' ';
      for (++i; i < t.size() && t[i] != q; ++i) {
        if (t[i] == '\\') out[i++] = ' ';
        if (t[i] != '\n') out[i] = ' ';
      }
      if (i < t.size()) out[i] = ' ';
    }
  }
  return out;
}

// Blanks the arguments of every registering call.
void blank_registrations(std::string& code) {
  for (const char* call : kRegistering) {
    for (auto at = code.find(call); at != std::string::npos; at = code.find(call, at + 1)) {
      // Not a longer name ending in the call's name ("my_prov.add(").
      if (at > 0 && (std::isalnum(static_cast<unsigned char>(code[at - 1])) != 0 || code[at - 1] == '_')) continue;
      int depth = 0;
      for (std::size_t i = code.find('(', at); i < code.size(); ++i) {
        if (code[i] == '(') ++depth;
        if (code[i] == ')' && --depth == 0) break;
        if (depth > 0 && code[i] != '\n' && code[i] != '(' && code[i] != ')') code[i] = ' ';
      }
    }
  }
}

struct Literal {
  std::string text;
  int line;
};

// Floating-point literals: digits with a '.' or an exponent (integers are counts and indices, not read).
std::vector<Literal> float_literals(const std::string& code) {
  std::vector<Literal> out;
  int line = 1;
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (code[i] == '\n') ++line;
    const bool starts = std::isdigit(static_cast<unsigned char>(code[i])) != 0 &&
                        (i == 0 || (std::isalnum(static_cast<unsigned char>(code[i - 1])) == 0 && code[i - 1] != '_' &&
                                    code[i - 1] != '.'));
    if (!starts) continue;
    std::size_t j = i;
    bool is_float = false;
    while (j < code.size() && (std::isalnum(static_cast<unsigned char>(code[j])) != 0 || code[j] == '.' ||
                               code[j] == '\'' ||
                               ((code[j] == '-' || code[j] == '+') && (code[j - 1] == 'e' || code[j - 1] == 'E')))) {
      if (code[j] == '.' || code[j] == 'e' || code[j] == 'E') is_float = true;
      ++j;
    }
    std::string text = code.substr(i, j - i);
    if (text.rfind("0x", 0) == 0) is_float = false;
    if (is_float) out.push_back({text, line});
    i = j - 1;
  }
  return out;
}

}  // namespace

TEST(ProvenanceLint, EveryNumberOfTheStepIsRegisteredOrStructural) {
  for (const char* file : kFiles) {
    const std::string path = std::string(K3SIM_SOURCE_DIR) + "/" + file;
    const std::string text = read(path);
    ASSERT_FALSE(text.empty()) << path;
    std::string code = code_only(text);
    blank_registrations(code);
    for (const auto& lit : float_literals(code)) {
      EXPECT_TRUE(kStructural.contains(lit.text))
          << file << ":" << lit.line << ": " << lit.text
          << " is used without a provenance entry: register it (core::Provenance::add with range, kind and "
             "source) or, if it is a definition, add it to kStructural with why";
    }
  }
}

TEST(ProvenanceLint, TheScannerFindsABareNumberAndSkipsRegistrations) {
  const std::string sample =
      "double f(core::Provenance& prov) {\n"
      "  const double e = prov.add(\"x\", 0.85, 0.8,\n"
      "                            0.9, \"fraction\", kind, \"0.7 in a string\");  // 0.6 in a comment\n"
      "  return 2.0 * e * 0.93 + 1e12 + size_t{3};\n"
      "}\n";
  std::string code = code_only(sample);
  blank_registrations(code);
  const auto found = float_literals(code);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].text, "2.0");
  EXPECT_EQ(found[1].text, "0.93");
  EXPECT_EQ(found[1].line, 4);
  EXPECT_EQ(found[2].text, "1e12");
}
