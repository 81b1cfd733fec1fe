#!/usr/bin/env python3
"""Verdicts of gpu-check's allreduce section (ci/gpu-check.d/allreduce): the quick sweep's rows,
and the side-by-side with nccl-tests' all_reduce_perf, like for like.

Called as
    allreduce_check.py --sweep SWEEP.json [--side SIDE.json] [--nccl-tests OUTPUT.txt]
                       [--nccl-note NOTE] [--tolerance PCT] [--nccl-tests-found 0|1]
and imported by tests/allreduce/test_gpu_check_allreduce.py, which feeds it all_reduce_perf's
output shapes. Exit 0: the sweep was clean and every side-by-side that had a verdict agreed;
1 otherwise.

Like for like: fp32 sum allreduce at the same sizes, out of place and in place, both tools in one
process driving N GPUs (all_reduce_perf -g N: its time is one thread's wall clock until the last
GPU finished, the slowest-GPU figure our busbw_GB_per_s is), the same libnccl (else no verdict),
medians of 3 runs of each, and a tolerance of max(floor, our spread + their spread) in percent,
where a spread is (max - min) / median over the runs.
"""
import argparse
import json
import re
import statistics
import sys

# "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809" (nccl-tests >= 2.17)
_HEADER_LIBRARY = re.compile(r"nccl-library=(\d+)")
# "NCCL version 2.28.9+cuda13.0" (NCCL_DEBUG=VERSION, printed by libnccl itself at init)
_DEBUG_VERSION = re.compile(r"NCCL version (\d+)\.(\d+)\.(\d+)")
# Our suite's note: "NCCL cases (NCCL 2.28.9): 8 GPUs visible to each process"
_OUR_VERSION = re.compile(r"NCCL (\d+)\.(\d+)\.(\d+)")
_RUN = re.compile(r"^### all_reduce_perf -g (\d+)\s*$")


def version_code_text(code):
    """NCCL's version code (22809) as text (2.28.9); codes below 10000 are the old 1000-based."""
    code = int(code)
    if code >= 10000:
        return f"{code // 10000}.{code // 100 % 100}.{code % 100}"
    return f"{code // 1000}.{code // 100 % 10}.{code % 100}"


def parse_nccl_tests(text):
    """all_reduce_perf's output, one block per '### all_reduce_perf -g N' marker (the caller's),
    -> {gpus: {"version": "2.28.9" or None, "rows": {(bytes, mode): [busbw, ...]}}}.
    A result row: size count type redop root, then time algbw busbw #wrong out of place and the
    same four in place (nccl-tests' util.cu writeBenchmarkLine*); -N repeats the rows."""
    runs = {}
    current = None
    for line in text.splitlines():
        m = _RUN.match(line)
        if m:
            current = runs.setdefault(int(m.group(1)), {"version": None, "rows": {}})
            continue
        if current is None:
            continue
        m = _HEADER_LIBRARY.search(line)
        if m:
            current["version"] = version_code_text(m.group(1))
            continue
        m = _DEBUG_VERSION.search(line)
        if m and current["version"] is None:
            current["version"] = ".".join(m.groups())
            continue
        fields = line.split()
        if len(fields) < 13 or line.lstrip().startswith("#") or not fields[0].isdigit():
            continue
        try:
            size = int(fields[0])
            oop, ip = float(fields[7]), float(fields[11])
        except ValueError:
            continue  # "N/A" or a wrapped line
        current["rows"].setdefault((size, "out_of_place"), []).append(oop)
        current["rows"].setdefault((size, "in_place"), []).append(ip)
    return runs


def params_of(name):
    return dict(x.split(":", 1) for x in name.split("/")[2:] if ":" in x)


def our_side(doc):
    """Per-repetition busbw of the side-by-side run -> {(gpus, bytes, mode): [busbw, ...]}."""
    out = {}
    for b in doc.get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
            continue
        p = params_of(b["name"].split("/iterations:")[0])
        if p.get("dtype") != "fp32" or "busbw_GB_per_s" not in b:
            continue
        key = (int(p["ranks"]), int(p["bytes"]), p["mode"])
        out.setdefault(key, []).append(float(b["busbw_GB_per_s"]))
    return out


def spread(values):
    """(max - min) / median, 0 for one value."""
    med = statistics.median(values)
    return (max(values) - min(values)) / med if med > 0 and len(values) > 1 else 0.0


