#include "suites/allreduce/handshake.hpp"

#include <nlohmann/json.hpp>
#include <vector>

namespace gpubench::allreduce {

std::string agree_on_fingerprint(const World& world, const RankFingerprint& mine) {
  if (world.size() < 2) return "";
  const nlohmann::json own = {{"rank", mine.rank},       {"host", mine.host},
                              {"build", mine.build},     {"nccl", mine.nccl},
                              {"options", mine.options}, {"cases_hash", mine.cases_hash},
                              {"cases", mine.cases}};
  const std::vector<std::string> all = world.gather(own.dump());
  std::string verdict;
  if (world.rank() == 0) {
    std::vector<RankFingerprint> by_rank;
    for (const std::string& text : all) {
      const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
      RankFingerprint f;
      if (j.is_object()) {
        f.rank = j.value("rank", -1);
        f.host = j.value("host", std::string("unknown"));
        f.build = j.value("build", std::string());
        f.nccl = j.value("nccl", std::string());
        f.options = j.value("options", std::string());
        f.cases_hash = j.value("cases_hash", std::string());
        f.cases = j.value("cases", std::size_t{0});
      } else {
        f.build = "unreadable fingerprint";
      }
      by_rank.push_back(std::move(f));
    }
    verdict = fingerprint_mismatch(by_rank).value_or("");
  }
  return world.broadcast_text(verdict, 0);
}

}  // namespace gpubench::allreduce
