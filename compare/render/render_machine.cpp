// Machine formats: JSON (every figure), JUnit XML (one test case per benchmark, failures for
// regressions), CSV (one row per compared series).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>

#include <nlohmann/json.hpp>

#include "compare/render/render.hpp"
#include "results/params_json.hpp"
#include "util/json_writer.hpp"
#include "util/strings.hpp"

namespace gpubench::compare {
namespace {

// JSON has no NaN/Inf: unknown figures are null.
nlohmann::json number(double v) {
  return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json();
}

nlohmann::json side_json(const SideStats& s) {
  return {{"n", s.n},
          {"device_index", s.device_index ? nlohmann::json(*s.device_index) : nlohmann::json()},
          {"runs", s.runs},
          {"executions", s.executions},
          {"per_run_medians", s.per_run},
          {"median", number(s.median)},
          {"cv", number(s.cv)},
          {"min", number(s.min)},
          {"max", number(s.max)},
          {"throttled", s.throttled},
          {"gpu_uuid", s.gpu_uuid},
          {"values", s.values}};
}

// Full precision for machines: 17 significant digits round-trip a double.
std::string format_significant_csv(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

nlohmann::json unmatched_json(const std::vector<Unmatched>& items) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& u : items) {
    out.push_back({{"suite", u.key.suite},
                   {"benchmark", u.key.benchmark},
                   {"metric", u.key.metric},
                   {"device", u.key.device},
                   {"reason", u.reason}});
  }
  return out;
}

nlohmann::json counts_json(const std::size_t* counts) {
  nlohmann::json out = nlohmann::json::object();
  for (Verdict v : k_all_verdicts) out[to_string(v)] = counts[static_cast<std::size_t>(v)];
  return out;
}

}  // namespace

// The JSON schema is documented in compare/SCHEMA.md; bump k_json_schema_version (render.hpp)
// on any change that is not a pure addition.
namespace {

// Every member of the document but "results".
nlohmann::json comparison_json_head(const Comparison& cmp) {
  nlohmann::json doc;
  doc["schema"] = "gpubench-compare";
  doc["schema_version"] = k_json_schema_version;
  doc["gpubench_version"] = cmp.options.gpubench_version.empty()
                                ? nlohmann::json()
                                : nlohmann::json(cmp.options.gpubench_version);
  doc["units"] =
      "relative figures (threshold, delta, cv, min_detectable_effect) are fractions: "
      "0.02 = 2%; ratio, ci_low, ci_high and speedup are candidate/base ratios";
  const auto annotations = [](const std::vector<RunHeader>& runs) {
    nlohmann::json out = nlohmann::json::array();
    for (const RunHeader& r : runs) {
      for (const std::string& a : r.annotations) out.push_back({{"run", r.id}, {"text", a}});
    }
    return out;
  };
  // Run ids are local to a database; UUIDs name the runs wherever the file goes (issue 39).
  const auto uuids = [](const std::vector<RunHeader>& runs) {
    nlohmann::json out = nlohmann::json::array();
    for (const RunHeader& r : runs) out.push_back(r.uuid);
    return out;
  };
  doc["base"] = {{"selection", cmp.base_selection},
                 {"runs", cmp.base_runs},
                 {"run_uuids", uuids(cmp.base_headers)},
                 {"annotations", annotations(cmp.base_headers)}};
  doc["candidate"] = {{"selection", cmp.candidate_selection},
                      {"runs", cmp.candidate_runs},
                      {"run_uuids", uuids(cmp.candidate_headers)},
                      {"annotations", annotations(cmp.candidate_headers)}};
  const Options& o = cmp.options;
  doc["options"] = {
      {"threshold", o.threshold},
      {"thresholds_file",
       o.thresholds_file.empty() ? nlohmann::json() : nlohmann::json(o.thresholds_file)},
      {"alpha", o.alpha},
      {"confidence", o.confidence},
      {"metric", o.metric ? nlohmann::json(*o.metric) : nlohmann::json()},
      {"fail_on", to_string(o.fail_on)},
      {"history_window", o.history_window},
      {"last", o.last},
      {"estimator", k_estimator_name}};
  nlohmann::json env = nlohmann::json::array();
  for (const auto& d : cmp.env_differences) {
    env.push_back({{"field", d.field}, {"base", d.base}, {"candidate", d.candidate}});
  }
  doc["environment_differences"] = env;
  doc["gpu_pairing"] = cmp.gpu_pairing.empty() ? nlohmann::json() : nlohmann::json(cmp.gpu_pairing);
  std::size_t counts[k_verdict_count] = {};
  for (Verdict v : k_all_verdicts) counts[static_cast<std::size_t>(v)] = cmp.count(v);
  doc["counts"] = counts_json(counts);
  doc["compared"] = cmp.compared();  // primary entries, the sum of "counts"
  doc["failing"] = cmp.failing(o.fail_on);
  doc["problems"] = cmp.problems;  // failed/interrupted runs and failed suites (issue 9)
  nlohmann::json suites = nlohmann::json::array();
  for (const auto& s : cmp.suites) {
    suites.push_back({{"suite", s.suite},
                      {"compared", s.compared},
                      {"counts", counts_json(s.counts)},
                      {"speedup_geomean", number(s.geomean)},
                      {"speedup_ci_low", number(s.geomean_low)},
                      {"speedup_ci_high", number(s.geomean_high)},
                      {"speedup_count", s.geomean_count}});
  }
  doc["suites"] = suites;
  doc["added"] = unmatched_json(cmp.added);
  doc["removed"] = unmatched_json(cmp.removed);
  doc["skipped"] = unmatched_json(cmp.skipped);
  return doc;
}

}  // namespace

