// Small string helpers used across the project.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpubench {

std::vector<std::string> split(std::string_view text, char sep);
std::string_view trim(std::string_view text);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
std::string to_lower(std::string_view text);

// Strict whole-string number parsing: nullopt on trailing garbage, empty input or overflow.
std::optional<long long> parse_int(std::string_view text);
std::optional<double> parse_double(std::string_view text);

// Human formatting: "1.50 GB", "256 MiB" style. Decimal for rates (GB/s), binary for sizes.
std::string format_bytes_binary(double bytes);
// Fixed significant digits, no exponent for ordinary magnitudes: 3 -> "12.3", "0.0123".
std::string format_significant(double value, int digits = 3);
// A measured value in every output: 4 significant digits, "—" when unknown (a missing side),
// never "nan" or 0.
std::string format_value(double value);

}  // namespace gpubench
