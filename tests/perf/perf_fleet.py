#!/usr/bin/env python3
"""Fleet-size speed of the gpubench CLI (issue 16): import, show, export, compare and report of runs
with 200,000 Google Benchmark entries, timed and measured as whole commands (real child processes,
a real SQLite file) against Python's json.load of the same file, measured in the same run.

The input files are generated and seeded (a fixture, not measurements): 50,000 benchmark names x 4
repetitions = 200,000 entries, each with real_time, cpu_time and one counter (600,000 samples,
about 65 MB). The candidate is 20% slower on every 500th benchmark and 20% faster on every 700th.

    python3 tests/perf/perf_fleet.py [--gpubench build/bin/gpubench] [--scale 1.0] [--workdir DIR]
                                     [--only show,compare] [--repeat 3]

Prints one line per command: wall and CPU seconds, peak RSS (MB), the ratio to json.load's time
(wall and CPU) and the issue's target. Each command and json.load run --repeat times and the
median is printed (the largest peak RSS), so one slow moment of a shared machine does not decide a
figure; every import is measured into a database holding exactly what it would hold in the
sequence (a fresh file for the base, a copy holding the base for the candidate). The figures
are for people, not a timed test: the exit status is 1 only when a command fails (an import
that does not exit 0, a compare that exits other than 0 or 1). Wall time on a shared machine varies; CPU time is steadier. --scale shrinks
the entry count (the ctest smoke test runs it at 0.002 so the script cannot rot). --only runs the
commands whose label contains one of the given words; with a --workdir that already holds the
generated files and the imported database (of the same --scale), they are reused, so one command
can be re-measured after a rebuild without importing again.
"""
import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPETITIONS = 4


