#include "sim/parallel/stage_split.hpp"

#include <algorithm>
#include <cctype>
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

namespace {

class LayoutExpander {
 public:
  LayoutExpander(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  std::string run() {
    std::string out = sequence();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return out;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    throw core::InputError({source_, "parallel.pipeline_layout", 0},
                           problem + " at character " + std::to_string(pos_ + 1) + " of \"" + text_ + "\"",
                           "stages separated by '|' of E, t, m, L, with X*N and (...)*N repetitions");
  }
  int count() {
    if (pos_ >= text_.size() || text_[pos_] != '*') return 1;
    ++pos_;
    std::size_t digits = 0;
    int n = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])) != 0) {
      n = n * 10 + (text_[pos_++] - '0');
      if (++digits > 6) fail("repetition count too large");
    }
    if (digits == 0) fail("'*' without a count");
    return n;
  }
  std::string sequence() {
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != ')') {
      const char c = text_[pos_];
      std::string item;
      if (c == '(') {
        ++pos_;
        item = sequence();
        if (pos_ >= text_.size() || text_[pos_] != ')') fail("'(' without ')'");
        ++pos_;
      } else if (c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|') {
        item = std::string(1, c);
        ++pos_;
      } else {
        fail("unknown symbol '" + std::string(1, c) + "'");
      }
      const int n = count();
      if (out.size() + item.size() * static_cast<std::size_t>(n) > 1'000'000) fail("layout expands past a million symbols");
      for (int i = 0; i < n; ++i) out += item;
    }
    return out;
  }

  const std::string& text_;
  const std::string& source_;
  std::size_t pos_ = 0;
};

}  // namespace

std::string expand_pipeline_layout(const std::string& layout, const std::string& source) {
  return LayoutExpander(layout, source).run();
}

std::vector<StageBlocks> split_by_layout(const std::vector<model::OpBlock>& blocks, int stages,
                                         const std::string& layout, const std::string& source) {
  const std::string flat = expand_pipeline_layout(layout, source);
  std::vector<int> embedding, layers, mtp, head;
  for (int i = 0; i < static_cast<int>(blocks.size()); ++i) {
    switch (blocks[static_cast<std::size_t>(i)].role) {
      case model::BlockRole::Embedding: embedding.push_back(i); break;
      case model::BlockRole::Layer: layers.push_back(i); break;
      case model::BlockRole::Mtp: mtp.push_back(i); break;
      case model::BlockRole::Head: head.push_back(i); break;
    }
  }
  const auto bad = [&](const std::string& problem, const std::string& allowed) {
    throw core::InputError({source, "parallel.pipeline_layout", 0}, problem, allowed);
  };
  const auto stage_count = static_cast<int>(std::count(flat.begin(), flat.end(), '|')) + 1;
  if (stage_count != stages) {
    bad("the layout has " + std::to_string(stage_count) + " stages, the schedule " + std::to_string(stages) +
            " (PP x virtual stages)",
        "exactly " + std::to_string(stages) + " stages separated by '|'");
  }
  const auto expect = [&](char sym, std::size_t n, const char* what) {
    const auto have = static_cast<std::size_t>(std::count(flat.begin(), flat.end(), sym));
    if (have != n) {
      bad(std::string("the layout has ") + std::to_string(have) + " '" + sym + "' but the model " + std::to_string(n) +
              " " + what,
          std::to_string(n) + " '" + sym + "'");
    }
  };
  expect('E', embedding.empty() ? 0 : 1, "embedding");
  expect('L', head.empty() ? 0 : 1, "LM head");
  expect('t', layers.size(), "decoder layers");
  expect('m', mtp.size(), "MTP blocks");
  std::vector<StageBlocks> out(static_cast<std::size_t>(stages));
  std::size_t stage = 0, next_layer = 0, next_mtp = 0;
  for (char c : flat) {
    auto& st = out[stage];
    switch (c) {
      case '|': ++stage; break;
      case 'E': st.blocks.insert(st.blocks.end(), embedding.begin(), embedding.end()); break;
      case 'L': st.blocks.insert(st.blocks.end(), head.begin(), head.end()); break;
      case 'm': st.blocks.push_back(mtp[next_mtp++]); break;
      default:
        st.blocks.push_back(layers[next_layer++]);
        ++st.decoder_layers;
        break;
    }
  }
  return out;
}

}  // namespace k3::parallel
