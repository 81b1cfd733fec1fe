#!/usr/bin/env python3
"""gpu-check's allreduce and GPU-identity sections without a GPU.

allreduce: the side-by-side with nccl-tests (ci/gpu-check.d/allreduce_check.py) on
all_reduce_perf's output shape, and the section's script end to end with stand-ins for
gpubench-allreduce and all_reduce_perf that print FIXTURE numbers (synthetic, not measurements).
gpu-identity: the script end to end with stand-ins for nvidia-smi (four GPUs), gpubench-gemm (which
maps CUDA_VISIBLE_DEVICES to devices as CUDA does) and gpubench import (a scratch database with the
two tables the check reads), under CUDA_VISIBLE_DEVICES unset, a subset, UUIDs and MIG.

  test_gpu_check_parts.py --source SOURCE_DIR --work WORK_DIR
"""
import argparse
import importlib.util
import json
import os
import shutil
import stat
import subprocess
import sys


def load_check(source):
    path = os.path.join(source, "ci", "gpu-check.d", "allreduce_check.py")
    spec = importlib.util.spec_from_file_location("allreduce_check", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def nccl_tests_output(gpus, library_code, cycles):
    """all_reduce_perf's output (nccl-tests 2.19 layout) for -b 16M -e 256M -f 4 -N len(cycles);
    cycles: [{(bytes, mode): busbw}] (FIXTURE numbers)."""
    out = [f"### all_reduce_perf -g {gpus}",
           f"# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library={library_code}",
           "# Collective test starting: all_reduce_perf",
           "#  Rank  0 Group  0 Pid   4242 on       node device  0 [0000:18:00] NVIDIA H100",
           "NCCL version 2.28.9+cuda13.0" if library_code == 22809 else "NCCL version 2.27.3+cuda12.9",
           "#                                                              out-of-place"
           "                       in-place          ",
           "#       size         count      type   redop    root     time   algbw   busbw  #wrong"
           "     time   algbw   busbw  #wrong ",
           "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)        "
           "     (us)  (GB/s)  (GB/s)         "]
    for cycle in cycles:
        for size in (16 << 20, 64 << 20, 256 << 20):
            oop, ip = cycle[(size, "out_of_place")], cycle[(size, "in_place")]
            out.append(f"{size:12d}  {size // 4:12d}     float     sum      -1  {100.0:7.1f}  "
                       f"{oop:6.2f}  {oop:6.2f}       0  {100.0:7.1f}  {ip:6.2f}  {ip:6.2f}       0")
    out.append("# Avg bus bandwidth    : 300.0 ")
    return "\n".join(out) + "\n"


def cycle(value):
    return {(s, m): value for s in (16 << 20, 64 << 20, 256 << 20)
            for m in ("out_of_place", "in_place")}


def our_doc(gpus, values):
    """Our side-by-side run's JSON: 3 repetitions per case plus Google Benchmark's aggregates."""
    rows = []
    for size in (16 << 20, 64 << 20, 256 << 20):
        for mode in ("out_of_place", "in_place"):
            name = (f"allreduce/allreduce/dtype:fp32/mode:{mode}/bytes:{size}/ranks:{gpus}/"
                    "iterations:1/manual_time")
            for v in values:
                rows.append({"name": name, "run_type": "iteration", "busbw_GB_per_s": v})
            rows.append({"name": name + "_median", "run_type": "aggregate",
                         "busbw_GB_per_s": 1.0})  # never compared
    return {"benchmarks": rows}


def unit_tests(check, failures):
    def expect(cond, what):
        if not cond:
            failures.append(what)

    text = nccl_tests_output(2, 22809, [cycle(300.0), cycle(303.0), cycle(297.0)])
    runs = check.parse_nccl_tests(text)
    expect(runs[2]["version"] == "2.28.9", f"version from the header: {runs[2]['version']}")
    expect(runs[2]["rows"][(256 << 20, "in_place")] == [300.0, 303.0, 297.0],
           f"three cycles of in-place rows: {runs[2]['rows']}")
    expect(check.version_code_text(22809) == "2.28.9", "version code")
    # Without the header line (older nccl-tests), NCCL_DEBUG=VERSION's line names the library.
    old = "\n".join(l for l in text.splitlines() if "nccl-library" not in l)
    expect(check.parse_nccl_tests(old)[2]["version"] == "2.28.9", "NCCL_DEBUG=VERSION fallback")

    ours = check.our_side(our_doc(2, [299.0, 300.0, 301.0]))
    expect(ours[(2, 256 << 20, "out_of_place")] == [299.0, 300.0, 301.0],
           f"aggregates left out: {ours}")
    lines, bad = check.compare(ours, runs, "2.28.9", 2.0)
    expect(bad == 0, f"agreeing medians failed: {lines}")
    expect(any("in_place" in l and "256 MiB" in l and l.endswith(" ok") for l in lines),
           f"in place compared: {lines}")
    expect(any("NCCL 2.28.9 (gpubench) vs 2.28.9 (nccl-tests)" in l for l in lines),
           f"both versions printed: {lines}")

    # 10% low, both tools quiet: a disagreement.
    quiet = check.parse_nccl_tests(nccl_tests_output(2, 22809, [cycle(300.0)] * 3))
    lines, bad = check.compare(check.our_side(our_doc(2, [270.0] * 3)), quiet, "2.28.9", 2.0)
    expect(bad == 6, f"10% low at 3 sizes x 2 placements: {bad} {lines}")
    expect(any("differs by more than 2.0%" in l for l in lines), f"{lines}")

    # The same 4% gap with noisy tools: the tolerance widens to their spreads (3% + 3%).
    noisy = check.parse_nccl_tests(
        nccl_tests_output(2, 22809, [cycle(291.0), cycle(300.0), cycle(300.0)]))
    lines, bad = check.compare(check.our_side(our_doc(2, [279.0, 288.0, 288.0])), noisy,
                               "2.28.9", 2.0)
    expect(bad == 0, f"noise-wide tolerance: {lines}")
    expect(any("tolerance 6.1%" in l for l in lines), f"tolerance from both spreads: {lines}")

    # Another libnccl: numbers shown, no verdict, no failure.
    other = check.parse_nccl_tests(nccl_tests_output(2, 22703, [cycle(300.0)] * 3))
    lines, bad = check.compare(check.our_side(our_doc(2, [200.0] * 3)), other, "2.28.9", 2.0)
    expect(bad == 0, f"a different NCCL must not fail: {lines}")
    expect(any("verdict skipped" in l for l in lines), f"{lines}")
    expect(any("2.28.9 (gpubench) vs 2.27.3 (nccl-tests)" in l for l in lines), f"{lines}")
    expect(not any(l.endswith(" ok") or "differs" in l for l in lines), f"{lines}")
    lines, bad = check.compare(check.our_side(our_doc(2, [200.0] * 3)), quiet, None, 2.0)
    expect(bad == 0 and any("verdict skipped" in l for l in lines), "our version unknown")


SUITE_STAND_IN = """#!/usr/bin/env python3
# Stand-in for gpubench-allreduce: FIXTURE numbers, not measurements.
import json, os, re, sys
args = sys.argv[1:]
if "--gpubench_info" in args:
    print(json.dumps({"notes": ["host reference: not built",
                                "NCCL cases (NCCL 2.28.9): 2 GPUs visible to each process"]}))
    sys.exit(0)
out = next(a.split("=", 1)[1] for a in args if a.startswith("--benchmark_out="))
flt = next(a.split("=", 1)[1] for a in args if a.startswith("--benchmark_filter="))
reps = int(next(a.split("=", 1)[1] for a in args if a.startswith("--benchmark_repetitions=")))
with open(os.path.join(os.path.dirname(__file__), "calls.txt"), "a") as f:
    f.write(flt + " " + str(reps) + "\\n")
rows = []
for ranks in (1, 2):
    for size in (8, 16 << 20, 64 << 20, 256 << 20):
        for mode in ("out_of_place", "in_place"):
            name = (f"allreduce/allreduce/dtype:fp32/mode:{mode}/bytes:{size}/ranks:{ranks}"
                    "/iterations:1/manual_time")
            if not re.search(flt, name):
                continue
            if ranks == 1 and mode == "in_place":
                rows.append({"name": name, "error_occurred": True,
                             "error_message": "skipped: one rank in place"})
                continue
            for v in (float(os.environ.get("FIXTURE_BUSBW", "300")),) * reps:
                rows.append({"name": name, "run_type": "iteration", "busbw_GB_per_s": v,
                             "algbw_GB_per_s": v})
json.dump({"benchmarks": rows}, open(out, "w"))
"""

NCCL_TESTS_STAND_IN = """#!/bin/sh
# Stand-in for all_reduce_perf: prints the FIXTURE next to it, records its arguments.
echo "$* NCCL_DEBUG=$NCCL_DEBUG" >>"$(dirname "$0")/nccl_calls.txt"
cat "$(dirname "$0")/nccl_fixture.txt"
"""


def script_test(source, work, failures):
    bin_dir = os.path.join(work, "bin")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(bin_dir)
    for name, text in (("gpubench-allreduce", SUITE_STAND_IN), ("all_reduce_perf", NCCL_TESTS_STAND_IN)):
        path = os.path.join(bin_dir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def run(library_code, busbw):
        with open(os.path.join(bin_dir, "nccl_fixture.txt"), "w") as f:
            # Without the stand-in's own marker line: the script writes it.
            f.write("\n".join(nccl_tests_output(2, library_code, [cycle(300.0)] * 3)
                              .splitlines()[1:]) + "\n")
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""),
                   FIXTURE_BUSBW=str(busbw))
        tmp = os.path.join(work, "tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        p = subprocess.run(["bash", os.path.join(source, "ci", "gpu-check.d", "allreduce"),
                            bin_dir, tmp, "120"], capture_output=True, text=True, env=env,
                           timeout=120)
        return p.returncode, p.stdout + p.stderr

    rc, out = run(22809, 300.0)
    if rc != 0 or "256 MiB" not in out or " ok" not in out:
        failures.append(f"healthy side-by-side: rc {rc}\n{out}")
    calls = open(os.path.join(bin_dir, "calls.txt")).read().splitlines()
    side = [c for c in calls if c.endswith(" 3")]
    if len(side) != 1 or "bytes:(16777216|67108864|268435456)" not in side[0]:
        failures.append(f"our side-by-side run (3 repetitions at the three sizes): {calls}")
    nccl = open(os.path.join(bin_dir, "nccl_calls.txt")).read()
    for want in ("-b 16M -e 256M -f 4 -g 2", "-d float -o sum -N 3", "NCCL_DEBUG=VERSION"):
        if want not in nccl:
            failures.append(f"all_reduce_perf was not asked for {want!r}: {nccl}")
    rc, out = run(22809, 270.0)
    if rc != 1 or "differs by more than" not in out:
        failures.append(f"10% below nccl-tests must fail: rc {rc}\n{out}")
    rc, out = run(22703, 270.0)
    if rc != 0 or "verdict skipped" not in out:
        failures.append(f"another libnccl must skip the verdict: rc {rc}\n{out}")


