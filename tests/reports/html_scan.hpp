#pragma once
// Small scanners over rendered HTML for the tests (std::regex trips GCC 12's -Wmaybe-uninitialized under
// ASan, so plain string search is used).
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace k3::test {

// Value of the attribute `name` in every tag that contains `marker`, in document order.
inline std::vector<std::string> attribute_values(const std::string& html, const std::string& marker,
                                                 const std::string& name) {
  std::vector<std::string> out;
  for (auto p = html.find(marker); p != std::string::npos; p = html.find(marker, p + 1)) {
    const auto tag_start = html.rfind('<', p);
    const auto tag_end = html.find('>', p);
    const std::string tag = html.substr(tag_start, tag_end - tag_start);
    const auto a = tag.find(" " + name + "=\"");
    if (a == std::string::npos) continue;
    const auto v = a + name.size() + 3;
    out.push_back(tag.substr(v, tag.find('"', v) - v));
  }
  return out;
}

// (data-key, exact value) of every keyed number (cards and table cells carry both attributes).
inline std::vector<std::pair<std::string, double>> keyed_numbers(const std::string& html) {
  std::vector<std::pair<std::string, double>> out;
  const auto keys = attribute_values(html, " data-key=\"", "data-key");
  const auto values = attribute_values(html, " data-key=\"", "data-value");
  for (std::size_t i = 0; i < keys.size() && i < values.size(); ++i)
    out.emplace_back(keys[i], std::strtod(values[i].c_str(), nullptr));
  return out;
}

// `html` without the blocks between `open` and `close` (each block replaced by a space).
inline std::string without_blocks(std::string html, const std::string& open, const std::string& close) {
  for (std::size_t at = html.find(open); at != std::string::npos; at = html.find(open, at)) {
    const std::size_t end = html.find(close, at);
    html.replace(at, end == std::string::npos ? std::string::npos : end + close.size() - at, " ");
  }
  return html;
}

// What a reader sees of a page: no style, script, echoed YAML or markup (attributes hold exact numbers for tests).
inline std::string visible_text(std::string html) {
  html = without_blocks(html, "<style", "</style>");
  html = without_blocks(html, "<script", "</script>");
  html = without_blocks(html, "<pre>", "</pre>");
  std::string out;
  bool in_tag = false;
  for (const char c : html) {
    if (c == '<') in_tag = true;
    if (!in_tag) out += c;
    if (c == '>') {
      in_tag = false;
      out += ' ';
    }
  }
  return out;
}

}  // namespace k3::test