def compare(ours, theirs, our_version, floor_pct):
    """Side-by-side lines and the number of disagreements. ours: our_side(); theirs:
    parse_nccl_tests(); our_version: "2.28.9" or None."""
    lines, bad = [], 0
    for gpus, run in sorted(theirs.items()):
        their_version = run["version"]
        lines.append(f"  allreduce: {gpus} GPUs: NCCL {our_version or 'unknown'} (gpubench) vs "
                     f"{their_version or 'unknown'} (nccl-tests)")
        same = our_version is not None and our_version == their_version
        if not same:
            lines.append(f"  allreduce: {gpus} GPUs: verdict skipped: the two tools did not load "
                         "the same libnccl, so they are not like for like (point both at one, e.g. "
                         "LD_LIBRARY_PATH or GPUBENCH_CUDA_LIBS)")
        for (size, mode), their_values in sorted(run["rows"].items()):
            mine = ours.get((gpus, size, mode))
            if not mine:
                continue
            m, t = statistics.median(mine), statistics.median(their_values)
            if t <= 0:
                continue
            diff = (m / t - 1) * 100
            tol = max(floor_pct, (spread(mine) + spread(their_values)) * 100)
            text = (f"  allreduce: {gpus} GPUs fp32 {mode:<12} {size >> 20:>3} MiB: gpubench "
                    f"{m:.1f} vs nccl-tests {t:.1f} GB/s busbw ({diff:+.1f}%; medians of "
                    f"{len(mine)} and {len(their_values)}, tolerance {tol:.1f}%)")
            if not same:
                lines.append(text)
            elif abs(diff) <= tol:
                lines.append(text + " ok")
            else:
                lines.append(text + f" differs by more than {tol:.1f}%")
                bad += 1
    return lines, bad


def sweep_verdict(doc):
    """The quick sweep's lines and failures: an error row fails, a skip is listed."""
    lines, bad, skips, big = [], 0, {}, {}
    for b in doc.get("benchmarks", []):
        name = b["name"].split("/iterations:")[0]
        if "device:host" in name:
            continue  # the MPI host reference needs a launcher; this check runs one process
        if b.get("error_occurred"):
            msg = b.get("error_message", "")
            if msg.startswith("skipped:"):
                skips[msg] = skips.get(msg, 0) + 1
                continue
            lines.append(f"  allreduce: {name}: {msg}")
            bad += 1
            continue
        p = params_of(name)
        if int(p["ranks"]) >= 2 and not b.get("busbw_GB_per_s", 0) > 0:
            lines.append(f"  allreduce: {name}: no busbw")
            bad += 1
        if p.get("bytes") == "268435456":
            big[(int(p["ranks"]), p["dtype"], p["mode"])] = b.get("busbw_GB_per_s")
    for (ranks, dtype, mode), bw in sorted(big.items()):
        if bw is not None:
            lines.append(f"  allreduce: {ranks} GPUs {dtype:>4} {mode:<12} 256 MiB: busbw "
                         f"{bw:8.1f} GB/s")
    for msg, n in sorted(skips.items()):
        lines.append(f"  allreduce: {n} case(s) {msg}")
    return lines, bad


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--side", default="")
    ap.add_argument("--nccl-tests", default="")
    ap.add_argument("--nccl-note", default="")
    ap.add_argument("--tolerance", type=float, default=2.0)
    ap.add_argument("--nccl-tests-found", default="0")
    args = ap.parse_args(argv)
    with open(args.sweep) as f:
        lines, bad = sweep_verdict(json.load(f))
    if args.nccl_tests_found != "1":
        lines.append("  allreduce: note: all_reduce_perf (nccl-tests) not on PATH; no side-by-side "
                     "check")
    elif args.side and args.nccl_tests:
        with open(args.side) as f:
            ours = our_side(json.load(f))
        with open(args.nccl_tests) as f:
            theirs = parse_nccl_tests(f.read())
        m = _OUR_VERSION.search(args.nccl_note)
        side_lines, side_bad = compare(ours, theirs, ".".join(m.groups()) if m else None,
                                       args.tolerance)
        lines += side_lines
        bad += side_bad
        if not theirs:
            lines.append("  allreduce: note: all_reduce_perf printed no results")
    for line in lines:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
