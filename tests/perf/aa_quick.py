#!/usr/bin/env python3
"""A/A false alarms of `gpubench compare` (issue 23 item 21): two quick runs of identical work into a
fresh database, then `gpubench compare latest~1 latest` with the default options, repeated --pairs
times. Every series called `regression` or `improvement` (or `changed`) is a false alarm: nothing
changed between the two runs. A fresh database per pair is the case the issue is about: a nightly
job's first nights, before any history exists.

    python3 tests/perf/aa_quick.py [--gpubench build/bin/gpubench] [--pairs 10] [--suite fusion]...
                                   [--profile quick] [--workdir DIR] [--json FILE]
                                   [--max-regressions N]

Prints the machine's load (os.getloadavg, as `uptime` shows it) before each pair, one line per pair
(regressions, improvements, changed, inconclusive held by the run-to-run allowance, compared), every
false alarm with its figures, and the totals per suite. Check the load first: on a busy machine the
figures measure the other work. Exit status: 1 when a run or compare fails or nothing was compared, or when regressions
exceed --max-regressions (default: no limit, the figures are for people); 0 otherwise. Default
suites: every suite (`gpubench run` without --suite).
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

ALLOWANCE_WORDS = "run-to-run allowance"


def load_text():
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


def run(cmd, log):
    with open(log, "w") as out:
        return subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT).returncode


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
        code = run(run_cmd, log)
        if code != 0:
            print(f"pair {index}: run {side} exited {code} (log: {log})")
            return None
    compare_json = os.path.join(pair_dir, "compare.json")
    code = run([args.gpubench, "--db", db, "compare", "latest~1", "latest", "--format", "json",
                "--fail-on", "never", "-o", compare_json], os.path.join(pair_dir, "compare.log"))
    if code != 0:
        print(f"pair {index}: compare exited {code} (log: {os.path.join(pair_dir, 'compare.log')})")
        return None
    with open(compare_json) as f:
        doc = json.load(f)
    doc["_seconds"] = time.monotonic() - started
    return doc


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gpubench", default="gpubench")
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--suite", action="append", default=[])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--workdir")
    parser.add_argument("--json", help="write the per-pair and total figures here")
    parser.add_argument("--max-regressions", type=int, default=None)
    args = parser.parse_args()
    if args.pairs < 1:
        sys.exit("aa_quick.py: --pairs must be at least 1")
    workdir = args.workdir or tempfile.mkdtemp(prefix="gpubench-aa-quick.")
    os.makedirs(workdir, exist_ok=True)
    print(f"gpubench: {args.gpubench}   pairs: {args.pairs}   profile: {args.profile}   "
          f"suites: {','.join(args.suite) or 'all'}   workdir: {workdir}")

    totals = collections.Counter()
    per_suite = collections.defaultdict(collections.Counter)
    pairs = []
    failed = False
    for i in range(1, args.pairs + 1):
        load = load_text()
        doc = one_pair(args, i, workdir)
        if doc is None:
            failed = True
            continue
        counts = doc["counts"]
        held = [e for e in doc["results"] if e["primary"] and ALLOWANCE_WORDS in e["reason"]]
        alarms = [e for e in doc["results"]
                  if e["primary"] and e["verdict"] in ("regression", "improvement", "changed")]
        line = {"pair": i, "load_before": load, "seconds": round(doc["_seconds"], 1),
                "compared": doc["compared"], "regression": counts["regression"],
                "improvement": counts["improvement"], "changed": counts["changed"],
                "held_by_allowance": len(held)}
        pairs.append(line)
        for key in ("compared", "regression", "improvement", "changed", "held_by_allowance"):
            totals[key] += line[key]
        for s in doc["suites"]:
            per_suite[s["suite"]]["compared"] += s["compared"]
            for verdict in ("regression", "improvement", "changed"):
                per_suite[s["suite"]][verdict] += s["counts"][verdict]
        for e in held:
            per_suite[e["suite"]]["held_by_allowance"] += 1
        print(f"pair {i}: {line['regression']} regression, {line['improvement']} improvement, "
              f"{line['changed']} changed, {line['held_by_allowance']} held by the allowance, "
              f"{line['compared']} compared, {line['seconds']} s ({load} before)")
        for e in alarms:
            print(f"  {e['verdict']}: {e['benchmark']} {e['metric']} ({e['device']}): "
                  f"{e['reason']}")
    print(f"totals over {len(pairs)} pairs: {totals['regression']} regression, "
          f"{totals['improvement']} improvement, {totals['changed']} changed, "
          f"{totals['held_by_allowance']} held by the allowance, {totals['compared']} compared; "
          f"{load_text()} now")
    for suite in sorted(per_suite):
        c = per_suite[suite]
        print(f"  {suite}: {c['regression']} regression, {c['improvement']} improvement, "
              f"{c['changed']} changed, {c['held_by_allowance']} held, {c['compared']} compared")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"pairs": pairs, "totals": dict(totals),
                       "suites": {k: dict(v) for k, v in per_suite.items()}}, f, indent=1)
    if failed or totals["compared"] == 0:
        return 1
    if args.max_regressions is not None and totals["regression"] > args.max_regressions:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
