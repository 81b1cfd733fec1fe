// The line-up of gpubench's figures against imported peer tools' (compare/peers/lineup.hpp) as
// text (`gpubench peers`, the peers section of `report`) and JSON (`peers --format json`, the
// "peers" key of `report --format json`).
#pragma once

#include <iosfwd>

#include <nlohmann/json.hpp>

#include "compare/peers/lineup.hpp"

namespace gpubench::compare {

// A heading line, the peer runs looked at, then the table (fitted to the output width: the note
// column holds footnote marks, the notes follow the table). Says what to import when there is no
// peer run.
void render_peers_text(const PeerLineup& lineup, std::ostream& out);

// The peers section of `report`'s text: a blank line, "Peers:" and render_peers_text, indented;
// nothing when the run's host has no peer run (a report of a host without peers is unchanged).
void render_peers_section(const PeerLineup& lineup, std::ostream& out);

// {"schema": "gpubench.peers/1", "run", "host", "confidence", "peer_runs": [...], "lines": [...]}:
// numbers as numbers, an absent interval as null.
nlohmann::json peers_json(const PeerLineup& lineup);

}  // namespace gpubench::compare