NVIDIA_SMI_STAND_IN = """#!/bin/sh
printf '0, GPU-aaaa0000\\n1, GPU-bbbb1111\\n2, GPU-cccc2222\\n3, GPU-dddd3333\\n'
"""

GEMM_STAND_IN = """#!/usr/bin/env python3
# Stand-in for gpubench-gemm: devices as CUDA numbers them under CUDA_VISIBLE_DEVICES (PCI order;
# indices or GPU- UUID prefixes, up to the first entry naming no GPU). FIXTURE_IGNORE_CVD=1 plays a
# broken mapping that always reports the machine's PCI order.
import json, os, sys
pci = ["GPU-aaaa0000", "GPU-bbbb1111", "GPU-cccc2222", "GPU-dddd3333"]
cvd = os.environ.get("CUDA_VISIBLE_DEVICES")
visible = pci
if cvd is not None and os.environ.get("FIXTURE_IGNORE_CVD") != "1":
    visible = []
    for t in cvd.split(","):
        hit = None
        if t.isdigit() and int(t) < len(pci):
            hit = pci[int(t)]
        elif t.startswith("GPU-"):
            hits = [u for u in pci if u.startswith(t)]
            hit = hits[0] if len(hits) == 1 else None
        if hit is None or hit in visible:
            break
        visible.append(hit)
out = next(a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--benchmark_out="))
devices = [{"index": i, "uuid": u} for i, u in enumerate(visible)]
json.dump({"context": {"gpubench.devices": json.dumps(devices)},
           "benchmarks": [{"name": "gemm/x/device:0", "TFLOP_per_s": 1.0}]}, open(out, "w"))
"""

