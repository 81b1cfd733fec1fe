#!/usr/bin/env python3
"""Checks ci/gpu-check.d/fusion's verdicts without a GPU: a stand-in gpubench-fusion writes a
FIXTURE benchmark file (synthetic numbers, not measurements) and the section must pass it or fail
it for the right reason.

  check_gpu_check_fusion.py --source SOURCE_DIR --work WORK_DIR
"""
import argparse
import json
import os
import shutil
import stat
import subprocess
import sys


def case(family, variant, us, pct=None, shape="tokens:8192/hidden:8192"):
    b = {
        "name": f"fusion/{family}/variant:{variant}/dtype:bf16/{shape}/device:0/iterations:10",
        "time_per_call_us": us,
    }
    if pct is not None:
        b["pct_of_peak"] = pct
    return b


def fixture(layernorm_v3_us, bias_gelu_v3_pct):
    return {
        "benchmarks": [
            case("bias_gelu", "v1", 900.0, 40.0),
            case("bias_gelu", "v2", 500.0, 72.0),
            case("bias_gelu", "v3", 480.0, bias_gelu_v3_pct),
            case("bias_gelu", "graph", 890.0, 40.0),
            case("layernorm", "v1", 1500.0, 50.0),
            case("layernorm", "v2", 1000.0, 75.0),
            case("layernorm", "v3", layernorm_v3_us, 80.0),
            case("layernorm", "graph", 1490.0, 50.0),
            # gemm_bias_gelu carries no pct_of_peak (compute-bound).
            case("gemm_bias_gelu", "v1", 300.0, None, "tokens:4096/in:4096/out:16384"),
            case("gemm_bias_gelu", "epilogue", 280.0, None, "tokens:4096/in:4096/out:16384"),
            case("gemm_bias_gelu", "graph", 299.0, None, "tokens:4096/in:4096/out:16384"),
        ]
    }


STAND_IN = """#!/bin/sh
# Stand-in for gpubench-fusion: copies the FIXTURE next to it to --benchmark_out.
for a in "$@"; do
  case "$a" in --benchmark_out=*) cp "$(dirname "$0")/fixture.json" "${a#--benchmark_out=}" ;; esac
done
"""


def run(source, work, doc):
    bin_dir = os.path.join(work, "bin")
    shutil.rmtree(bin_dir, ignore_errors=True)
    os.makedirs(bin_dir)
    with open(os.path.join(bin_dir, "fixture.json"), "w") as f:
        json.dump(doc, f)
    exe = os.path.join(bin_dir, "gpubench-fusion")
    with open(exe, "w") as f:
        f.write(STAND_IN)
    os.chmod(exe, os.stat(exe).st_mode | stat.S_IXUSR)
    p = subprocess.run([os.path.join(source, "ci", "gpu-check.d", "fusion"), bin_dir, "30"],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    failures = []

    rc, out = run(args.source, args.work, fixture(layernorm_v3_us=800.0, bias_gelu_v3_pct=75.0))
    if rc != 0 or "FAIL" in out:
        failures.append(f"healthy fixture: rc {rc}\n{out}")

    rc, out = run(args.source, args.work, fixture(layernorm_v3_us=1200.0, bias_gelu_v3_pct=75.0))
    if rc != 1 or "FAIL layernorm v3" not in out:
        failures.append(f"layernorm v3 slower than v2 not caught: rc {rc}\n{out}")

    rc, out = run(args.source, args.work, fixture(layernorm_v3_us=800.0, bias_gelu_v3_pct=60.0))
    if rc != 1 or "FAIL bias_gelu v3" not in out:
        failures.append(f"bias_gelu v3 below the DRAM bound not caught: rc {rc}\n{out}")

    for f in failures:
        print("FAILED:", f)
    print("ok" if not failures else f"{len(failures)} check(s) failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
