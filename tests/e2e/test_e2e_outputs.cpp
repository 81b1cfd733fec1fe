// Issue 43 end to end through the real CLI: what gpubench writes never destroys the database
// (-o onto it, site pages over it), never passes stored control characters to a terminal or raw
// HTML into Markdown, never puts sidecar files beside a device, never dies on a stored string
// that is not UTF-8, refuses such text at every input, and gives suites pages of their own.
// Every benchmark file here is a FIXTURE with made-up numbers and hostile names.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e_support.hpp"
#include "results/annotations.hpp"
#include "results/store.hpp"
#include "util/strings.hpp"

namespace gpubench::e2e {
namespace {

using nlohmann::json;

constexpr const char* k_esc = "\x1b[31mRED\x1b[0m";
constexpr const char* k_rlo = "\xe2\x80\xae";  // U+202E RIGHT-TO-LEFT OVERRIDE

// FIXTURE Google Benchmark file: `names` with 3 repetitions each, real_time `time_ns` (+ rep).
json gbench_doc(const std::string& host, const std::vector<std::string>& names, double time_ns,
                const std::string& suite = "") {
  json benchmarks = json::array();
  for (const std::string& name : names) {
    for (int rep = 0; rep < 3; ++rep) {
      benchmarks.push_back(
          iteration_entry({name, rep, 3, 1, time_ns + rep, time_ns + rep}, {{"items", 5.0}}));
    }
  }
  json context = {{"date", "2026-12-01T10:00:00+00:00"}, {"host_name", host}, {"num_cpus", 2}};
  if (!suite.empty()) context["gpubench.suite"] = suite;
  return {{"context", context}, {"benchmarks", benchmarks}};
}

// Hostile names: an escape sequence, carriage returns, a bidi override, HTML.
std::vector<std::string> hostile_names() {
  return {std::string("sec/") + k_esc + "/n:1", "sec/\r\rCR/n:8",
          std::string("sec/") + k_rlo + "gnp.exe/n:6", "sec/<script>alert(1)</script>/n:2"};
}

class E2eOutputs : public ::testing::Test {
 protected:
  // Imports `doc` as run N; extra import arguments after the file.
  void import(const json& doc, const std::vector<std::string>& extra = {}) {
    const fs::path path = m_ws.root() / ("in" + std::to_string(++m_files) + ".json");
    write_file_atomic(path, doc.dump());
    std::vector<std::string> args = {"import", path.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult r = m_ws.run(args);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  // Two runs of the hostile names (the second 2x slower), a hostile host, tag and annotation.
  void import_hostile() {
    const std::string host = std::string("<b>host</b>") + k_esc;
    import(gbench_doc(host, hostile_names(), 100),
           {"--suite", "sec", "--tag", std::string("ctl=x") + k_esc});
    import(gbench_doc(host, hostile_names(), 200), {"--suite", "sec"});
    const CliResult a = m_ws.run({"annotate", "2", std::string("x") + k_esc + "\r" + k_rlo});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_FALSE(contains(a.out, "\x1b")) << a.out;
    EXPECT_TRUE(contains(a.out, "x\\x1b[31mRED\\x1b[0m\\r\\u202e")) << a.out;
  }
  std::string file_bytes(const fs::path& p) const { return read_file(p); }

  Workspace m_ws;
  int m_files = 0;
};

// A raw control character or bidi override anywhere in `text`.
std::string hidden_in(const std::string& text) {
  for (const char* bad : {"\x1b", "\r", k_rlo, "\x07"}) {
    if (contains(text, bad)) return "raw " + json(std::string(bad)).dump() + " in output";
  }
  return "";
}

TEST_F(E2eOutputs, OutputOntoTheDatabaseIsRefusedAndTheDatabaseKept) {
  import(gbench_doc("fixture-host", {"fx/a/n:1", "fx/b/n:2"}, 100), {"--suite", "fx"});
  import(gbench_doc("fixture-host", {"fx/a/n:1", "fx/b/n:2"}, 200), {"--suite", "fx"});
  const std::string db = m_ws.db().string();
  const std::string before = file_bytes(m_ws.db());
  const fs::path link = m_ws.root() / "r.html";
  fs::create_symlink(m_ws.db(), link);
  const std::vector<std::vector<std::string>> commands = {
      {"export", "1", "--format", "json", "-o", db},
      {"export", "1", "--format", "csv", "-o", link.string()},
      {"compare", "1", "2", "--format", "html", "-o", db},
      {"compare", "1", "2", "--format", "html", "-o", link.string()},
      {"compare", "1", "2", "-o", db + "-wal"},
      {"history", "all", "-o", db},
      {"report", "1", "-o", db},
      {"accept", "2", "--against", "1", "-o", db},
      {"models", "-o", db},
      {"fleet", "-o", db},
      {"export", "1", "-o", (m_ws.root() / "." / "results.db").string()},
  };
  for (const auto& args : commands) {
    const CliResult r = m_ws.run(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args.back() << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "is the database")) << r.err;
    EXPECT_EQ(file_bytes(m_ws.db()), before) << args[0] << " " << args.back();
  }
  const CliResult runs = m_ws.run({"runs"});
  EXPECT_EQ(runs.exit_code, 0) << runs.err;

  // site -o DIR where the database is DIR/<page>: refused before any page is written.
  const fs::path dir = m_ws.root() / "s";
  fs::create_directories(dir);
  for (const char* page : {"index.html", "history.json"}) {
    fs::copy_file(m_ws.db(), dir / page, fs::copy_options::overwrite_existing);
    const CliResult r = m_ws.run({"site", "-o", dir.string(), "--db", (dir / page).string()});
    EXPECT_EQ(r.exit_code, 2) << page << ": " << r.out << r.err;
    EXPECT_EQ(file_bytes(dir / page), before) << page;
  }
}

TEST_F(E2eOutputs, TextAndMarkdownShowStoredControlCharactersAsVisibleEscapes) {
  import_hostile();
  const std::vector<std::vector<std::string>> commands = {
      {"runs"},
      {"show", "1"},
      {"report", "2"},
      {"report", "2", "--format", "md"},
      {"compare", "1", "2"},
      {"compare", "1", "2", "--format", "md"},
      {"history", "all"},
      {"history", "all", "--format", "md"},
      {"history", "all", "--changes"},
      {"accept", "2", "--against", "1"},
      {"annotate", "1", std::string("y") + k_esc},
      {"compare", "1", "nosuch" + std::string(k_esc)},  // the error message quotes it
  };
  for (const auto& args : commands) {
    const CliResult r = m_ws.run(args);
    EXPECT_LE(r.exit_code, 2) << args[0];
    EXPECT_EQ(hidden_in(r.out), "") << args[0] << " " << args.back() << ":\n" << r.out;
    EXPECT_EQ(hidden_in(r.err), "") << args[0] << " " << args.back() << ":\n" << r.err;
  }
  // The escapes are visible, not dropped: the names stay recognisable.
  const CliResult show = m_ws.run({"show", "1"});
  EXPECT_TRUE(contains(show.out, "\\x1b[31mRED\\x1b[0m/n:1")) << show.out;
  EXPECT_TRUE(contains(show.out, "\\u202egnp.exe")) << show.out;
  // -o FILE gets the same text as stdout.
  const fs::path out = m_ws.root() / "cmp.md";
  ASSERT_EQ(m_ws.run({"compare", "1", "2", "--format", "md", "-o", out.string()}).exit_code, 1);
  EXPECT_EQ(hidden_in(read_file(out)), "");
  // Data formats keep their own escaping: JSON carries the name exactly.
  const CliResult js = m_ws.run({"show", "1", "--format", "json"});
  ASSERT_EQ(js.exit_code, 0) << js.err;
  EXPECT_TRUE(contains(json::parse(js.out).dump(), "\\u001b[31mRED")) << js.out.substr(0, 400);
}

TEST_F(E2eOutputs, HistoryMarkdownEscapesHtmlAsCompareDoes) {
  import_hostile();
  for (const auto& args : {std::vector<std::string>{"history", "all", "--format", "md"},
                           std::vector<std::string>{"compare", "1", "2", "--format", "md"}}) {
    const CliResult r = m_ws.run(args);
    EXPECT_FALSE(contains(r.out, "<script>")) << args[0] << ":\n" << r.out;
    EXPECT_FALSE(contains(r.out, "<b>")) << args[0] << ":\n" << r.out;
    EXPECT_TRUE(contains(r.out, "&lt;script&gt;")) << args[0] << ":\n" << r.out;
  }
}

// FIXTURE `gpubench export` document of a made-up 4-GPU server whose GPU name is hostile, for
// models and fleet (GPU 3 at 85%).
json gpu_export(int run) {
  const std::string model = std::string("NVIDIA <img src=x onerror=alert(1)>") + k_esc;
  json gpus = json::array(), results = json::array();
  for (int g = 0; g < 4; ++g) {
    gpus.push_back({{"nvml_index", g},
                    {"uuid", "GPU-FIXTURE-" + std::to_string(g)},
                    {"name", model},
                    {"memory_bytes", 80'000'000'000},
                    {"power_limit_w", 700}});
    json values = json::array();
    for (int rep = 0; rep < 5; ++rep) values.push_back((3000.0 + rep + run) * (g == 3 ? 0.85 : 1));
    results.push_back({{"suite", "memory"},
                       {"suite_run", 1},
                       {"benchmark", "memory/device_triad/device:" + std::to_string(g)},
                       {"metric", "GB_per_s"},
                       {"unit", "GB/s"},
                       {"direction", "higher"},
                       {"role", "primary"},
                       {"device_index", g},
                       {"values", values}});
  }
  return {
      {"run",
       {{"uuid", "00000000-0000-4000-8000-" + std::string(11, '0') + std::to_string(run)},
        {"started_at", "2026-12-0" + std::to_string(1 + run) + "T07:00:00Z"},
        {"finished_at", "2026-12-0" + std::to_string(1 + run) + "T08:00:00Z"},
        {"status", "complete"}}},
      {"environment", {{"host", {{"hostname", "evil-<script>alert(1)</script>"}}}, {"gpus", gpus}}},
      {"suites", json::array({{{"id", 1}, {"suite", "memory"}, {"status", "ok"}}})},
      {"results", results}};
}

TEST_F(E2eOutputs, ModelsAndFleetEscapeHostileGpuNames) {
  import(gpu_export(0));
  import(gpu_export(1));
  const fs::path prices = m_ws.root() / "p.csv";
  write_file_atomic(prices,
                    std::string("model,price,currency\nNVIDIA,25000,<b>USD</b>") + k_esc + "\n");
  for (const std::string format : {"text", "md"}) {
    const CliResult models = m_ws.run({"models", "--prices", prices.string(), "--format", format});
    ASSERT_EQ(models.exit_code, 0) << models.err;
    EXPECT_EQ(hidden_in(models.out), "") << models.out;
    if (format == "md") {
      EXPECT_FALSE(contains(models.out, "<img")) << models.out;
      EXPECT_FALSE(contains(models.out, "<script>")) << models.out;
      EXPECT_FALSE(contains(models.out, "<b>")) << models.out;
    }
  }
  const CliResult fleet = m_ws.run({"fleet"});
  EXPECT_EQ(fleet.exit_code, 1) << fleet.out << fleet.err;
  EXPECT_EQ(hidden_in(fleet.out), "") << fleet.out;
}

// FIXTURE: 5,001 benchmarks, so the Markdown report takes the large layout and its ok rows go to
// a sidecar CSV beside -o FILE.
TEST_F(E2eOutputs, SidecarFilesOnlyBesideARegularFile) {
  std::vector<std::string> names;
  for (int i = 0; i < 5001; ++i) names.push_back("big/case/n:" + std::to_string(i));
  json doc = gbench_doc("fixture-host", names, 100);
  for (json& b : doc["benchmarks"]) b["repetitions"] = 1;
  json one = json::array();
  for (json& b : doc["benchmarks"]) {
    if (b["repetition_index"] == 0) one.push_back(b);
  }
  doc["benchmarks"] = one;
  import(doc, {"--suite", "big"});
  // A link to a device: the sidecar would land beside the link's name (as beside /dev/null).
  const fs::path link = m_ws.root() / "null.md";
  fs::create_symlink("/dev/null", link);
  const CliResult r = m_ws.run({"report", "1", "--format", "md", "-o", link.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(m_ws.root() / "null.results.csv"));
  // A regular file still gets its sidecar.
  const fs::path file = m_ws.root() / "rep.md";
  ASSERT_EQ(m_ws.run({"report", "1", "--format", "md", "-o", file.string()}).exit_code, 0);
  EXPECT_TRUE(fs::exists(m_ws.root() / "rep.results.csv"));
}

TEST_F(E2eOutputs, InvalidUtf8IsRefusedAtEveryTextInput) {
  import(gbench_doc("fixture-host", {"fx/a/n:1"}, 100), {"--suite", "fx"});
  const std::string bad = "bad \xff byte";
  const fs::path gb = m_ws.root() / "g.json";
  write_file_atomic(gb, gbench_doc("fixture-host", {"fx/a/n:1"}, 100).dump());
  const auto file_with = [&](const std::string& name, const std::string& text) {
    write_file_atomic(m_ws.root() / name, text);
    return (m_ws.root() / name).string();
  };
  const std::vector<std::vector<std::string>> commands = {
      {"annotate", "1", bad},
      {"import", gb.string(), "--tag", "k=" + bad},
      {"import", gb.string(), "--note", bad},
      {"import", gb.string(), "--suite", bad},
      {"models", "--prices", file_with("p.csv", "model,price,currency\nH100,25000,\xff\n")},
      {"models", "--weights", file_with("w.txt", "memory\xfe 1\n")},
      {"compare", "1", "1", "--thresholds", file_with("t.txt", "fx/* 5%\n\xc3(\n")},
      {"accept", "1", "--spec", file_with("s.txt", "fx/* items >= 1 \xff\n")},
  };
  for (const auto& args : commands) {
    const CliResult r = m_ws.run(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args[2] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "is not valid UTF-8")) << r.err;
    EXPECT_TRUE(contains(r.err, "at offset")) << r.err;
  }
  EXPECT_EQ(m_ws.run({"runs", "--format", "json"}).out.find("bad"), std::string::npos);
}

// A database from before the checks may hold such a string: JSON outputs write U+FFFD.
TEST_F(E2eOutputs, StoredInvalidUtf8IsWrittenAsReplacementCharacters) {
  import(gbench_doc("fixture-host", {"fx/a/n:1"}, 100), {"--suite", "fx"});
  import(gbench_doc("fixture-host", {"fx/a/n:1"}, 110), {"--suite", "fx"});
  {
    results::Store store =
        results::Store::open(m_ws.db().string(), results::OpenMode::read_write, 1000);
    results::add_annotation(store.database(), 2, "old \xff annotation");
  }
  for (const auto& args : {std::vector<std::string>{"export", "2", "--format", "json"},
                           std::vector<std::string>{"report", "2", "--format", "json"},
                           std::vector<std::string>{"compare", "1", "2", "--format", "json"},
                           std::vector<std::string>{"history", "all", "--format", "json"}}) {
    const CliResult r = m_ws.run(args);
    EXPECT_LE(r.exit_code, 1) << args[0] << ": " << r.err;
    EXPECT_FALSE(contains(r.err, "internal error")) << r.err;
    json parsed;
    EXPECT_NO_THROW(parsed = json::parse(r.out)) << args[0];
    EXPECT_TRUE(contains(r.out, "old \xef\xbf\xbd annotation")) << args[0];
  }
}

TEST_F(E2eOutputs, SuitesDifferingInPunctuationOrCaseGetPagesOfTheirOwn) {
  const std::vector<std::string> suites = {"a.b", "a_b", "a-b", "A.B"};
  for (const std::string& s : suites) import(gbench_doc("fixture-host", {s + "/x/n:1"}, 100, s));
  const fs::path dir = m_ws.root() / "site";
  const CliResult r = m_ws.run({"site", "-o", dir.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> pages;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("suite-")) pages.push_back(to_lower(name));
  }
  std::sort(pages.begin(), pages.end());
  EXPECT_EQ(pages.size(), 4u);
  EXPECT_EQ(std::unique(pages.begin(), pages.end()), pages.end());  // case-insensitively distinct
  const std::string index = read_file(dir / "index.html");
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("suite-")) continue;
    EXPECT_TRUE(contains(index, "href=\"" + name + "\"")) << name;
    // Each page lists exactly one suite's series.
    const std::string page = read_file(e.path());
    int listed = 0;
    for (const std::string& s : suites) listed += contains(page, ">" + s + "/x/n:1 ") ? 1 : 0;
    EXPECT_EQ(listed, 1) << name;
  }
}

TEST_F(E2eOutputs, ModelsInputFilesAreCheckedAndBounded) {
  import(gpu_export(0));
  const auto file_with = [&](const std::string& name, const std::string& text) {
    write_file_atomic(m_ws.root() / name, text);
    return (m_ws.root() / name).string();
  };
  for (const std::string weights :
       {"memory 1e308\nmemory/* 1e308\n", "memory 1\nmemory 2\n", "memory 1 2\n"}) {
    const CliResult r = m_ws.run({"models", "--weights", file_with("w.txt", weights)});
    EXPECT_EQ(r.exit_code, 2) << weights << r.out;
    EXPECT_TRUE(contains(r.err, "w.txt:")) << r.err;
  }
  // A spreadsheet's byte order mark is not a data line; a model matching no GPU is said.
  const CliResult bom = m_ws.run(
      {"models", "--prices",
       file_with("p.csv", "\xef\xbb\xbfmodel,price,currency\nNVIDIA,25000,USD\nA100,9,USD\n")});
  EXPECT_EQ(bom.exit_code, 0) << bom.err;
  EXPECT_TRUE(contains(bom.err, "p.csv:3: model 'A100' matches no GPU model")) << bom.err;
  // A device never ends: refused after a bounded read.
  const CliResult zero = m_ws.run({"models", "--prices", "/dev/zero"}, {}, 20);
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
  EXPECT_TRUE(contains(zero.err, "too big")) << zero.err;
}

TEST_F(E2eOutputs, MessagesNameWhatFailed) {
  import(gbench_doc("fixture-host", {"fx/a/n:1"}, 100), {"--suite", "fx"});
  const CliResult long_text = m_ws.run({"annotate", "1", std::string(4097, 'x')});
  EXPECT_EQ(long_text.exit_code, 2);
  EXPECT_TRUE(contains(long_text.err, "the annotation too long")) << long_text.err;
  EXPECT_FALSE(contains(long_text.err, "--note")) << long_text.err;
  // A full device: the OS's reason, not "Input/output error".
  if (fs::exists("/dev/full")) {
    const CliResult full = m_ws.run({"export", "1", "--format", "json", "-o", "/dev/full"});
    EXPECT_EQ(full.exit_code, 3) << full.err;
    EXPECT_TRUE(contains(full.err, "No space left on device")) << full.err;
  }
}

}  // namespace
}  // namespace gpubench::e2e
