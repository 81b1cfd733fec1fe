#!/usr/bin/env python3
"""A/A false alarms of `gpubench compare` (issues 23 and 35): two quick runs of identical work into a
fresh database, then `gpubench compare latest~1 latest` with the default options, repeated --pairs
times. Nothing changed between the two runs, so a pair whose compare exits 1 (a regression; the
default --fail-on) is a false alarm of the whole comparison (family-wise), and every series called
`regression`, `improvement` or `changed` is a false alarm of that series. A fresh database per pair
is the case issue 35 is about: one run a side, no history.

    python3 tests/perf/aa_quick.py [--gpubench build/bin/gpubench] [--pairs 20] [--suite fusion]...
                                   [--profile quick] [--workdir DIR] [--json FILE]
                                   [--candidate-env NAME=VALUE]... [--max-failing-pairs N]

--candidate-env sets a variable for the second run of each pair only: with
GPUBENCH_CALIBRATION_SCALE=1.05 the calibration suite does 5% more work on the candidate, a known
regression the comparison must find (the script then counts pairs that found it per suite).

Prints the machine's load (os.getloadavg) before each pair, one line per pair, every alarm with its
figures, the totals, and per suite the noise at three levels, as log-scale sd (~ CV), the median over
the suite's series:
  within execution   sd of the repetitions inside one process (from one extra run of 3 executions
                     x 3 repetitions at the end, since the profile has 1 repetition an execution);
  between executions sd of a series' execution means inside one run;
  between runs       what two runs' means differ by beyond their executions' noise:
                     sqrt(max(0, d^2/2 - s_e^2/E)), d the difference of the two runs' means.
Exit status: 1 when a run or compare fails or nothing was compared, or when more than
--max-failing-pairs pairs exit 1 (default: no limit, the figures are for people); 0 otherwise.
"""
import argparse
import collections
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time


def load_text():
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


def run(cmd, log, env=None):
    with open(log, "w") as out:
        return subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env).returncode


