#include "harness/cli/nodes.hpp"

#include <algorithm>
#include <ostream>
#include <set>

#include "results/sqlite/sqlite.hpp"
#include "util/strings.hpp"

namespace gpubench::harness {

namespace {

// Context values are strings holding JSON (Google Benchmark's custom context is string-valued);
// a value may also already be JSON.
nlohmann::json context_value(const nlohmann::json& context, const char* key) {
  const auto it = context.find(key);
  if (it == context.end()) return nullptr;
  if (it->is_string()) {
    nlohmann::json parsed = nlohmann::json::parse(it->get<std::string>(), nullptr, false);
    return parsed.is_discarded() ? nlohmann::json(nullptr) : parsed;
  }
  return *it;
}

std::string text_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

int int_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : 0;
}

// The summary's lines ("<series>: peak busbw ..."), each after `label` (an execution's, or "").
void print_summary(std::ostream& out, const nlohmann::json& summary, const std::string& label) {
  if (!summary.is_object()) return;
  if (const auto series = summary.find("series"); series != summary.end() && series->is_array()) {
    for (const auto& x : *series) {
      out << "  " << label << text_of(x, "series") << ": peak busbw "
          << format_significant(x.value("peak_busbw_GB_per_s", 0.0), 4) << " GB/s at "
          << text_of(x, "peak_bytes") << " B, 90% of it from " << text_of(x, "knee_bytes") << " B";
      const auto eff = x.find("scaling_efficiency_vs_2_ranks");
      if (eff != x.end() && eff->is_number()) {
        out << ", scaling efficiency vs 2 ranks " << format_significant(eff->get<double>(), 3);
      }
      // Why a series across nodes has no efficiency against ranks:2 on one node (m12): said
      // where the suite stored it, so the missing figure is not read as a missing measurement.
      if (const auto note = x.find("scaling_note"); note != x.end() && note->is_string()) {
        out << "; " << note->get<std::string>();
      }
      out << '\n';
    }
  }
  if (const auto slow = summary.find("slow_ranks");
      slow != summary.end() && slow->is_array() && !slow->empty()) {
    out << "  " << label << "slow rank named in " << slow->size() << " case"
        << (slow->size() == 1 ? "" : "s") << " (own median time > 1.10x the median rank's), e.g. "
        << text_of((*slow)[0], "benchmark") << ": " << text_of((*slow)[0], "text") << '\n';
  }
}

}  // namespace

SuiteNodes nodes_from_context(const std::string& suite, const nlohmann::json& context) {
  SuiteNodes out;
  out.suite = suite;
  if (!context.is_object()) return out;
  const nlohmann::json ranks = context_value(context, "gpubench.ranks");
  if (ranks.is_array()) {
    for (const auto& r : ranks) {
      if (!r.is_object()) continue;
      RankRecord rec;
      rec.rank = int_of(r, "rank");
      rec.local_rank = int_of(r, "local_rank");
      rec.gpus = text_of(r, "gpus");
      rec.nccl = text_of(r, "nccl");
      rec.mpi = text_of(r, "mpi");
      if (const auto env = r.find("env"); env != r.end() && env->is_object()) {
        for (const auto& [k, v] : env->items())
          rec.env[k] = v.is_string() ? v.get<std::string>() : v.dump();
      }
      std::string host = text_of(r, "host");
      if (host.empty()) host = results::k_unknown;
      auto node = std::find_if(out.nodes.begin(), out.nodes.end(),
                               [&](const NodeRecord& n) { return n.host == host; });
      if (node == out.nodes.end()) {
        out.nodes.push_back(NodeRecord{host, {}});
        node = out.nodes.end() - 1;
      }
      node->ranks.push_back(std::move(rec));
    }
  }
  out.summary = context_value(context, "gpubench.allreduce.summary");
  return out;
}

