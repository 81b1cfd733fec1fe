#include "suites/common/device_selection.hpp"

#include <charconv>
#include <cstring>
#include <string_view>

#include "util/error.hpp"

namespace gpubench::suite {

namespace {

std::optional<int> parse_index(std::string_view value, const std::string& source) {
  if (value == "all") return std::nullopt;
  int index = -1;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), index);
  if (ec != std::errc{} || end != value.data() + value.size() || index < 0) {
    throw bad_input(source + " '" + std::string(value) + "' is not a device index",
                    "expected a non-negative integer or 'all'",
                    "pass e.g. --device 0, or omit it to run on every GPU");
  }
  return index;
}

}  // namespace

DeviceRequest take_device_request(int& argc, char** argv, const char* env_value) {
  DeviceRequest request;
  if (env_value && *env_value) {
    request.source = "GPUBENCH_DEVICE";
    request.index = parse_index(env_value, request.source);
  }
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    std::optional<std::string_view> value;
    if (arg == "--device") {
      if (i + 1 >= argc) {
        throw bad_input("--device needs a value", "it was the last argument",
                        "pass e.g. --device 0, or omit it to run on every GPU");
      }
      value = argv[++i];
    } else if (arg.rfind("--device=", 0) == 0) {
      value = arg.substr(std::strlen("--device="));
    }
    if (value) {
      request.source = "--device";
      request.index = parse_index(*value, request.source);
      continue;
    }
    argv[out++] = argv[i];
  }
  argc = out;
  if (argc >= 0) argv[argc] = nullptr;
  return request;
}

std::vector<int> resolve_devices(const DeviceRequest& request, int device_count) {
  if (device_count <= 0) return {request.index.value_or(0)};
  if (request.index) {
    if (*request.index >= device_count) {
      const std::string range =
          device_count == 1 ? "only device 0" : "devices 0.." + std::to_string(device_count - 1);
      throw bad_input(request.source + " " + std::to_string(*request.index) + " is out of range",
                      "this machine has " + std::to_string(device_count) + " CUDA device" +
                          (device_count == 1 ? "" : "s") + " (" + range + ")",
                      "pick an index below " + std::to_string(device_count) +
                          ", or omit it to run on every GPU");
    }
    return {*request.index};
  }
  std::vector<int> all;
  for (int i = 0; i < device_count; ++i) all.push_back(i);
  return all;
}

}  // namespace gpubench::suite
