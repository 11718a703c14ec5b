#pragma once
// Parsing of counts and sizes written the way people write them on a command line or in a scenario.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace k3::core {

// "4096", "1e6", "128K" (x1024), "1M" (x1024^2), "1MiB", "4GiB", "1.5GB" (x1e9), "2T".
// Binary suffixes K/M/G/T and KiB/MiB/GiB/TiB mean powers of 1024 (context lengths and buffer sizes are
// written that way: "128K" context = 131072 tokens); KB/MB/GB/TB mean powers of 1000.
// Returns nullopt when the text is not such a quantity.
std::optional<double> parse_quantity(std::string_view text);

// "a:b" doubling range (nccl-tests style) or "a:b:xF" geometric with factor F, or "a:b:+S" arithmetic.
// Also a comma list "a,b,c". Returns nullopt when malformed or empty.
std::optional<std::vector<double>> parse_quantity_list(std::string_view text);

// 1536 -> "1.5 KiB", 3.2e9 -> "2.98 GiB".
std::string format_bytes(double bytes);
// 2.5e-6 -> "2.50 us", 19.9 -> "19.900 s", 900 -> "15.0 min", 36000 -> "10.0 h", 4.6e6 -> "53.2 days".
std::string format_seconds(double seconds);
// 1.04e12 -> "1.04T", 3.2e9 -> "3.20B" (counts: parameters, tokens).
std::string format_count(double count);
// A count the way it is written on the command line when it is a whole number of 1024s (context lengths:
// 131072 -> "128K", 1048576 -> "1M"), format_count otherwise.
std::string format_binary_count(double count);
// A value in its unit's human scale, the unit written after it: "s" and "ms" -> format_seconds, "B" ->
// format_bytes, "tokens/s" -> "1.33M tokens/s", "USD" -> "$1.07M", "fraction of X" -> "41.7% of X"; any other unit
// (or none) as 4 significant digits, or format_count from 10,000 up, and the unit ("2.35 requests/s").
std::string format_in_unit(double value, std::string_view unit);

}  // namespace k3::core
