// `dcgmi diag` text and -j JSON -> acceptance facts (peers_dcgm.hpp). Pure functions of the text.
#include "results/peers/peers_dcgm.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace gpubench::results::peers {

using nlohmann::json;

namespace {

// The largest nesting a dcgmi document has is 8; beyond 64 the file is not one (and nlohmann
// parses recursively: a hostile file nesting 10^5 levels would overflow the stack).
constexpr int k_max_depth = 64;
// Characters of a Warning/Info text per table line (dcgmi's DATA_INFO_TAG_LEN).
constexpr std::size_t k_piece = 45;

[[noreturn]] void broken(const std::string& source, std::size_t line, const std::string& why,
                         const std::string& expected) {
  throw bad_input("cannot import '" + source + "' as dcgmi diag output",
                  (line > 0 ? "line " + std::to_string(line) + ": " : std::string()) + why +
                      (expected.empty() ? "" : "; expected " + expected),
                  // import adds "the database was not changed" to every reader's refusal
                  "pass the complete output of `dcgmi diag -r N` or `dcgmi diag -r N -j`");
}

// "Pass", "FAIL", "Warn", "Warning", "Skip", "Not Run" -> the fact's result; nullopt otherwise.
std::optional<std::string> result_of(std::string_view word) {
  const std::string w = to_lower(trim(word));
  if (w == "pass" || w == "passed") return "pass";
  if (w == "fail" || w == "failed") return "fail";
  if (w == "warn" || w == "warning") return "warn";
  if (w == "skip" || w == "skipped" || w == "not run") return "skip";
  return std::nullopt;
}

// Results in order of severity, for a test's summary against its GPUs' results.
int severity(const std::string& result) {
  if (result == "fail") return 3;
  if (result == "warn") return 2;
  if (result == "skip") return 1;
  return 0;
}

// "0, 2, 3" -> {0, 2, 3}; nullopt unless the text is only indices.
std::optional<std::vector<int>> index_list(std::string_view text) {
  std::vector<int> out;
  for (const std::string& part : split(text, ',')) {
    const auto v = parse_int(trim(part));
    if (!v || *v < 0 || *v > 4096) return std::nullopt;
    out.push_back(static_cast<int>(*v));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

// ---- text ------------------------------------------------------------------------------------

// A test's row and what follows it, as printed.
struct TextTest {
  std::string name;
  std::string summary;                               // the row's own result
  bool all = false;                                  // "<result> - All"
  std::vector<std::pair<int, std::string>> results;  // (GPU, result) from "- GPU(s)" and "GPUn:"
  std::vector<std::string> notes;                    // Warning/Info/Error texts, unwrapped
};

// A GPU list after "<result> - ": "All", "GPU: 1", "GPUs: 0, 2, 3", "GPU 3"; with the words
// after a ':' that follows the indices ("GPU 0: Uncorrectable ECC error").
struct GpuSpec {
  bool all = false;
  std::vector<int> gpus;
  std::string words;
};
std::optional<GpuSpec> gpu_spec(std::string_view text) {
  text = trim(text);
  GpuSpec s;
  if (to_lower(text) == "all") {
    s.all = true;
    return s;
  }
  if (text.rfind("GPUs", 0) == 0) {
    text.remove_prefix(4);
  } else if (text.rfind("GPU", 0) == 0) {
    text.remove_prefix(3);
  } else {
    return std::nullopt;
  }
  text = trim(text);
  if (!text.empty() && text.front() == ':') text = trim(text.substr(1));
  std::size_t end = 0;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) ||
                               text[end] == ',' || text[end] == ' ')) {
    ++end;
  }
  const auto list = index_list(text.substr(0, end));
  if (!list) return std::nullopt;
  s.gpus = *list;
  std::string_view rest = trim(text.substr(end));
  if (!rest.empty() && rest.front() == ':') s.words = std::string(trim(rest.substr(1)));
  return s;
}