def run_show(args, db, run_id):
    out = subprocess.run([args.gpubench, "--db", db, "show", str(run_id), "--format", "json"],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def execution_logs(show_doc):
    """{(suite, benchmark, metric, device): {suite_run: [log values]}} of one run's ok rows."""
    out = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in show_doc["results"]:
        if r.get("status") != "ok" or r["metric"] == "cpu_time" or not r.get("values"):
            continue
        if any(v is None or v <= 0 for v in r["values"]):
            continue
        key = (r["suite"], r["benchmark"], r["metric"], str(r.get("device")))
        out[key][r.get("suite_run", 0)].extend(math.log(v) for v in r["values"])
    return out


def noise_levels(run_a, run_b):
    """Per suite: lists of between-execution sd and between-run sd over its series."""
    between_exec = collections.defaultdict(list)
    between_runs = collections.defaultdict(list)
    for key, execs_a in run_a.items():
        execs_b = run_b.get(key)
        if not execs_b:
            continue
        means_a = [statistics.fmean(v) for v in execs_a.values()]
        means_b = [statistics.fmean(v) for v in execs_b.values()]
        if len(means_a) < 2 or len(means_b) < 2:
            continue
        var_e = (statistics.variance(means_a) * (len(means_a) - 1) +
                 statistics.variance(means_b) * (len(means_b) - 1)) / (len(means_a) + len(means_b) - 2)
        between_exec[key[0]].append(math.sqrt(var_e))
        d = statistics.fmean(means_a) - statistics.fmean(means_b)
        e = (len(means_a) + len(means_b)) / 2
        between_runs[key[0]].append(math.sqrt(max(0.0, d * d / 2 - var_e / e)))
    return between_exec, between_runs


def within_execution(show_doc):
    """Per suite: sd of the repetitions inside each execution, per series (median over executions)."""
    out = collections.defaultdict(list)
    for key, execs in execution_logs(show_doc).items():
        sds = [statistics.stdev(v) for v in execs.values() if len(v) >= 2]
        if sds:
            out[key[0]].append(statistics.median(sds))
    return out


def one_pair(args, index, workdir):
    pair_dir = os.path.join(workdir, f"pair-{index:02d}")
    os.makedirs(pair_dir, exist_ok=True)
    db = os.path.join(pair_dir, "results.db")
    if os.path.exists(db):
        sys.exit(f"aa_quick.py: {db} exists; give a new --workdir")
    run_cmd = [args.gpubench, "--db", db, "run", "--profile", args.profile]
    for suite in args.suite:
        run_cmd += ["--suite", suite]
    started = time.monotonic()
    for side in ("a", "b"):
        log = os.path.join(pair_dir, f"run-{side}.log")
        env = None
        if side == "b" and args.candidate_env:
            env = dict(os.environ)
            for item in args.candidate_env:
                name, _, value = item.partition("=")
                env[name] = value
        code = run(run_cmd, log, env)
        if code != 0:
            print(f"pair {index}: run {side} exited {code} (log: {log})")
            return None
    compare_json = os.path.join(pair_dir, "compare.json")
    code = run([args.gpubench, "--db", db, "compare", "latest~1", "latest", "--format", "json",
                "-o", compare_json], os.path.join(pair_dir, "compare.log"))
    if code not in (0, 1):
        print(f"pair {index}: compare exited {code} (log: {os.path.join(pair_dir, 'compare.log')})")
        return None
    with open(compare_json) as f:
        doc = json.load(f)
    doc["_exit"] = code
    doc["_seconds"] = time.monotonic() - started
    doc["_noise"] = noise_levels(execution_logs(run_show(args, db, 1)),
                                 execution_logs(run_show(args, db, 2)))
    return doc


def pct(values):
    return f"{100 * statistics.median(values):.2f}%" if values else "-"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpubench", default="gpubench")
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--suite", action="append", default=[])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--workdir")
    parser.add_argument("--json", help="write the per-pair and total figures here")
    parser.add_argument("--candidate-env", action="append", default=[],
                        help="NAME=VALUE for the second run of each pair only")
    parser.add_argument("--max-failing-pairs", type=int, default=None)
    parser.add_argument("--skip-within", action="store_true",
                        help="leave out the extra run that measures the within-execution noise")
    args = parser.parse_args()
    if args.pairs < 1:
        sys.exit("aa_quick.py: --pairs must be at least 1")
    workdir = args.workdir or tempfile.mkdtemp(prefix="gpubench-aa-quick.")
    os.makedirs(workdir, exist_ok=True)
    print(f"gpubench: {args.gpubench}   pairs: {args.pairs}   profile: {args.profile}   "
          f"suites: {','.join(args.suite) or 'all'}   candidate env: "
          f"{' '.join(args.candidate_env) or '(none)'}   workdir: {workdir}")

    totals = collections.Counter()
    per_suite = collections.defaultdict(collections.Counter)
    exec_sd = collections.defaultdict(list)
    run_sd = collections.defaultdict(list)
    pairs = []
    failed = False
    for i in range(1, args.pairs + 1):
        load = load_text()
        doc = one_pair(args, i, workdir)
        if doc is None:
            failed = True
            continue
        counts = doc["counts"]
        alarms = [e for e in doc["results"]
                  if e["primary"] and e["verdict"] in ("regression", "improvement", "changed")]
        line = {"pair": i, "load_before": load, "seconds": round(doc["_seconds"], 1),
                "exit": doc["_exit"], "compared": doc["compared"],
                "regression": counts["regression"], "improvement": counts["improvement"],
                "changed": counts["changed"], "inconclusive": counts["inconclusive"]}
        pairs.append(line)
        totals["pairs_exit_1"] += doc["_exit"] == 1
        for key in ("compared", "regression", "improvement", "changed", "inconclusive"):
            totals[key] += line[key]
        for s in doc["suites"]:
            c = per_suite[s["suite"]]
            c["compared"] += s["compared"]
            for verdict in ("regression", "improvement", "changed", "inconclusive"):
                c[verdict] += s["counts"][verdict]
            c["pairs_with_regression"] += s["counts"]["regression"] > 0
        for suite, values in doc["_noise"][0].items():
            exec_sd[suite].extend(values)
        for suite, values in doc["_noise"][1].items():
            run_sd[suite].extend(values)
        print(f"pair {i}: exit {line['exit']}: {line['regression']} regression, "
              f"{line['improvement']} improvement, {line['changed']} changed, "
              f"{line['inconclusive']} inconclusive, {line['compared']} compared, "
              f"{line['seconds']} s ({load} before)", flush=True)
        for e in alarms:
            print(f"  {e['verdict']}: {e['benchmark']} {e['metric']} ({e['device']}): "
                  f"{e['reason']}")
    print(f"totals over {len(pairs)} pairs: {totals['pairs_exit_1']} pairs exit 1; "
          f"{totals['regression']} regression, {totals['improvement']} improvement, "
          f"{totals['changed']} changed, {totals['inconclusive']} inconclusive, "
          f"{totals['compared']} compared; {load_text()} now")
    within = collections.defaultdict(list)
    if not args.skip_within and pairs:
        db = os.path.join(workdir, "within.db")
        cmd = [args.gpubench, "--db", db, "run", "--profile", args.profile, "--executions", "3",
               "--repetitions", "3"]
        for suite in args.suite:
            cmd += ["--suite", suite]
        if run(cmd, os.path.join(workdir, "within.log")) == 0:
            within = within_execution(run_show(args, db, 1))
    print("per suite: pairs with a regression; series verdicts; noise (median over series of the "
          "log-scale sd, ~ CV): within execution / between executions / between runs")
    for suite in sorted(per_suite):
        c = per_suite[suite]
        print(f"  {suite}: {c['pairs_with_regression']} of {len(pairs)} pairs; "
              f"{c['regression']} regression, {c['improvement']} improvement, "
              f"{c['changed']} changed, {c['inconclusive']} inconclusive, {c['compared']} compared; "
              f"{pct(within.get(suite, []))} / {pct(exec_sd.get(suite, []))} / "
              f"{pct(run_sd.get(suite, []))}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": pairs, "totals": dict(totals),
                       "suites": {k: dict(v) for k, v in per_suite.items()},
                       "noise": {s: {"within_execution": pct(within.get(s, [])),
                                     "between_executions": pct(exec_sd.get(s, [])),
                                     "between_runs": pct(run_sd.get(s, []))}
                                 for s in per_suite}}, f, indent=1)
    if failed or totals["compared"] == 0:
        return 1
    if args.max_failing_pairs is not None and totals["pairs_exit_1"] > args.max_failing_pairs:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
