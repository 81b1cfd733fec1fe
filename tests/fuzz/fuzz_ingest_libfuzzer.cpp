// libFuzzer entry point (clang -fsanitize=fuzzer,address,undefined; see tests/fuzz/README.md).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/ingest_target.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpubench::fuzz::ingest_one(data, size);
  return 0;
}