// A result cell: "Pass", "Fail - All", "Pass - GPUs: 0, 2, 3", "Fail - GPU: 1".
struct ResultCell {
  std::string result;
  std::optional<GpuSpec> gpus;
};
std::optional<ResultCell> result_cell(std::string_view value) {
  const std::size_t dash = value.find(" - ");
  ResultCell c;
  const auto r = result_of(dash == std::string_view::npos ? value : value.substr(0, dash));
  if (!r) return std::nullopt;
  c.result = *r;
  if (dash != std::string_view::npos) {
    c.gpus = gpu_spec(value.substr(dash + 3));
    if (!c.gpus) return std::nullopt;
  }
  return c;
}

// "GPU0: Pass" (DCGM 4's lines under a test) -> (0, "pass").
std::optional<std::pair<int, std::string>> gpu_line(std::string_view value) {
  if (value.rfind("GPU", 0) != 0) return std::nullopt;
  const std::size_t colon = value.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto index = parse_int(trim(value.substr(3, colon - 3)));
  const auto r = result_of(value.substr(colon + 1));
  if (!index || *index < 0 || !r) return std::nullopt;
  return std::make_pair(static_cast<int>(*index), *r);
}

// "GPU 1 Max power ..." -> 1: the GPU a Warning/Info line speaks of, where it starts by naming one.
int gpu_named_by(std::string_view note) {
  if (note.rfind("GPU ", 0) != 0) return -1;
  std::size_t end = 4;
  while (end < note.size() && std::isdigit(static_cast<unsigned char>(note[end]))) ++end;
  if (end == 4) return -1;
  const auto v = parse_int(note.substr(4, end - 4));
  return v ? static_cast<int>(*v) : -1;
}

// A note's pieces joined: runs of spaces made one, the padding of the last piece dropped.
std::string squeeze(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return std::string(trim(out));
}

// "|-----  Deployment  --------+----|" or "+-----  Hardware  ---+---+": the section's name.
std::optional<std::string> section_name(std::string_view line) {
  if (line.size() < 8 || (line[0] != '|' && line[0] != '+') || line.substr(1, 3) != "---") {
    return std::nullopt;
  }
  const std::size_t plus = line.find('+', 1);
  std::string_view cell = line.substr(1, plus == std::string_view::npos ? line.size() : plus - 1);
  std::string name;
  for (const char c : cell) {
    if (c != '-') name += c;
  }
  name = std::string(trim(name));
  if (name.empty()) return std::nullopt;
  return name;
}

bool is_border(std::string_view line) {
  if (line.size() < 3 || line.front() != '+' || line.back() != '+') return false;
  return std::all_of(line.begin(), line.end(),
                     [](char c) { return c == '+' || c == '-' || c == '='; });
}

struct TextOutput {
  std::string version, driver;
  int detected_gpus = -1;  // "GPU Device IDs Detected": how many
  std::vector<TextTest> tests;
};