def generate(path, entries, seed, slow_every=0, fast_every=0, factor=1.2):
    """Writes a Google Benchmark JSON document of `entries` iteration entries."""
    rng = random.Random(seed)
    names = max(1, entries // REPETITIONS)
    with open(path, "w") as f:
        f.write('{"context":{"date":"2026-12-03T00:00:00+00:00","host_name":"fleet-fixture",'
                '"executable":"gpubench-memory","num_cpus":2,"mhz_per_cpu":3000,'
                '"library_build_type":"release","gpubench.suite":"memory",'
                '"gpubench.metrics":"[{\\"name\\":\\"GB_per_s\\",\\"unit\\":\\"GB/s\\",'
                '\\"direction\\":\\"higher\\"}]"},\n"benchmarks":[\n')
        first = True
        for b in range(names):
            name = "memory/triad/bytes:%d/threads:%d/device:%d" % (1024 * (b // 32 + 1), 1 + b % 4,
                                                                  (b // 4) % 8)
            scale = 1.0
            if slow_every and b % slow_every == 0:
                scale = factor
            elif fast_every and b % fast_every == 0:
                scale = 1.0 / factor
            for r in range(REPETITIONS):
                t = 1000.0 * scale * rng.gauss(1.0, 0.01)
                entry = ('{"name":"%s","family_index":0,"per_family_instance_index":%d,'
                         '"run_name":"%s","run_type":"iteration","repetitions":%d,'
                         '"repetition_index":%d,"threads":1,"iterations":1000,'
                         '"real_time":%.6f,"cpu_time":%.6f,"time_unit":"ns","GB_per_s":%.6f}'
                         % (name, b, name, REPETITIONS, r, t, t * 1.001, 12e3 / t))
                f.write(("" if first else ",\n") + entry)
                first = False
        f.write("\n]}\n")


FAILURES = []


def measure(argv, stdout=subprocess.DEVNULL, ok=(0,)):
    """Runs argv; returns (wall seconds, peak RSS MB, exit code, CPU seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE)
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - start
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in ok:
        FAILURES.append(" ".join(argv))
        print("  %s exited %d: %s" % (" ".join(argv), code, err.strip()[-500:]), file=sys.stderr)
    return seconds, usage.ru_maxrss / 1024.0, code, usage.ru_utime + usage.ru_stime


def measure_repeated(argv, repeat, stdout=subprocess.DEVNULL, ok=(0,), before=None):
    """measure() `repeat` times; argv may be a function of the run's number k, and before(k)
    runs ahead of the k-th. Returns the median wall and CPU seconds, the largest peak RSS and
    the last exit code."""
    runs = []
    for k in range(repeat):
        if before:
            before(k)
        runs.append(measure(argv(k) if callable(argv) else argv, stdout=stdout, ok=ok))
    return (statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2],
            statistics.median(r[3] for r in runs))


def remove_db(path):
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def json_load_baseline(path, repeat):
    """Python's json.load of the file, in a child process like the commands."""
    code = "import json,sys\nwith open(sys.argv[1]) as f: json.load(f)\n"
    return measure_repeated([sys.executable, "-c", code, path], repeat)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpubench", default="build/bin/gpubench")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--workdir", default=None, help="keep files here (default: a temp dir)")
    ap.add_argument("--history", type=int, default=10, help="history runs for the history case")
    ap.add_argument("--only", default="",
                    help="comma-separated words: run only commands whose label contains one")
    ap.add_argument("--repeat", type=int, default=3,
                    help="runs of each command (and of json.load); the median is printed")
    args = ap.parse_args()
    repeat = max(1, args.repeat)
    only = [w for w in args.only.split(",") if w]
    entries = max(REPETITIONS * 10, int(200000 * args.scale))
    work = args.workdir or tempfile.mkdtemp(prefix="gpubench-perf-fleet-")
    os.makedirs(work, exist_ok=True)
    gb = os.path.abspath(args.gpubench)
    base_json = os.path.join(work, "base-%d.json" % entries)
    cand_json = os.path.join(work, "candidate-%d.json" % entries)
    if not (only and os.path.exists(base_json)):
        generate(base_json, entries, 1)
    if not (only and os.path.exists(cand_json)):
        generate(cand_json, entries, 2, slow_every=500, fast_every=700)
    size_mb = os.path.getsize(base_json) / 1e6
    db = os.path.join(work, "fleet-%d.db" % entries)
    reuse_db = bool(only) and os.path.exists(db)
    if not reuse_db:
        remove_db(db)

    load_s, load_mb, _, load_cpu = json_load_baseline(base_json, repeat)
    print("input: %d entries, %.1f MB; json.load: %.2f s (%.2f s CPU), %.0f MB; medians of %d runs"
          % (entries, size_mb, load_s, load_cpu, load_mb, repeat))
    print("%-44s %8s %8s %8s %6s %6s  %s" % ("command", "wall s", "CPU s", "peak MB", "x wall",
                                             "x CPU", "target"))

    def wanted(label):
        return not only or any(w in label for w in only)

    def row(label, argv, target_time=None, target_mem=None, out=None, ok=(0,), before=None):
        if not wanted(label):
            return None
        sink = open(out, "w") if out else subprocess.DEVNULL

        def fresh_output(k):  # each run writes the whole output again
            if out:
                sink.seek(0)
                sink.truncate()
            if before:
                before(k)

        s, mb, code, cpu = measure_repeated(argv, repeat, stdout=sink, ok=ok, before=fresh_output)
        if out:
            sink.close()
        target = ""
        if target_time:
            target = "<= %gx json.load" % target_time
        if target_mem:
            target += ", <= %.3g MB" % target_mem
        print("%-44s %8.2f %8.2f %8.0f %6.2f %6.2f  %s" % (label, s, cpu, mb, s / load_s,
                                                          cpu / max(load_cpu, 1e-9), target),
              flush=True)
        return cpu

    if reuse_db:
        print("reusing %s (imported before)" % db)
    else:
        # The base goes into a fresh database each time. The candidate goes into a copy of the
        # database holding the base run, and the last time into the database itself.
        argv = [gb, "--db", db, "import", base_json, "--tag", "side=base"]
        if wanted("import base"):
            row("import base", argv, 3, 2 * size_mb, before=lambda k: remove_db(db))
        else:
            measure(argv)
        argv = [gb, "--db", db, "import", cand_json, "--tag", "side=cand"]
        if wanted("import candidate"):
            scratch = os.path.join(work, "scratch-%d.db" % entries)

            def copy_base(k):
                remove_db(scratch)
                if k < repeat - 1:
                    # The base run, committed and checkpointed (the import closed the database).
                    assert not os.path.exists(db + "-wal"), "the base import left a WAL behind"
                    shutil.copyfile(db, scratch)

            row("import candidate",
                lambda k: argv if k == repeat - 1 else [gb, "--db", scratch] + argv[3:], 3,
                before=copy_base)
            remove_db(scratch)
        else:
            measure(argv)
    row("show 1 --format json", [gb, "--db", db, "show", "1", "--format", "json"], 2, 300)
    row("show 1", [gb, "--db", db, "show", "1"], 2, 300)
    row("export 1", [gb, "--db", db, "export", "1"], 2, 300,
        out=os.path.join(work, "export.json"))
    row("export 1 --format csv", [gb, "--db", db, "export", "1", "--format", "csv"], 2, 300,
        out=os.path.join(work, "export.csv"))
    row("export 1 --format openmetrics", [gb, "--db", db, "export", "1", "--format",
                                          "openmetrics"], 2, 300)
    cmp_ok = (0, 1)  # 1: regressions found (the candidate has some)
    plain = row("compare 1 2 --format json --history 0",
                [gb, "--db", db, "compare", "1", "2", "--format", "json", "--history", "0"], 3,
                1024, ok=cmp_ok)
    row("compare 1 2 (text)", [gb, "--db", db, "compare", "1", "2", "--history", "0"], 3, 1024,
        ok=cmp_ok)
    row("compare 1 2 --format html", [gb, "--db", db, "compare", "1", "2", "--format", "html",
                                      "--history", "0", "-o", os.path.join(work, "compare.html")],
        ok=cmp_ok)
    row("accept 2 --against 1 --format json", [gb, "--db", db, "accept", "2", "--against", "1",
                                                "--format", "json"], ok=cmp_ok)
    row("report 1 --format html", [gb, "--db", db, "report", "1", "--format", "html", "-o",
                                   os.path.join(work, "report.html")])
    for name in ("compare.html", "report.html"):
        if os.path.exists(os.path.join(work, name)):
            print("%s: %.1f MB" % (name, os.path.getsize(os.path.join(work, name)) / 1e6))

    # History: more runs like the base, then compare with the default history window.
    hist_label = "compare 1 2 --format json --history %d" % args.history
    if not wanted(hist_label):
        if not args.workdir:
            shutil.rmtree(work)
        return 1 if FAILURES else 0
    have = 2
    if reuse_db:  # history runs imported by an earlier --only run are reused too
        import sqlite3
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        have = con.execute("SELECT count(*) FROM runs").fetchone()[0]
        con.close()
    for i in range(max(0, args.history + 1 - have)):
        measure([gb, "--db", db, "import", base_json, "--tag", "side=base"])
    # Run 1 is compared with run 2 as before; the base's history is the other runs like it.
    hist = row(hist_label, [gb, "--db", db, "compare", "1", "2", "--format", "json", "--history",
                            str(args.history)], ok=cmp_ok)
    if plain:
        print("history/plain (CPU): %.2f (target <= 1.5)" % (hist / plain))
    if not args.workdir:
        shutil.rmtree(work)
    if FAILURES:
        print("FAILED: %d command(s) did not exit as expected" % len(FAILURES), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
