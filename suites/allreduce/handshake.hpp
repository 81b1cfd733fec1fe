// The ranks' handshake after registration, before the first case (rank_checks.hpp says what is
// compared and why): every rank's fingerprint is gathered to rank 0, compared there and the verdict
// broadcast, so every rank refuses together or none does.
#pragma once

#include <string>

#include "suites/allreduce/rank_checks.hpp"
#include "suites/allreduce/world.hpp"

namespace gpubench::allreduce {

// The refusal text, the same on every rank; "" when every rank matches rank 0 (and always in a
// world of one). Every rank must call it at the same point.
std::string agree_on_fingerprint(const World& world, const RankFingerprint& mine);

}  // namespace gpubench::allreduce
