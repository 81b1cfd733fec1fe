// Helpers for the tests of the peer readers (issue 40, part B): the fixtures under
// tests/fixtures/peers/ (real outputs, each labelled with its source in that folder's README),
// an entry found by name, and the refusal a reader throws.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "results/peers/peers.hpp"
#include "util/error.hpp"

namespace gpubench::testing {

inline std::string peer_fixture_path(const std::string& relative) {
  return std::string(GPUBENCH_SOURCE_DIR) + "/tests/fixtures/peers/" + relative;
}

inline std::string read_peer_fixture(const std::string& relative) {
  std::ifstream in(peer_fixture_path(relative), std::ios::binary);
  EXPECT_TRUE(in.good()) << relative;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The benchmark entries named `name` (an entry per repetition, plus aggregates).
inline std::vector<nlohmann::json> entries(const results::peers::PeerDocument& doc,
                                           const std::string& name) {
  std::vector<nlohmann::json> out;
  for (const nlohmann::json& b : doc.document.at("benchmarks")) {
    if (b.at("name") == name) out.push_back(b);
  }
  return out;
}

// The one entry named `name`'s counter `metric`; NaN (and a test failure) when absent.
inline double value_of(const results::peers::PeerDocument& doc, const std::string& name,
                       const std::string& metric) {
  const std::vector<nlohmann::json> e = entries(doc, name);
  EXPECT_EQ(e.size(), 1u) << name;
  if (e.size() != 1 || !e[0].contains(metric)) {
    ADD_FAILURE() << name << " has no " << metric;
    return std::nan("");
  }
  return e[0].at(metric).get<double>();
}

// The message of the Error(bad_input) `f` throws; "" (and a test failure) when it does not.
template <typename F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::bad_input);
    return e.what();
  }
  ADD_FAILURE() << "no refusal";
  return {};
}

// The context key `key` parsed as the JSON text the readers store there.
inline nlohmann::json context_json(const results::peers::PeerDocument& doc,
                                   const std::string& key) {
  return nlohmann::json::parse(doc.document.at("context").at(key).get<std::string>());
}

}  // namespace gpubench::testing
