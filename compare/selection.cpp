#include "compare/selection.hpp"

#include <limits>

#include "results/sqlite/sqlite.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"
#include "util/strings.hpp"
#include "util/suggest.hpp"

namespace gpubench::compare {
namespace {

using results::Statement;

// An --until-decided rerun (a few benchmarks of the run before it, results::k_rerun_tag_key) is
// not one of the newest runs of a group: tag:ci=nightly stays tonight's whole run.
const std::string k_not_rerun =
    std::string(
        "AND NOT EXISTS (SELECT 1 FROM run_tags x WHERE x.run_id = r.id "
        "AND trim(x.key) = '") +
    results::k_rerun_tag_key + "')";

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

std::vector<int64_t> ids_of(Statement& st) {
  std::vector<int64_t> ids;
  while (st.step()) ids.push_back(st.column_int64(0));
  return ids;
}

void check_name(const std::string& name) {
  if (name.empty() || name.find_first_of(" \t\n:") != std::string::npos) {
    throw bad_input("invalid baseline name '" + name + "'",
                    "a name must be non-empty without spaces or ':'",
                    "use a name like nightly-h200 or release-1.2");
  }
  if (name == k_previous_good) {
    throw bad_input("baseline name '" + name + "' is reserved",
                    "baseline:previous-good is the rolling baseline: the newest good run before "
                    "the run it is compared with",
                    "use another name, e.g. nightly");
  }
}

bool is_previous_good(const std::string& selection) {
  return trim(selection) == std::string("baseline:") + k_previous_good;
}

}  // namespace

int64_t previous_good_run(results::Store& store, int64_t candidate) {
  // Good: complete, every suite ok or skipped (run_problems finds nothing), not an
  // --until-decided rerun, not an imported file and not left out of history on purpose
  // (`history exclude`); on the candidate's host, started before it.
  Statement st = store.database().prepare(
      "SELECT r.id FROM runs r JOIN hosts h ON h.id = r.host_id, runs c "
      "JOIN hosts ch ON ch.id = c.host_id WHERE c.id = ?1 AND h.hostname = ch.hostname "
      "AND r.status = 'complete' AND (r.started_at < c.started_at OR "
      "(r.started_at = c.started_at AND r.id < c.id)) "
      "AND NOT EXISTS (SELECT 1 FROM suite_runs s WHERE s.run_id = r.id "
      "AND s.status NOT IN ('ok', 'skipped')) "
      "AND NOT EXISTS (SELECT 1 FROM history_exclusions e WHERE e.run_id = r.id) "
      "AND NOT EXISTS (SELECT 1 FROM run_tags x WHERE x.run_id = r.id AND trim(x.key) IN ('" +
      std::string(results::k_rerun_tag_key) + "', '" + results::k_imported_tag_key +
      "')) ORDER BY r.started_at DESC, r.id DESC LIMIT 1");
  st.bind(1, candidate);
  if (st.step()) return st.column_int64(0);
  throw bad_input("baseline:previous-good matches no run before run " + std::to_string(candidate),
                  "no earlier run on its host is complete with every suite ok (reruns, "
                  "imported files and runs excluded from history do not count)",
                  "compare with a named baseline (`gpubench baseline set NAME RUN`) until a good "
                  "run is stored; `gpubench runs` lists them");
}

std::pair<std::vector<int64_t>, std::vector<int64_t>> resolve_pair(results::Store& store,
                                                                   const std::string& first,
                                                                   const std::string& second,
                                                                   int last) {
  if (is_previous_good(first) && is_previous_good(second)) {
    throw bad_input("both sides are baseline:previous-good",
                    "the rolling baseline is the good run before the other side's run",
                    "give the run to judge as the other side, e.g. compare baseline:previous-good "
                    "RUN");
  }
  // The rolling baseline comes before the oldest run of the other side (ids are newest first).
  if (is_previous_good(first)) {
    std::vector<int64_t> other = resolve_selection(store, second, last);
    return {{previous_good_run(store, other.back())}, other};
  }
  if (is_previous_good(second)) {
    std::vector<int64_t> other = resolve_selection(store, first, last);
    return {other, {previous_good_run(store, other.back())}};
  }
  return {resolve_selection(store, first, last), resolve_selection(store, second, last)};
}

int64_t baseline_run(results::Store& store, const std::string& name) {
  if (name == k_previous_good) {
    throw bad_input("baseline:previous-good needs the run it is compared with",
                    "the rolling baseline is the newest good run before that run",
                    "use it as a side of compare or accept --against (`gpubench compare "
                    "baseline:previous-good RUN`)");
  }
  Statement st = store.database().prepare("SELECT run_id FROM baselines WHERE name = ?1");
  st.bind(1, name);
  if (st.step()) return st.column_int64(0);
  std::vector<std::string> names;
  for (const BaselineRow& b : list_baselines(store)) names.push_back(b.name);
  const std::string hint = did_you_mean(name, names, "baseline:");
  throw bad_input("unknown baseline '" + name + "'",
                  names.empty() ? "there are no baselines yet" : "known: " + join(names, ", "),
                  (hint.empty() ? std::string() : hint + " or ") +
                      "create one with `gpubench baseline set " + name + " RUN`");
}

std::vector<int64_t> resolve_selection(results::Store& store, const std::string& selection,
                                       int last) {
  if (last < 1) {
    throw bad_input("invalid --last " + std::to_string(last), "it must be 1 or more");
  }
  std::string sel(trim(selection));
  if (sel.empty()) {
    throw bad_input("empty selection", "a side of a comparison names no run",
                    "give a run id, 'latest', baseline:NAME, tag:K=V, host:NAME or gpu:MODEL");
  }
  if (starts_with(sel, "baseline:")) return {baseline_run(store, sel.substr(9))};
  // "tga:nightly": a mistyped selector kind (issue 26), before it is read as a run.
  if (const std::size_t colon = sel.find(':'); colon != std::string::npos) {
    const std::string kind = sel.substr(0, colon);
    if (const auto near = closest_match(kind, {"baseline", "tag", "host", "gpu"})) {
      throw bad_input("unknown selection '" + selection + "'",
                      "'" + kind + ":' is not a kind of selection (baseline:, tag:, host:, gpu:)",
                      "did you mean '" + *near + sel.substr(colon) + "'?");
    }
  }
  results::Database& db = store.database();
  // "tag:nightly~2": two runs further back than the newest.
  int64_t offset = 0;
  if (starts_with(sel, "tag:") || starts_with(sel, "host:") || starts_with(sel, "gpu:")) {
    std::size_t tilde = sel.rfind('~');
    if (tilde != std::string::npos && tilde + 1 < sel.size() &&
        sel.find_first_not_of("0123456789", tilde + 1) == std::string::npos) {
      offset = std::stoll(sel.substr(tilde + 1));
      sel.resize(tilde);
    }
  }
  std::vector<int64_t> ids;
  std::string what;
  if (starts_with(sel, "tag:")) {
    // Spaces around K and V are not part of a tag (cli::parse_tag trims them when storing):
    // trimmed here and in the stored rows (tags kept by older versions), so any spelling selects.
    std::string kv = sel.substr(4);
    std::size_t eq = kv.find('=');
    if (eq != std::string::npos) {
      kv = std::string(trim(kv.substr(0, eq))) + "=" + std::string(trim(kv.substr(eq + 1)));
    } else {
      kv = std::string(trim(kv));
    }
    eq = kv.find('=');
    // tag:until_decided=N asks for the reruns themselves.
    const std::string reruns = kv.substr(0, eq) == results::k_rerun_tag_key ? "" : k_not_rerun;
    Statement st = db.prepare(
        eq == std::string::npos
            ? "SELECT DISTINCT r.id, r.started_at FROM runs r JOIN run_tags t ON t.run_id = r.id "
              "WHERE r.status = 'complete' AND trim(t.key) = ?1 " +
                  reruns + " ORDER BY r.started_at DESC, r.id DESC LIMIT ?2 OFFSET ?4"
            : "SELECT DISTINCT r.id, r.started_at FROM runs r JOIN run_tags t ON t.run_id = r.id "
              "WHERE r.status = 'complete' AND trim(t.key) = ?1 AND trim(t.value) = ?3 " +
                  reruns + " ORDER BY r.started_at DESC, r.id DESC LIMIT ?2 OFFSET ?4");
    st.bind(1, kv.substr(0, eq));
    st.bind(2, static_cast<int64_t>(last));
    if (eq != std::string::npos) st.bind(3, kv.substr(eq + 1));
    st.bind(4, offset);
    ids = ids_of(st);
    what = "complete run tagged " + kv;
  } else if (starts_with(sel, "host:")) {
    Statement st = db.prepare(
        "SELECT r.id FROM runs r JOIN hosts h ON h.id = r.host_id WHERE r.status = 'complete' "
        "AND h.hostname = ?1 " +
        k_not_rerun + " ORDER BY r.started_at DESC, r.id DESC LIMIT ?2 OFFSET ?4");
    st.bind(1, sel.substr(5));
    st.bind(2, static_cast<int64_t>(last));
    st.bind(4, offset);
    ids = ids_of(st);
    what = "complete run on host " + sel.substr(5);
  } else if (starts_with(sel, "gpu:")) {
    // instr() rather than LIKE: the substring is literal, '%' and '_' are not wildcards.
    Statement st = db.prepare(
        "SELECT DISTINCT r.id, r.started_at FROM runs r JOIN run_gpus rg ON rg.run_id = r.id "
        "JOIN gpu_devices g ON g.id = rg.gpu_device_id WHERE r.status = 'complete' AND "
        "instr(lower(g.name), lower(?1)) > 0 " +
        k_not_rerun + " ORDER BY r.started_at DESC, r.id DESC LIMIT ?2 OFFSET ?4");
    st.bind(1, sel.substr(4));
    st.bind(2, static_cast<int64_t>(last));
    st.bind(4, offset);
    ids = ids_of(st);
    what = "complete run with a GPU matching '" + sel.substr(4) + "'";
  } else {
    return {store.resolve_run(sel)};
  }
  if (ids.empty()) {
    throw bad_input(
        "selection '" + selection + "' matches no run",
        "there is no " + what +
            (offset > 0 ? " " + std::to_string(offset) + " run(s) before the newest" : ""),
        "list runs with `gpubench runs`");
  }
  return ids;
}

std::vector<int64_t> selector_group(results::Store& store, const std::string& selection) {
  std::string sel(trim(selection));
  if (!starts_with(sel, "tag:") && !starts_with(sel, "host:") && !starts_with(sel, "gpu:")) {
    return {};
  }
  std::size_t tilde = sel.rfind('~');
  if (tilde != std::string::npos && tilde + 1 < sel.size() &&
      sel.find_first_not_of("0123456789", tilde + 1) == std::string::npos) {
    sel.resize(tilde);
  }
  try {
    return resolve_selection(store, sel, std::numeric_limits<int>::max());
  } catch (const Error&) {
    return {};  // matches nothing: nothing to keep out
  }
}

namespace {

// Appends the runs' environments and results to `side` (rows moved straight in as they stream).
void load_runs(results::Store& store, const std::vector<int64_t>& ids, Side& side,
               const RowFilter& keep = {}) {
  for (int64_t id : ids) {
    side.runs.push_back(store.get_run(id));
    store.for_each_result(id, [&side, &keep](results::ResultRow& row) {
      if (!keep || keep(row)) side.results.push_back(std::move(row));
    });
  }
}

}  // namespace

Side load_side(results::Store& store, const std::string& selection, int last,
               const RowFilter& keep) {
  Side side;
  side.selection = selection;
  load_runs(store, resolve_selection(store, selection, last), side, keep);
  return side;
}

std::pair<Side, Side> load_sides(results::Store& store, const std::string& base,
                                 const std::string& candidate, int last, const RowFilter& keep) {
  std::pair<Side, Side> sides;
  sides.first.selection = base;
  sides.second.selection = candidate;
  const auto ids = resolve_pair(store, base, candidate, last);
  const std::vector<int64_t>& base_ids = ids.first;
  const std::vector<int64_t>& candidate_ids = ids.second;
  run_both([&] { load_runs(store, base_ids, sides.first, keep); },
           [&] {
             results::Store second =
                 results::Store::open(store.database().path(), results::OpenMode::read_only);
             load_runs(second, candidate_ids, sides.second, keep);
           });
  return sides;
}

void check_disjoint(const Side& base, const Side& candidate) {
  auto ids = [](const Side& side) {
    std::vector<int64_t> out;
    for (const results::RunDetail& r : side.runs) out.push_back(r.run.id);
    return out;
  };
  check_disjoint(base.selection, ids(base), candidate.selection, ids(candidate));
}

void check_disjoint(const std::string& base, const std::vector<int64_t>& base_ids,
                    const std::string& candidate, const std::vector<int64_t>& candidate_ids) {
  std::vector<std::string> shared;
  for (int64_t b : base_ids) {
    for (int64_t c : candidate_ids) {
      if (b == c) shared.push_back(std::to_string(b));
    }
  }
  if (shared.empty()) return;
  auto ids = [](const std::vector<int64_t>& side) {
    std::vector<std::string> out;
    for (int64_t id : side) out.push_back(std::to_string(id));
    return join(out, ",");
  };
  throw bad_input("base '" + base + "' (runs " + ids(base_ids) + ") and candidate '" + candidate +
                      "' (runs " + ids(candidate_ids) + ") share run(s) " + join(shared, ","),
                  "a run compared with itself says nothing",
                  "pick another run, e.g. latest~1 latest or tag:K=V~1 tag:K=V, or lower --last");
}

int64_t set_baseline(results::Store& store, const std::string& name, int64_t run_id,
                     const std::string& note) {
  check_name(name);
  results::Database& db = store.database();
  results::Transaction tx(db);
  int64_t previous = 0;
  {
    Statement st = db.prepare("SELECT run_id FROM baselines WHERE name = ?1");
    st.bind(1, name);
    if (st.step()) previous = st.column_int64(0);
  }
  Statement up = db.prepare(
      "INSERT INTO baselines(name, run_id, created_at, note) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT(name) DO UPDATE SET run_id = excluded.run_id, created_at = excluded.created_at, "
      "note = excluded.note");
  up.bind(1, name).bind(2, run_id).bind(3, now_iso8601_utc()).bind(4, note);
  up.run();
  tx.commit();
  return previous;
}

std::vector<BaselineRow> list_baselines(results::Store& store) {
  Statement st = store.database().prepare(
      "SELECT b.name, b.run_id, r.uuid, r.started_at, b.created_at, b.note FROM baselines b "
      "JOIN runs r ON r.id = b.run_id ORDER BY b.name");
  std::vector<BaselineRow> out;
  while (st.step()) {
    out.push_back({st.column_text(0), st.column_int64(1), st.column_text(2), st.column_text(3),
                   st.column_text(4), st.column_text(5)});
  }
  return out;
}

void delete_baseline(results::Store& store, const std::string& name) {
  baseline_run(store, name);  // throws for an unknown name
  results::Database& db = store.database();
  results::Transaction tx(db);
  Statement st = db.prepare("DELETE FROM baselines WHERE name = ?1");
  st.bind(1, name);
  st.run();
  tx.commit();
}

}  // namespace gpubench::compare