TextOutput read_text(std::string_view text, const std::string& source) {
  TextOutput out;
  std::vector<std::string> lines = split(text, '\n');
  bool in_table = false, done = false;
  std::string section;
  std::size_t section_start = 0;  // out.tests.size() when the section began
  std::string* note = nullptr;    // the Warning/Info/Error text a continuation line extends
  for (std::size_t i = 0; i < lines.size() && !done; ++i) {
    const std::size_t n = i + 1;
    std::string_view line = lines[i];
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (!in_table) {
      if (line.size() > 2 && line.front() == '|') {
        const auto cells = split(line, '|');
        if (cells.size() >= 3 && trim(cells[1]) == "Diagnostic" && trim(cells[2]) == "Result") {
          in_table = true;
        }
      }
      continue;  // text before the table: "Successfully ran diagnostic for group.", prompts
    }
    if (line.empty()) broken(source, n, "an empty line inside the table", "'| name | result |'");
    if (const auto s = section_name(line)) {
      section = *s;
      section_start = out.tests.size();
      note = nullptr;
      continue;
    }
    if (is_border(line)) {
      if (line.find('=') != std::string_view::npos) continue;  // under the header
      done = true;                                             // the table's last line
      continue;
    }
    if (line.front() != '|')
      broken(source, n, "'" + std::string(line.substr(0, 60)) + "'",
             "a table row '| name | result |'");
    const std::size_t bar = line.find('|', 1);
    if (bar == std::string_view::npos)
      broken(source, n, "a row with one cell", "'| name | result |'");
    const std::string name(trim(line.substr(1, bar - 1)));
    std::string_view rest = line.substr(bar + 1);
    if (!rest.empty() && rest.back() == '|') rest.remove_suffix(1);
    if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);  // the cell's left margin
    // dcgmi cuts a long Warning/Info into pieces of exactly k_piece characters (Diag.cpp
    // DisplayVerboseInfo), mid-word or at a space: a piece is joined to the next as it was cut.
    std::string piece(rest.substr(0, std::min(rest.size(), k_piece)));
    piece.resize(k_piece, ' ');
    while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
    const std::string value(rest);
    if (name.empty()) {  // a continuation: a GPU's line, or the next piece of a wrapped note
      if (!out.tests.empty()) {
        if (const auto g = gpu_line(value)) {
          out.tests.back().results.push_back(*g);
          note = nullptr;
          continue;
        }
        if (const auto c = result_cell(value); c && c->gpus && !c->gpus->all) {
          for (int g : c->gpus->gpus) out.tests.back().results.emplace_back(g, c->result);
          if (!c->gpus->words.empty()) out.tests.back().notes.push_back(c->gpus->words);
          note = nullptr;
          continue;
        }
      }
      if (note == nullptr) {
        broken(source, n,
               "a continuation line '" + value.substr(0, 60) + "' with nothing to continue",
               "a GPU's result ('GPU0: Pass', 'Fail - GPU: 1') or the rest of a Warning");
      }
      *note += piece;
      continue;
    }
    if (name == "DCGM Version") {
      out.version = value;
      continue;
    }
    if (name == "Driver Version Detected") {
      out.driver = value;
      continue;
    }
    if (name == "GPU Device IDs Detected") {
      out.detected_gpus = static_cast<int>(split(value, ',').size());
      continue;
    }
    if (section == "Metadata") continue;  // other metadata rows (EUD Test Version, ...)
    if (name == "Warning" || name == "Info" || name == "Error") {
      if (out.tests.size() == section_start) {
        // A note before any test of its section (an Error under Deployment): a fact of the
        // section itself.
        TextTest t;
        t.name = section.empty() ? "Diagnostic" : section;
        t.summary = name == "Error" ? "fail" : name == "Warning" ? "warn" : "pass";
        out.tests.push_back(t);
      }
      out.tests.back().notes.push_back(piece);
      note = &out.tests.back().notes.back();
      continue;
    }
    const auto cell = result_cell(value);
    if (!cell) {
      broken(source, n, "test '" + name + "' has result '" + value.substr(0, 60) + "'",
             "Pass, Fail, Warn, Skip or Not Run, optionally followed by ' - All' or ' - GPU(s): "
             "N, M'");
    }
    TextTest t;
    t.name = name;
    t.summary = cell->result;
    if (cell->gpus) {
      t.all = cell->gpus->all;
      for (int g : cell->gpus->gpus) t.results.emplace_back(g, cell->result);
      if (!cell->gpus->words.empty()) t.notes.push_back(cell->gpus->words);
    }
    out.tests.push_back(std::move(t));
    note = nullptr;
  }
  if (!in_table) {
    broken(source, 0, "no '| Diagnostic | Result |' table header",
           "the box table `dcgmi diag` prints");
  }
  if (out.tests.empty())
    broken(source, 0, "the table holds no test row", "rows such as '| memory | Pass |'");
  return out;
}

