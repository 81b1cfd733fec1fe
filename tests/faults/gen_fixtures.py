#!/usr/bin/env python3
"""FIXTURE Google Benchmark JSON files for the fault reproducers (repro_issue43.sh).
gen_fixtures.py names OUT suite name1 [name2 ...]      one benchmark per name (5 repetitions)
gen_fixtures.py hist OUTDIR RUNS SERIES                RUNS files of SERIES benchmarks, -10% from run 11 on every 4th
gen_fixtures.py deep OUT DEPTH                         context nested DEPTH deep
gen_fixtures.py big OUT N                              N benchmarks
gen_fixtures.py long OUT LEN                           one benchmark whose name has LEN bytes"""
import json, sys, random
def doc(suite, names, date="2026-11-01T00:00:00+00:00", host="h", level=lambda n: 100.0):
    b = []
    for n in names:
        for r in range(5):
            b.append({"name": n, "run_name": n, "run_type": "iteration", "repetitions": 5,
                      "repetition_index": r, "iterations": 10, "real_time": level(n) * (1 + 0.002 * r),
                      "cpu_time": level(n), "time_unit": "ns"})
    ctx = {"date": date, "host_name": host, "gpubench.suite": suite}
    return {"context": ctx, "benchmarks": b}
k = sys.argv[1]
if k == "names":
    json.dump(doc(sys.argv[3], sys.argv[4:]), open(sys.argv[2], "w"))
elif k == "hist":
    out, runs, series = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    random.seed(1)
    for r in range(runs):
        names = [f"h/s{i}/n:1" for i in range(series)]
        lvl = lambda n, r=r: 100.0 * (0.9 if r >= 10 and int(n.split('/')[1][1:]) % 4 == 0 else 1.0) * (1 + random.gauss(0, 0.003))
        json.dump(doc("h", names, date=f"2026-11-{r+1:02d}T00:00:00+00:00", level=lvl), open(f"{out}/h{r:02d}.json", "w"))
elif k == "deep":
    d = int(sys.argv[3])
    s = json.dumps(doc("deep", ["n/a"]))
    s = s.replace('"host_name": "h"', '"host_name": "h", "deep": ' + "[" * d + "]" * d)
    open(sys.argv[2], "w").write(s)
elif k == "big":
    json.dump(doc("big", [f"big/c{i}/n:{i}" for i in range(int(sys.argv[3]))]), open(sys.argv[2], "w"))
elif k == "long":
    json.dump(doc("long", ["long/" + "x" * int(sys.argv[3]) + "/n:1"]), open(sys.argv[2], "w"))