nlohmann::json comparison_json(const Comparison& cmp) {
  nlohmann::json doc = comparison_json_head(cmp);
  const Options& o = cmp.options;
  nlohmann::json entries = nlohmann::json::array();
  for (const Entry& e : cmp.entries) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& p : e.params) {
      params[p.key] = p.number ? nlohmann::json(*p.number) : nlohmann::json(p.text);
    }
    std::optional<double> speedup = e.speedup();
    bool estimated = std::isfinite(e.ci_low);
    entries.push_back(
        {{"suite", e.key.suite},
         {"benchmark", e.key.benchmark},
         {"case", e.case_name},
         {"params", params},
         {"metric", e.key.metric},
         {"unit", e.unit},
         {"direction", direction_text(e.direction)},
         {"primary", e.primary},
         {"device", e.key.device},
         {"base", side_json(e.base)},
         {"candidate", side_json(e.candidate)},
         {"ratio", number(e.ratio)},
         {"ci_low", number(e.ci_low)},
         {"ci_high", number(e.ci_high)},
         {"speedup", speedup ? number(*speedup) : nlohmann::json()},
         {"p_value", number(e.p_value)},
         {"q_value", number(e.q_value)},
         {"df", estimated ? number(e.df) : nlohmann::json()},
         {"std_error_log", estimated ? number(e.std_error) : nlohmann::json()},
         {"delta", number(e.delta)},
         {"noise_source", estimated ? nlohmann::json(e.noise_source) : nlohmann::json()},
         {"sample_cv", number(e.sample_cv)},
         {"history_log_sd", e.history ? number(e.history->log_sd) : nlohmann::json()},
         {"history_runs", e.history ? e.history->runs : 0},
         {"history_variance", estimated ? number(e.history_variance) : nlohmann::json()},
         {"min_detectable_effect", number(e.mde)},
         {"execution_variance",
          e.by_execution && estimated ? number(e.execution_noise.variance) : nlohmann::json()},
         {"executions_needed", e.by_execution && e.executions_needed > 0
                                   ? nlohmann::json(e.executions_needed)
                                   : nlohmann::json()},
         {"verdict", to_string(e.verdict)},
         {"fails", entry_fails(e, o.fail_on)},
         {"reason", e.reason}});
  }
  doc["results"] = entries;
  return doc;
}