// Facts of one test from its GPUs' results, its own result and its notes.
void add_facts(const std::string& test, const std::string& summary,
               const std::vector<std::pair<int, std::string>>& results,
               const std::vector<std::pair<int, std::string>>& notes,
               std::vector<AcceptanceFact>& facts) {
  const std::size_t first = facts.size();
  std::set<int> seen;
  for (const auto& [gpu, result] : results) {
    if (!seen.insert(gpu).second) continue;  // a GPU named twice: the first line counts
    AcceptanceFact f;
    f.source = k_dcgm_diag_source;
    f.test = test;
    f.gpu_index = gpu;
    f.result = result;
    facts.push_back(f);
  }
  // The test's own result is worse than any GPU's (DCGM 4's pcie "Fail" over eight "GPUn: Pass"
  // lines): kept as a fact about the node, with the notes that say why.
  int worst = -1;
  for (std::size_t i = first; i < facts.size(); ++i)
    worst = std::max(worst, severity(facts[i].result));
  if (facts.size() == first || severity(summary) > worst) {
    AcceptanceFact f;
    f.source = k_dcgm_diag_source;
    f.test = test;
    f.result = summary;
    facts.push_back(f);
  }
  auto append = [](AcceptanceFact& f, const std::string& text) {
    if (text.empty()) return;
    f.info += (f.info.empty() ? "" : "; ") + text;
  };
  for (const auto& [gpu, text] : notes) {
    bool placed = false;
    for (std::size_t i = first; i < facts.size() && gpu >= 0; ++i) {
      if (facts[i].gpu_index == gpu) {
        append(facts[i], text);
        placed = true;
      }
    }
    // A note about no GPU of the list (or none named): on each result that is not a pass, else
    // on every fact of the test.
    for (std::size_t i = first; i < facts.size() && !placed; ++i) {
      if (facts[i].result != "pass") append(facts[i], text);
    }
    if (!placed && std::none_of(facts.begin() + static_cast<std::ptrdiff_t>(first), facts.end(),
                                [](const AcceptanceFact& f) { return f.result != "pass"; })) {
      for (std::size_t i = first; i < facts.size(); ++i) append(facts[i], text);
    }
  }
}

PeerDocument from_text(std::string_view text, const std::string& source) {
  const TextOutput t = read_text(text, source);
  int gpus = t.detected_gpus;
  if (gpus < 0) {
    for (const TextTest& test : t.tests) {
      for (const auto& r : test.results) gpus = std::max(gpus, r.first + 1);
    }
  }
  PeerDocument doc;
  for (const TextTest& test : t.tests) {
    std::vector<std::pair<int, std::string>> results = test.results;
    if (test.all && gpus > 0) {
      for (int g = 0; g < gpus; ++g) results.emplace_back(g, test.summary);
    }
    std::vector<std::pair<int, std::string>> notes;
    for (const std::string& note : test.notes) {
      const std::string words = squeeze(note);
      notes.emplace_back(gpu_named_by(words), words);
    }
    std::sort(results.begin(), results.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    add_facts(test.name, test.summary, results, notes, doc.facts);
  }
  doc.document = {{"context", json::object()}, {"benchmarks", json::array()}};
  json& c = doc.document["context"];
  if (!t.version.empty()) c["peer.version"] = t.version;
  if (!t.driver.empty()) c["gpubench.driver_version"] = t.driver;
  return doc;
}

// ---- JSON ------------------------------------------------------------------------------------

std::string text_of(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<long long>());
  return v.dump();
}

// Warnings and info of one result: strings, or objects holding "warning"/"message".
void collect_words(const json& v, std::vector<std::string>& out) {
  if (v.is_string()) {
    if (!v.get<std::string>().empty()) out.push_back(v.get<std::string>());
  } else if (v.is_array()) {
    for (const json& e : v) collect_words(e, out);
  } else if (v.is_object()) {
    for (const char* key : {"warning", "message", "messages"}) {
      if (v.contains(key)) collect_words(v[key], out);
    }
  }
}