IMPORT_STAND_IN = """#!/usr/bin/env python3
# Stand-in for `gpubench import FILE --db DB --tag check=X`: device:0's samples stored under the
# UUID the file's context gives device 0, in the two tables the identity check reads.
import json, sqlite3, sys
args = sys.argv[1:]
path, db = args[1], args[args.index("--db") + 1]
tag = args[args.index("--tag") + 1].split("=", 1)[1]
ctx = json.load(open(path))["context"]
uuid = {d["index"]: d["uuid"] for d in json.loads(ctx["gpubench.devices"])}[0]
con = sqlite3.connect(db)
con.execute("CREATE TABLE IF NOT EXISTS run_tags (run_id INTEGER, key TEXT, value TEXT)")
con.execute("CREATE TABLE IF NOT EXISTS v_samples (run_id INTEGER, device_index INTEGER, "
            "metric TEXT, gpu_uuid TEXT)")
run = con.execute("SELECT count(*) FROM run_tags").fetchone()[0] + 1
con.execute("INSERT INTO run_tags VALUES (?, 'check', ?)", (run, tag))
con.execute("INSERT INTO v_samples VALUES (?, 0, 'TFLOP_per_s', ?)", (run, uuid))
con.commit()
"""


def identity_test(source, work, failures):
    bin_dir = os.path.join(work, "identity-bin")
    shutil.rmtree(bin_dir, ignore_errors=True)
    os.makedirs(bin_dir)
    for name, text in (("nvidia-smi", NVIDIA_SMI_STAND_IN), ("gpubench-gemm", GEMM_STAND_IN),
                       ("gpubench", IMPORT_STAND_IN)):
        path = os.path.join(bin_dir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def run(cvd, ignore=False):
        env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
        env.pop("CUDA_VISIBLE_DEVICES", None)
        if cvd is not None:
            env["CUDA_VISIBLE_DEVICES"] = cvd
        if ignore:
            env["FIXTURE_IGNORE_CVD"] = "1"
        scratch = os.path.join(work, "identity-work")
        shutil.rmtree(scratch, ignore_errors=True)
        p = subprocess.run(["bash", os.path.join(source, "ci", "gpu-check.d", "gpu-identity"),
                            bin_dir, scratch], capture_output=True, text=True, env=env, timeout=120)
        return p.returncode, p.stdout + p.stderr

    for cvd, want in ((None, "device:0 is GPU-aaaa0000 in PCI order and GPU-dddd3333 with "
                             "CUDA_VISIBLE_DEVICES=3,0"),
                      # A subset already set (Slurm without device cgroups): checked on it.
                      ("1,3", "device:0 is GPU-bbbb1111 in PCI order and GPU-dddd3333 with "
                              "CUDA_VISIBLE_DEVICES=3,1"),
                      ("GPU-cccc,GPU-aaaa", "device:0 is GPU-cccc2222 in PCI order and "
                                            "GPU-aaaa0000 with CUDA_VISIBLE_DEVICES=GPU-aaaa,GPU-cccc"),
                      # CUDA stops at the first entry naming no GPU: 2 and 0 are visible.
                      ("2,0,7,1", "device:0 is GPU-cccc2222 in PCI order and GPU-aaaa0000 with "
                                  "CUDA_VISIBLE_DEVICES=0,2")):
        rc, out = run(cvd)
        if rc != 0 or "PASS" not in out or want not in out:
            failures.append(f"identity with CUDA_VISIBLE_DEVICES={cvd}: rc {rc}, want {want!r}\n{out}")
    for cvd in ("MIG-1234", "2", ""):
        rc, out = run(cvd)
        if rc != 0 or "skipped" not in out:
            failures.append(f"identity with CUDA_VISIBLE_DEVICES={cvd!r} should skip: rc {rc}\n{out}")
    # A mapping that ignores CUDA_VISIBLE_DEVICES is still caught, with a subset set too.
    for cvd in (None, "1,3"):
        rc, out = run(cvd, ignore=True)
        if rc != 1:
            failures.append(f"a broken mapping must fail (CUDA_VISIBLE_DEVICES={cvd}): rc {rc}\n{out}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    failures = []
    unit_tests(load_check(args.source), failures)
    script_test(args.source, args.work, failures)
    identity_test(args.source, args.work, failures)
    for f in failures:
        print("FAIL:", f)
    print(f"{'FAILED' if failures else 'PASSED'}: gpu-check allreduce and gpu-identity sections")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
