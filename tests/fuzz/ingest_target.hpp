// The fuzz target for Google Benchmark JSON ingest, shared by the libFuzzer binary
// (fuzz_ingest_libfuzzer.cpp, clang -fsanitize=fuzzer) and the seeded mutation loop
// (fuzz_ingest_loop.cpp, any compiler, run by ctest for 30 s).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gpubench::fuzz {

// Parses `data` as a Google Benchmark file and ingests it into an in-memory store, the way
// `gpubench run` does (a whole document), or imports it when it is a `gpubench export` run;
// then reads the same bytes as `gpubench import FILE` does (streamed, entry by entry). Bad input
// must end in gpubench::Error (a clean exit 2/3 in the CLI); anything else (another exception, a
// crash, a sanitizer report) is a finding and aborts.
void ingest_one(const std::uint8_t* data, std::size_t size);

}  // namespace gpubench::fuzz
