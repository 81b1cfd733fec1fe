#include "suites/transfer/peer_access.hpp"

#include <exception>
#include <iostream>

namespace gpubench::transfer {

std::optional<std::string> ScopedPeerAccess::set(int device, int peer, PeerAccess want) {
  const PeerCall result = m_set(device, peer, want);
  if (result == PeerCall::too_many_peers) {
    return "GPU " + std::to_string(device) + " has no peer connection left to map GPU " +
           std::to_string(peer) +
           " (cudaErrorTooManyPeers: the system's peer connections per GPU are in use; without "
           "NVSwitch a GPU has at most eight)";
  }
  if (result == PeerCall::changed) {
    m_changes.push_back({device, peer, want == PeerAccess::on ? PeerAccess::off : PeerAccess::on});
  }
  return std::nullopt;
}

void ScopedPeerAccess::restore() noexcept {
  while (!m_changes.empty()) {
    const Change c = m_changes.back();
    m_changes.pop_back();
    try {
      if (m_set(c.device, c.peer, c.was) == PeerCall::too_many_peers) {
        std::cerr << "gpubench-transfer: warning: cannot restore peer access of GPU " << c.device
                  << " to GPU " << c.peer << " (no peer connection left)\n";
      }
    } catch (const std::exception& e) {
      std::cerr << "gpubench-transfer: warning: cannot restore peer access of GPU " << c.device
                << " to GPU " << c.peer << " (" << e.what() << ")\n";
    }
  }
}

}  // namespace gpubench::transfer
