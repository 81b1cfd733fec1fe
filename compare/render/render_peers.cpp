#include "compare/render/render_peers.hpp"

#include <cstdio>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "util/strings.hpp"
#include "util/text_width.hpp"

namespace gpubench::compare {
namespace {

// "101 GB/s (3)": the median and how many values it is of.
std::string value_text(double value, const std::string& unit, std::size_t n) {
  return format_value(value) + (unit.empty() ? "" : " " + unit) + " (" + std::to_string(n) + ")";
}

// Ratios near 1 with three decimals: 1.014, not 1.01 (a 3% check needs the third digit).
std::string ratio_text(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ratio);
  return buf;
}

std::string interval_text(const PeerLine& l) {
  if (!l.ci_low || !l.ci_high) return "-";
  return "[" + ratio_text(*l.ci_low) + ", " + ratio_text(*l.ci_high) + "]";
}

nlohmann::json side_json(const PeerSide& s) {
  return {{"run", s.run_id}, {"suite", s.suite},   {"benchmark", s.benchmark}, {"metric", s.metric},
          {"unit", s.unit},  {"median", s.median}, {"n", s.values.size()}};
}

}  // namespace

void render_peers_text(const PeerLineup& lineup, std::ostream& out) {
  std::size_t used = 0;
  for (const PeerRunUse& u : lineup.peer_runs) used += u.left_out.empty() ? 1 : 0;
  if (lineup.peer_runs.empty()) {
    out << "peers of run " << lineup.run_id << " (host " << lineup.host
        << "): no peer run of this host; import an nccl-tests, nvbandwidth, bandwidthTest, "
           "p2pBandwidthLatencyTest or nvbench output, or the JSON of the bundle's PyTorch "
           "script (gpu-check.d/pytorch_peer.py), with `gpubench import FILE`\n";
    return;
  }
  out << "peers of run " << lineup.run_id << " (host " << lineup.host << "): " << used
      << " peer run(s) of this host lined up, " << lineup.lines.size()
      << " line(s); ratio = gpubench / peer, " << format_significant(k_peer_confidence * 100, 2)
      << "% interval where both sides have " << k_peer_min_repetitions << "+ values\n";
  for (const PeerRunUse& u : lineup.peer_runs) {
    out << "  run " << u.run_id << " " << u.tool << " of " << u.started_at << ": "
        << (u.left_out.empty() ? std::to_string(u.lines) + " line(s)" : "left out, " + u.left_out)
        << '\n';
  }
  if (lineup.lines.empty()) {
    out << "  nothing in these peer runs measures what run " << lineup.run_id
        << " measured (same quantity, size and GPU)\n";
    return;
  }
  // Notes as footnotes: most lines of one tool share one.
  std::map<std::string, std::size_t> note_number;
  std::vector<std::string> notes;
  std::vector<std::vector<std::string>> rows;
  for (const PeerLine& l : lineup.lines) {
    auto [it, added] = note_number.try_emplace(l.note, notes.size() + 1);
    if (added) notes.push_back(l.note);
    rows.push_back({l.quantity, l.gpu.empty() ? "all" : l.gpu,
                    value_text(l.gpubench.median, l.gpubench.unit, l.gpubench.values.size()),
                    value_text(l.peer.median, l.peer.unit, l.peer.values.size()),
                    ratio_text(l.ratio), interval_text(l),
                    l.peer.suite + " run " + std::to_string(l.peer.run_id) + " [" +
                        std::to_string(it->second) + "]"});
  }
  out << '\n';
  // The quantity may go on a line of its own in a narrow terminal: nobody greps this table.
  print_table(out, {"quantity", "GPU", "gpubench (n)", "peer (n)", "ratio", "interval", "peer run"},
              rows, FirstColumn::may_stack);
  out << "notes:\n";
  for (std::size_t i = 0; i < notes.size(); ++i) {
    out << "  [" << i + 1 << "] " << notes[i] << '\n';
  }
}

void render_peers_section(const PeerLineup& lineup, std::ostream& out) {
  if (lineup.peer_runs.empty()) return;
  out << "\nPeers (imported outputs of other tools on this host; gpubench peers " << lineup.run_id
      << "):\n";
  render_peers_text(lineup, out);
}

nlohmann::json peers_json(const PeerLineup& lineup) {
  nlohmann::json runs = nlohmann::json::array();
  for (const PeerRunUse& u : lineup.peer_runs) {
    runs.push_back(
        {{"run", u.run_id},
         {"tool", u.tool},
         {"started_at", u.started_at},
         {"lines", u.lines},
         {"left_out", u.left_out.empty() ? nlohmann::json() : nlohmann::json(u.left_out)}});
  }
  nlohmann::json lines = nlohmann::json::array();
  for (const PeerLine& l : lineup.lines) {
    lines.push_back({{"quantity", l.quantity},
                     {"gpu", l.gpu.empty() ? nlohmann::json() : nlohmann::json(l.gpu)},
                     {"gpubench", side_json(l.gpubench)},
                     {"peer", side_json(l.peer)},
                     {"peer_scale", l.peer_scale},
                     {"ratio", l.ratio},
                     {"ci_low", l.ci_low ? nlohmann::json(*l.ci_low) : nlohmann::json()},
                     {"ci_high", l.ci_high ? nlohmann::json(*l.ci_high) : nlohmann::json()},
                     {"note", l.note}});
  }
  return {{"schema", "gpubench.peers/1"},    {"run", lineup.run_id}, {"host", lineup.host},
          {"confidence", k_peer_confidence}, {"peer_runs", runs},    {"lines", lines}};
}

}  // namespace gpubench::compare