namespace {

// side_json, written directly (keys sorted, as a nlohmann object has them).
void write_side(JsonWriter& w, const SideStats& s) {
  w.begin_object();
  w.key("cv").number(s.cv);
  w.key("device_index").optional_integer(s.device_index);
  w.key("executions").unsigned_integer(s.executions);
  w.key("gpu_uuid").string(s.gpu_uuid);
  w.key("max").number(s.max);
  w.key("median").number(s.median);
  w.key("min").number(s.min);
  w.key("n").unsigned_integer(s.n);
  w.key("per_run_medians").boolean(s.per_run);
  w.key("runs").unsigned_integer(s.runs);
  w.key("throttled").unsigned_integer(s.throttled);
  w.key("values").number_array(s.values);
  w.end_object();
}

// One entry of "results": the members comparison_json gives it, in sorted key order.
void write_entry(JsonWriter& w, const Entry& e, FailOn fail_on,
                 std::vector<const results::Param*>& params) {
  const std::optional<double> speedup = e.speedup();
  const bool estimated = std::isfinite(e.ci_low);
  auto number_or_null = [&w](bool known, double v) -> JsonWriter& {
    return known ? w.number(v) : w.null();
  };
  w.begin_object();
  w.key("base");
  write_side(w, e.base);
  w.key("benchmark").string(e.key.benchmark);
  w.key("candidate");
  write_side(w, e.candidate);
  w.key("case").string(e.case_name);
  w.key("ci_high").number(e.ci_high);
  w.key("ci_low").number(e.ci_low);
  w.key("delta").number(e.delta);
  w.key("device").string(e.key.device);
  w.key("df");
  number_or_null(estimated, e.df);
  w.key("direction").string(direction_text(e.direction));
  w.key("execution_variance");
  number_or_null(e.by_execution && estimated, e.execution_noise.variance);
  w.key("executions_needed");
  if (e.by_execution && e.executions_needed > 0) {
    w.unsigned_integer(e.executions_needed);
  } else {
    w.null();
  }
  w.key("fails").boolean(entry_fails(e, fail_on));
  w.key("history_log_sd");
  number_or_null(e.history.has_value(), e.history ? e.history->log_sd : 0.0);
  w.key("history_runs").unsigned_integer(e.history ? e.history->runs : 0);
  w.key("history_variance");
  number_or_null(estimated, e.history_variance);
  w.key("metric").string(e.key.metric);
  w.key("min_detectable_effect").number(e.mde);
  w.key("noise_source");
  if (estimated) {
    w.string(e.noise_source);
  } else {
    w.null();
  }
  w.key("p_value").number(e.p_value);
  w.key("params");
  results::write_params(w, e.params, params);
  w.key("primary").boolean(e.primary);
  w.key("q_value").number(e.q_value);
  w.key("ratio").number(e.ratio);
  w.key("reason").string(e.reason);
  w.key("sample_cv").number(e.sample_cv);
  w.key("speedup");
  number_or_null(speedup.has_value(), speedup.value_or(0.0));
  w.key("std_error_log");
  number_or_null(estimated, e.std_error);
  w.key("suite").string(e.key.suite);
  w.key("unit").string(e.unit);
  w.key("verdict").string(to_string(e.verdict));
  w.end_object();
}

}  // namespace