// The GPUs a result speaks of: "gpu_id" (DCGM 3, a string or a number), "gpu_ids" (NVVS, "0,1,2"
// or a number), "entity_id" with entity_group "GPU" (DCGM 4); empty for the whole node.
std::vector<int> result_gpus(const json& r, const std::string& where, const std::string& source) {
  for (const char* key : {"gpu_id", "gpu_ids", "entity_id"}) {
    if (!r.contains(key)) continue;
    if (std::string(key) == "entity_id" && r.contains("entity_group") &&
        text_of(r["entity_group"]) != "GPU") {
      return {};  // a CPU or switch entity: about the node as far as GPUs go
    }
    const auto list = index_list(text_of(r[key]));
    if (!list) broken(source, 0, where + "." + key + " is " + r[key].dump(), "GPU indices");
    return *list;
  }
  return {};
}

PeerDocument from_json(std::string_view text, const std::string& source) {
  const std::size_t open = text.find('{');
  const std::size_t close = text.rfind('}');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    broken(source, 0, "no JSON object", "the output of `dcgmi diag -j`");
  }
  const std::string_view body = text.substr(open, close - open + 1);
  int depth = 0;
  bool in_string = false, escaped = false;
  for (const char ch : body) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (ch == '\\')
        escaped = true;
      else if (ch == '"')
        in_string = false;
    } else if (ch == '"') {
      in_string = true;
    } else if (ch == '{' || ch == '[') {
      if (++depth > k_max_depth)
        broken(source, 0, "JSON nested deeper than 64 levels", "a dcgmi diag document");
    } else if (ch == '}' || ch == ']') {
      --depth;
    }
  }
  json doc;
  try {
    doc = json::parse(body);
  } catch (const json::parse_error& e) {
    const std::size_t at = open + (e.byte > 0 ? e.byte - 1 : 0);
    const auto line =
        static_cast<std::size_t>(std::count(
            text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min(at, text.size())),
            '\n')) +
        1;
    broken(source, line, std::string("not valid JSON (") + e.what() + ")",
           "the complete output of `dcgmi diag -j`");
  }
  const char* root_key = doc.contains("DCGM GPU Diagnostic") ? "DCGM GPU Diagnostic"
                         : doc.contains("DCGM Diagnostic")   ? "DCGM Diagnostic"
                                                             : nullptr;
  if (root_key == nullptr || !doc[root_key].is_object()) {
    broken(source, 0, "no \"DCGM GPU Diagnostic\" (DCGM 3) or \"DCGM Diagnostic\" (DCGM 4) object",
           "the output of `dcgmi diag -j`");
  }
  const json& root = doc[root_key];
  PeerDocument out;
  std::string version, driver;
  const json* meta =
      doc.contains("metadata") && doc["metadata"].is_object() ? &doc["metadata"] : nullptr;
  for (const json* m : {meta, &root}) {
    if (m == nullptr) continue;
    if (version.empty() && m->contains("version")) version = text_of((*m)["version"]);
    if (driver.empty() && m->contains("Driver Version Detected")) {
      driver = text_of((*m)["Driver Version Detected"]);
    }
  }
  const std::string runtime_error =
      root.contains("runtime_error") ? text_of(root["runtime_error"]) : std::string();
  const json* categories = root.contains("test_categories") ? &root["test_categories"] : nullptr;
  if (categories != nullptr && !categories->is_array()) {
    broken(source, 0, "test_categories is " + std::string(categories->type_name()), "an array");
  }
  for (std::size_t ci = 0; categories != nullptr && ci < categories->size(); ++ci) {
    const json& cat = (*categories)[ci];
    if (cat.is_null()) continue;
    const std::string at = "test_categories[" + std::to_string(ci) + "]";
    if (!cat.is_object() || !cat.contains("tests") || !cat["tests"].is_array()) {
      broken(source, 0, at + " has no \"tests\" array", "{\"category\": ..., \"tests\": [...]}");
    }
    for (std::size_t ti = 0; ti < cat["tests"].size(); ++ti) {
      const json& test = cat["tests"][ti];
      if (test.is_null()) continue;  // NVVS writes null between tests
      const std::string where = at + ".tests[" + std::to_string(ti) + "]";
      if (!test.is_object() || !test.contains("name"))
        broken(source, 0, where + " has no name", "{\"name\": ..., \"results\": [...]}");
      const std::string name = text_of(test["name"]);
      std::vector<std::pair<int, std::string>> results, notes;
      std::string summary;
      if (test.contains("test_summary") && test["test_summary"].is_object() &&
          test["test_summary"].contains("status")) {
        const auto r = result_of(text_of(test["test_summary"]["status"]));
        if (!r)
          broken(source, 0,
                 where + ".test_summary.status is " + test["test_summary"]["status"].dump(),
                 "Pass, Fail, Warn, Skip or Not Run");
        summary = *r;
      }
      const json empty = json::array();
      const json& rs =
          test.contains("results") && test["results"].is_array() ? test["results"] : empty;
      for (std::size_t ri = 0; ri < rs.size(); ++ri) {
        const json& r = rs[ri];
        const std::string rwhere = where + ".results[" + std::to_string(ri) + "]";
        if (!r.is_object() || !r.contains("status"))
          broken(source, 0, rwhere + " has no status", "{\"status\": \"Pass\", ...}");
        const auto res = result_of(text_of(r["status"]));
        if (!res)
          broken(source, 0, rwhere + ".status is " + r["status"].dump(),
                 "Pass, Fail, Warn, Skip or Not Run");
        std::vector<std::string> words;
        if (r.contains("warnings")) collect_words(r["warnings"], words);
        if (r.contains("info")) collect_words(r["info"], words);
        const std::vector<int> gpus = result_gpus(r, rwhere, source);
        if (gpus.empty()) {
          // About the node: its result is the test's, unless the summary says more.
          if (summary.empty() || severity(*res) > severity(summary)) summary = *res;
          for (const std::string& w : words) notes.emplace_back(-1, w);
        }
        for (int g : gpus) {
          results.emplace_back(g, *res);
          for (const std::string& w : words) notes.emplace_back(g, w);
        }
      }
      if (summary.empty()) {
        // DCGM 3 has no summary: the worst GPU result.
        summary = "pass";
        for (const auto& r : results) {
          if (severity(r.second) > severity(summary)) summary = r.second;
        }
        if (results.empty() && rs.empty())
          broken(source, 0, where + " ('" + name + "') has no results",
                 "a results array or a test_summary");
      }
      add_facts(name, summary, results, notes, out.facts);
    }
  }
  if (out.facts.empty()) {
    broken(source, 0,
           runtime_error.empty() ? "no test results"
                                 : "dcgmi diag ran no test: " + runtime_error.substr(0, 300),
           "the output of a `dcgmi diag -r N -j` that ran");
  }
  out.failure = runtime_error;
  out.document = {{"context", json::object()}, {"benchmarks", json::array()}};
  json& c = out.document["context"];
  if (!version.empty()) c["peer.version"] = version;
  if (!driver.empty()) c["gpubench.driver_version"] = driver;
  return out;
}

}  // namespace

