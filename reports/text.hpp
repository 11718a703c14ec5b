#pragma once
// Escaping and number formatting for the HTML report. Everything that reaches the document goes through
// escape_html; every number shown to a reader also travels as its exact value (exact_number) in a
// data-value attribute, so a test can compare the report with the --json output of the same run.
#include <string>
#include <string_view>

namespace k3::reports {

// Escapes & < > " ' so the result is safe both as element text and inside a quoted attribute.
std::string escape_html(std::string_view text);

// Shortest text that parses back to exactly `value` ("0.1", "1e-05", "nan", "inf").
std::string exact_number(double value);

// For readers: `significant` digits, thousands separators for large integers-ish values,
// scientific notation below 1e-3 or above 1e15. 1234567.0 -> "1,234,567"; 0.012345 -> "0.01235".
std::string display_number(double value, int significant = 4);

// Compact tick label: 1500 -> "1.5k", 2e9 -> "2G", 0.25 -> "0.25", 1e-4 -> "1e-4".
std::string tick_label(double value);

// "Step time" + "ms" -> "Step time (ms)"; an empty unit leaves the name alone.
std::string with_unit(std::string_view name, std::string_view unit);

}  // namespace k3::reports