// The document of comparison_json, written as it is produced: the entries one by one, the rest
// (small) through its own small documents. Byte for byte what comparison_json(cmp).dump(2) is.
void render_json(const Comparison& cmp, std::ostream& out) {
  nlohmann::json head = comparison_json_head(cmp);
  JsonWriter w(out);
  w.begin_object();
  bool results_written = false;
  for (auto& [key, value] : head.items()) {
    if (!results_written && key > std::string("results")) {
      w.key("results").begin_array();
      std::vector<const results::Param*> params;
      for (const Entry& e : cmp.entries) write_entry(w, e, cmp.options.fail_on, params);
      w.end_array();
      results_written = true;
    }
    w.key(key).value(value);
  }
  if (!results_written) {
    w.key("results").begin_array();
    std::vector<const results::Param*> params;
    for (const Entry& e : cmp.entries) write_entry(w, e, cmp.options.fail_on, params);
    w.end_array();
  }
  w.end_object();
  w.finish();
  out << '\n';
}

// A test case fails when its verdict fails the comparison under --fail-on (the exit code's rule);
// invalid entries are errors; missing ones that do not fail are skipped.
void render_junit(const Comparison& cmp, std::ostream& out) {
  FailOn policy = cmp.options.fail_on;
  auto is_failure = [&](const Entry& e) {
    return e.verdict != Verdict::invalid && entry_fails(e, policy);
  };
  auto is_skipped = [&](const Entry& e) { return e.verdict == Verdict::missing && !is_failure(e); };
  // Primary metrics only (one test case per benchmark), so the counts match every other format.
  auto tally = [&](const std::string* suite, auto pred) {
    std::size_t n = 0;
    for (const Entry& e : cmp.entries) {
      n += e.primary && (!suite || e.key.suite == *suite) && pred(e) ? 1 : 0;
    }
    return n;
  };
  auto invalid = [](const Entry& e) { return e.verdict == Verdict::invalid; };
  auto any = [](const Entry&) { return true; };
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << "<testsuites name=\"gpubench compare\" tests=\""
      << tally(nullptr, any) + cmp.skipped.size() + cmp.removed.size() << "\" failures=\""
      << tally(nullptr, is_failure) + (policy == FailOn::never ? 0 : cmp.removed.size())
      << "\" errors=\"" << tally(nullptr, invalid) << "\" skipped=\""
      << tally(nullptr, is_skipped) + cmp.skipped.size() << "\">\n";
  if (!cmp.problems.empty()) {  // failed/interrupted runs and failed suites, first (issue 9)
    out << "  <testsuite name=\"run problems\" tests=\"" << cmp.problems.size() << "\">\n";
    for (const std::string& p : cmp.problems) {
      out << "    <testcase classname=\"run\" name=\"" << html_escape(p) << "\"><system-out>"
          << html_escape(p) << "</system-out></testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  // One <testsuite> per benchmark suite.
  for (const auto& s : cmp.suites) {
    out << "  <testsuite name=\"" << html_escape(s.suite) << "\" tests=\"" << s.compared
        << "\" failures=\"" << tally(&s.suite, is_failure) << "\" errors=\""
        << s.count(Verdict::invalid) << "\" skipped=\"" << tally(&s.suite, is_skipped) << "\">\n";
    for (const Entry& e : cmp.entries) {
      if (e.key.suite != s.suite || !e.primary) continue;
      out << "    <testcase classname=\"" << html_escape(e.key.suite) << "\" name=\""
          << html_escape(e.key.benchmark + " " + e.key.metric + " " + e.key.device) << "\">";
      std::string detail = "base " + format_value(e.base.median) + " " + e.unit + ", candidate " +
                           format_value(e.candidate.median) + " " + e.unit + ", ratio " +
                           format_ratio(e.ratio) + " [" + format_ratio(e.ci_low) + ", " +
                           format_ratio(e.ci_high) + "]: " + e.reason;
      const char* verdict = to_string(e.verdict);
      if (e.verdict == Verdict::invalid) {
        out << "<error message=\"invalid\" type=\"invalid\">" << html_escape(detail) << "</error>";
      } else if (is_failure(e)) {
        out << "<failure message=\"" << verdict << "\" type=\"" << verdict << "\">"
            << html_escape(detail) << "</failure>";
      } else if (is_skipped(e)) {
        out << "<skipped message=\"missing: " << html_escape(e.reason) << "\"/>";
      } else {
        out << "<system-out>" << verdict << ": " << html_escape(detail) << "</system-out>";
      }
      out << "</testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  if (!cmp.skipped.empty()) {
    out << "  <testsuite name=\"skipped\" tests=\"" << cmp.skipped.size() << "\" skipped=\""
        << cmp.skipped.size() << "\">\n";
    for (const auto& u : cmp.skipped) {
      out << "    <testcase classname=\"" << html_escape(u.key.suite) << "\" name=\""
          << html_escape(u.key.benchmark + " " + u.key.metric + " " + u.key.device)
          << "\"><skipped message=\"" << html_escape(u.reason) << "\"/></testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  if (!cmp.removed.empty()) {  // in the base, not run now: failures unless --fail-on never
    const bool fail = policy != FailOn::never;
    out << "  <testsuite name=\"removed\" tests=\"" << cmp.removed.size() << "\" failures=\""
        << (fail ? cmp.removed.size() : 0) << "\">\n";
    for (const auto& u : cmp.removed) {
      out << "    <testcase classname=\"" << html_escape(u.key.suite) << "\" name=\""
          << html_escape(u.key.benchmark + " " + u.key.metric + " " + u.key.device) << "\">"
          << (fail ? "<failure message=\"removed\" type=\"removed\">" : "<system-out>removed: ")
          << html_escape(u.reason + ": the candidate did not run it")
          << (fail ? "</failure>" : "</system-out>") << "</testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
}

void render_csv(const Comparison& cmp, std::ostream& out) {
  for (const std::string& p : cmp.problems) out << "# problem: " << p << '\n';
  // Issue 39: gpu_uuid and primary as in the JSON, and the runs by UUID (ids are local to a
  // database), after the columns scripts already read by position.
  const auto uuids = [](const std::vector<RunHeader>& runs) {
    std::vector<std::string> parts;
    for (const RunHeader& r : runs) parts.push_back(r.uuid);
    return csv_field(join(parts, " "));
  };
  const std::string runs = uuids(cmp.base_headers) + ',' + uuids(cmp.candidate_headers);
  out << "suite,benchmark,metric,unit,direction,device,base_n,base_median,base_cv,candidate_n,"
         "candidate_median,candidate_cv,ratio,ci_low,ci_high,p_value,q_value,df,"
         "delta,history_runs,verdict,fails,reason,gpu_uuid,primary,base_run_uuids,"
         "candidate_run_uuids\n";
  auto num = [](double v) { return std::isfinite(v) ? format_significant_csv(v) : std::string(); };
  for (const Entry& e : cmp.entries) {
    out << csv_field(e.key.suite) << ',' << csv_field(e.key.benchmark) << ','
        << csv_field(e.key.metric) << ',' << csv_field(e.unit) << ',' << direction_text(e.direction)
        << ',' << e.key.device << ',' << e.base.n << ',' << num(e.base.median) << ','
        << num(e.base.cv) << ',' << e.candidate.n << ',' << num(e.candidate.median) << ','
        << num(e.candidate.cv) << ',' << num(e.ratio) << ',' << num(e.ci_low) << ','
        << num(e.ci_high) << ',' << num(e.p_value) << ',' << num(e.q_value) << ','
        << (std::isfinite(e.ci_low) ? num(e.df) : std::string()) << ',' << num(e.delta) << ','
        << (e.history ? e.history->runs : 0) << ',' << to_string(e.verdict) << ','
        << (entry_fails(e, cmp.options.fail_on) ? "true" : "false") << ',' << csv_field(e.reason)
        << ',' << csv_field(e.candidate.gpu_uuid.empty() ? e.base.gpu_uuid : e.candidate.gpu_uuid)
        << ',' << (e.primary ? "true" : "false") << ',' << runs << '\n';
  }
}

}  // namespace gpubench::compare