bool detect_dcgm_diag(std::string_view head) {
  if (head.find("\"DCGM GPU Diagnostic\"") != std::string_view::npos ||
      head.find("\"DCGM Diagnostic\"") != std::string_view::npos) {
    return true;
  }
  for (const std::string& line : split(head, '\n')) {
    if (line.find('|') == std::string::npos) continue;
    const auto cells = split(trim(line), '|');
    if (cells.size() >= 3 && trim(cells[1]) == "Diagnostic" && trim(cells[2]) == "Result")
      return true;
  }
  return false;
}

PeerDocument parse_dcgm_diag(std::string_view text, const std::string& source) {
  // JSON when its first '{' comes before any box-table line.
  const std::size_t brace = text.find('{');
  const std::size_t box = text.find("| Diagnostic");
  const bool is_json =
      brace != std::string_view::npos && (box == std::string_view::npos || brace < box);
  PeerDocument doc = is_json ? from_json(text, source) : from_text(text, source);
  doc.format = std::string(k_dcgm_format);
  json& c = doc.document["context"];
  c["gpubench.suite"] = std::string(k_dcgm_suite);
  c["peer.tool"] = k_dcgm_diag_source;
  c["gpubench.metrics"] = "[]";
  return doc;
}

}  // namespace gpubench::results::peers
