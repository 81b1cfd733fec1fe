#!/usr/bin/env python3
"""Tests of ci/gpu-check.d/timing (issue 36's device checks), fed FIXTURES: a stand-in
gpubench-memory that prints a Google Benchmark JSON with an invented triad figure, a SQLite file
holding only the two tables the check reads (v_samples as a table, cublaslt_algorithms), and a
compare JSON of the shape `gpubench compare --format json` writes. The numbers are invented, not
measurements. Each failing case changes one thing of the passing fixture and must fail."""
import json
import os
import sqlite3
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "ci", "gpu-check.d", "timing")


def make_fixture(root, triad_alone=90.0, triad_runs=(88.0, 89.0), aa_change=0.004,
                 algos=("aa" * 64, "aa" * 64)):
    bin_dir = os.path.join(root, "bin")
    os.makedirs(bin_dir)
    prog = os.path.join(bin_dir, "gpubench-memory")
    doc = {"benchmarks": [{"name": "memory/device_triad/array_bytes:268435456/device:0/"
                                    "iterations:1/manual_time", "pct_of_peak": triad_alone}]}
    with open(prog, "w") as f:
        f.write("#!/usr/bin/env bash\n# FIXTURE program: writes an invented triad result\n"
                "for a in \"$@\"; do case \"$a\" in --benchmark_out=*) out=\"${a#*=}\";; esac; done\n"
                f"cat > \"$out\" <<'EOF'\n{json.dumps(doc)}\nEOF\n")
    os.chmod(prog, os.stat(prog).st_mode | stat.S_IEXEC)
    db = os.path.join(root, "fixture.db")
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE v_samples (run_id, suite, benchmark, metric, value)")
    con.execute("CREATE TABLE cublaslt_algorithms (run_id, benchmark, algorithm, description)")
    for run_id, pct in enumerate(triad_runs, start=1):
        for _ in range(3):  # three executions
            con.execute("INSERT INTO v_samples VALUES (?, 'memory', ?, 'pct_of_peak', ?)",
                        (run_id, "memory/device_triad/array_bytes:268435456/device:0/"
                         "iterations:1/manual_time", pct))
    for run_id, algo in enumerate(algos, start=1):
        con.execute("INSERT INTO cublaslt_algorithms VALUES (?, ?, ?, ?)",
                    (run_id, "gemm/cublaslt/dtype:bf16/m:1024/n:1024/k:1024/layout:tn/"
                     "cache:hot/device:0/iterations:1/manual_time", algo,
                     "algo=23 tile=20 stages=15 splitk=1"))
    con.commit()
    con.close()
    results = []
    for bench in ["fusion/bias_gelu/variant:v2/dtype:bf16/tokens:64/hidden:1024/device:0/"
                  "iterations:1/manual_time",
                  "gemm/cublaslt/dtype:bf16/m:1024/n:1024/k:1024/layout:tn/cache:cold/device:0/"
                  "iterations:1/manual_time",
                  "launch/memcpy_4_bytes/dir:h2d/device:0/iterations:10/manual_time"]:
        results.append({"benchmark": bench, "metric": "m", "device": "0", "primary": True,
                        "base": {"median": 100.0},
                        "candidate": {"median": 100.0 * (1 + aa_change)}})
    aa = os.path.join(root, "aa.json")
    with open(aa, "w") as f:
        json.dump({"results": results}, f)
    return bin_dir, db, aa


def run_check(**kw):
    with tempfile.TemporaryDirectory() as root:
        bin_dir, db, aa = make_fixture(root, **kw)
        p = subprocess.run(["bash", SCRIPT, bin_dir, db, aa, "30"], capture_output=True,
                           text=True, timeout=120)
        return p.returncode, p.stdout + p.stderr


class TimingCheck(unittest.TestCase):
    def test_passing_fixture_passes_and_prints_the_figures(self):
        rc, out = run_check()
        self.assertEqual(rc, 0, out)
        self.assertIn("triad alone", out)
        self.assertIn("90.0% of peak", out)
        self.assertIn("triad in quick run 2", out)
        self.assertIn("+0.40%", out)
        self.assertIn("1 gemm case(s) stored, 0 with different", out)

    def test_triad_alone_below_85_percent_fails(self):
        rc, out = run_check(triad_alone=84.0)
        self.assertEqual(rc, 1, out)
        self.assertIn("triad alone below target", out)

    def test_triad_inside_a_run_below_85_percent_fails(self):
        rc, out = run_check(triad_runs=(88.0, 59.0))
        self.assertEqual(rc, 1, out)
        self.assertIn("triad in a quick run below target", out)

    def test_runs_apart_by_more_than_1_percent_fail(self):
        rc, out = run_check(aa_change=-0.015)
        self.assertEqual(rc, 1, out)
        self.assertIn("-1.50% (OUTSIDE", out)

    def test_a_changed_algorithm_fails_and_is_named(self):
        rc, out = run_check(algos=("aa" * 64, "bb" * 64))
        self.assertEqual(rc, 1, out)
        self.assertIn("changed algorithm between identical runs", out)
        self.assertIn("run 1: algo=23", out)


if __name__ == "__main__":
    sys.exit(unittest.main())
