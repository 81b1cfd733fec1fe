// Peer access for one peer-to-peer case, restored when the case ends. CUDA-free: the CUDA calls
// come in as a function, so the rule is host-tested against a fake driver (tests/suites/
// test_transfer_peer_access.cpp); p2p_runner.cpp passes cudaDeviceEnablePeerAccess /
// cudaDeviceDisablePeerAccess.
//
// Why: access granted by cudaDeviceEnablePeerAccess is one-directional and lasts until it is
// disabled, and without NVSwitch a GPU has a limited number of peer connections (eight: CUDA
// Programming Guide, "Peer-to-Peer Memory Access"; one more fails with cudaErrorTooManyPeers). A
// suite that enabled every pair it measured and never disabled one failed the later peer cases of
// a PCIe host with more than 9 GPUs, and each case's starting state depended on the cases before
// it. Each case now starts from the process's initial state and leaves it so.
//
// Not thread-safe; one per case, on the thread that runs it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "suites/transfer/transfer_cases.hpp"

namespace gpubench::transfer {

// What one call that sets `device` -> `peer` access did.
enum class PeerCall {
  changed,         // the state was flipped (enabled, or disabled)
  unchanged,       // it already was as asked (cudaErrorPeerAccessAlreadyEnabled / NotEnabled)
  too_many_peers,  // enabling needs a peer connection `device` does not have
                   // (cudaErrorTooManyPeers)
};

// Sets whether `device` maps `peer`'s memory. Throws on any other failure. A call that disables
// access must first wait for the work that may use the mapping (both devices idle).
using PeerSetter = std::function<PeerCall(int device, int peer, PeerAccess want)>;

class ScopedPeerAccess {
 public:
  explicit ScopedPeerAccess(PeerSetter set) : m_set(std::move(set)) {}
  ~ScopedPeerAccess() { restore(); }
  ScopedPeerAccess(const ScopedPeerAccess&) = delete;
  ScopedPeerAccess& operator=(const ScopedPeerAccess&) = delete;

  // Sets `device` -> `peer` to `want` and remembers a change to undo. Returns the reason the case
  // must be skipped when `device` has no peer connection left (names both GPUs), else nullopt.
  [[nodiscard]] std::optional<std::string> set(int device, int peer, PeerAccess want);

  // Undoes every change, last first (also done by the destructor). A failure to undo is written
  // to stderr as a warning, never thrown: the case's result stands, and a later case that then
  // runs out of peer connections is skipped with the reason.
  void restore() noexcept;

 private:
  struct Change {
    int device;
    int peer;
    PeerAccess was;
  };
  PeerSetter m_set;
  std::vector<Change> m_changes;
};

}  // namespace gpubench::transfer