std::vector<SuiteNodes> read_suite_nodes(results::Store& store, int64_t run_id) {
  std::vector<SuiteNodes> out;
  results::Statement st = store.database().prepare(
      "SELECT suite, context FROM suite_runs WHERE run_id = ?1 AND context IS NOT NULL ORDER BY "
      "id");
  st.bind(1, run_id);
  while (st.step()) {
    const nlohmann::json context = nlohmann::json::parse(st.column_text(1), nullptr, false);
    if (context.is_discarded()) continue;
    SuiteNodes s = nodes_from_context(st.column_text(0), context);
    if (s.nodes.empty() && s.summary.is_null()) continue;
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const SuiteNodes& o) { return o.suite == s.suite; });
    if (same == out.end()) {
      out.push_back(std::move(s));
      continue;
    }
    // A further execution of the suite (issue 35): its ranks where they are new, its summary.
    if (same->executions++ == 1) same->execution_summaries.push_back(same->summary);
    same->execution_summaries.push_back(s.summary);
    if (same->summary.is_null()) same->summary = s.summary;
    for (NodeRecord& n : s.nodes) {
      auto node = std::find_if(same->nodes.begin(), same->nodes.end(),
                               [&](const NodeRecord& m) { return m.host == n.host; });
      if (node == same->nodes.end()) {
        same->nodes.push_back(std::move(n));
        continue;
      }
      for (RankRecord& r : n.ranks) {
        if (std::none_of(node->ranks.begin(), node->ranks.end(),
                         [&](const RankRecord& m) { return m.rank == r.rank; })) {
          node->ranks.push_back(std::move(r));
        }
      }
      std::stable_sort(node->ranks.begin(), node->ranks.end(),
                       [](const RankRecord& a, const RankRecord& b) { return a.rank < b.rank; });
    }
  }
  return out;
}

void print_suite_nodes(std::ostream& out, const std::vector<SuiteNodes>& suites) {
  for (const SuiteNodes& s : suites) {
    std::size_t ranks = 0;
    std::set<std::string> versions;
    for (const auto& n : s.nodes) {
      ranks += n.ranks.size();
      for (const auto& r : n.ranks)
        versions.insert((r.mpi.empty() ? "MPI none" : r.mpi) + ", " + r.nccl);
    }
    if (!s.nodes.empty()) {
      out << "nodes of " << s.suite
          << (s.executions > 1 ? " (" + std::to_string(s.executions) + " executions)" : "") << ": "
          << ranks << " rank" << (ranks == 1 ? "" : "s") << " on " << s.nodes.size() << " node"
          << (s.nodes.size() == 1 ? "" : "s") << " ("
          << join(std::vector<std::string>(versions.begin(), versions.end()), "; ") << ")\n";
    }
    for (const auto& n : s.nodes) {
      std::vector<std::string> rank_ids, locals, gpus;
      std::map<std::string, std::set<std::string>> env;
      for (const auto& r : n.ranks) {
        rank_ids.push_back(std::to_string(r.rank));
        locals.push_back(std::to_string(r.local_rank));
        if (!r.gpus.empty()) gpus.push_back(r.gpus);
        for (const auto& [k, v] : r.env) env[k].insert(v);
      }
      std::vector<std::string> env_text;
      for (const auto& [k, values] : env) {
        env_text.push_back(k + "=" +
                           join(std::vector<std::string>(values.begin(), values.end()), "|"));
      }
      out << "  node " << n.host << ": ranks " << join(rank_ids, ",") << " (local "
          << join(locals, ",") << "), GPUs " << (gpus.empty() ? "none" : join(gpus, " "));
      if (!env_text.empty()) out << "; env " << join(env_text, " ");
      out << '\n';
    }
    if (s.execution_summaries.empty()) {
      print_summary(out, s.summary, "");
    } else {
      for (std::size_t e = 0; e < s.execution_summaries.size(); ++e) {
        print_summary(out, s.execution_summaries[e],
                      "execution " + std::to_string(e + 1) + " of " +
                          std::to_string(s.execution_summaries.size()) + ": ");
      }
    }
  }
}

nlohmann::json suite_nodes_json(const std::vector<SuiteNodes>& suites) {
  nlohmann::json arr = nlohmann::json::array();
  for (const SuiteNodes& s : suites) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& n : s.nodes) {
      nlohmann::json ranks = nlohmann::json::array();
      for (const auto& r : n.ranks) {
        ranks.push_back({{"rank", r.rank},
                         {"local_rank", r.local_rank},
                         {"gpus", r.gpus},
                         {"nccl", r.nccl},
                         {"mpi", r.mpi},
                         {"env", r.env}});
      }
      nodes.push_back({{"host", n.host}, {"ranks", ranks}});
    }
    nlohmann::json suite = {{"suite", s.suite}, {"nodes", nodes}, {"summary", s.summary}};
    if (!s.execution_summaries.empty()) {
      suite["executions"] = s.executions;
      suite["execution_summaries"] = s.execution_summaries;
    }
    arr.push_back(std::move(suite));
  }
  return arr;
}

}  // namespace gpubench::harness
