#!/usr/bin/env python3
"""Bounds of gpu-check's transfer/launch section and the nvbandwidth side-by-side comparison.

Called by ci/gpu-check.d/transfer-launch as
    transfer_check.py <transfer.json> <launch.json> <nvbandwidth.txt> <min % of PCIe>
and imported by tests/ci/test_transfer_check.py, which feeds the parser nvbandwidth's output
shapes. Exit 0: all bounds held; 1: a bound failed (or nvbandwidth printed something this parser
does not understand, so the comparison could not be made).
"""
import json
import os
import re
import sys

EXPECTED_SKIPS = [r"no remote NUMA node", r"peer-to-peer needs two", r"cannot access GPU",
                  r"out of memory", r"host allocation of"]
DATACENTRE_CC = ("8.0", "9.0", "10.0", "10.3")
# gpubench / nvbandwidth must agree within 3% on the same machine and buffer size.
NVB_RATIO_LOW, NVB_RATIO_HIGH = 0.97, 1.03

_RUNNING = re.compile(r"^Running (\w+)\.\s*$")
_CELL = r"(?:[-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|N/A)"
# A matrix row as nvbandwidth prints it: the row index right-aligned in a field of width 2 (so
# " 0" for rows 0-9: a leading space), then one right-aligned cell of width 10 per column.
_ROW = re.compile(r"^\s*(\d+)((?:\s+" + _CELL + r")+)\s*$")
# The header: blank corner, then the column indices.
_HEADER = re.compile(r"^\s+\d+(?:\s+\d+)*\s*$")


def parse_nvbandwidth(text):
    """{testcase: [{"title": str, "columns": [int], "cells": {(row, col): float or None}}]}.

    One testcase can print several matrices (the bidirectional ones print write1, write2 and
    total); each keeps the description line printed above it. N/A cells are None.
    """
    out = {}
    test = None
    title = ""
    columns = None
    matrix = None
    for raw in text.splitlines():
        line = raw.rstrip()
        m = _RUNNING.match(line)
        if m:
            test = m.group(1)
            out.setdefault(test, [])
            title, columns, matrix = "", None, None
            continue
        if test is None:
            continue
        if columns is None and _HEADER.match(line):
            columns = [int(c) for c in line.split()]
            matrix = {"title": title, "columns": columns, "cells": {}}
            out[test].append(matrix)
            continue
        if columns is not None:
            r = _ROW.match(line)
            if r:
                cells = r.group(2).split()
                if len(cells) == len(columns):
                    row = int(r.group(1))
                    for col, cell in zip(columns, cells):
                        matrix["cells"][(row, col)] = None if cell == "N/A" else float(cell)
                    continue
            # Anything else (blank line, SUM line) ends the matrix.
            columns, matrix = None, None
        if line.strip() and not line.startswith(("SUM ", "&&&& ")):
            title = line.strip()
    return {k: v for k, v in out.items() if v}


def nvbandwidth_cell(parsed, test, row, col):
    """The first matrix's value of `test` at (row, col); None when absent or N/A."""
    matrices = parsed.get(test) or []
    if not matrices:
        return None
    return matrices[0]["cells"].get((row, col))


# gpubench benchmark (quick profile, 256 MiB, GPU 0) -> nvbandwidth testcase and its matrix cell:
# host cases have one row (the CPU) and one column per GPU; device-to-device is GPU x GPU.
NVB_PAIRS = [
    ("host_to_device_memcpy_ce", (0, 0),
     "transfer/host_to_device_memcpy_ce/dir:h2d/memory:pinned/engine:ce/numa:local/"
     "bytes:268435456/device:0"),
    ("device_to_host_memcpy_ce", (0, 0),
     "transfer/device_to_host_memcpy_ce/dir:d2h/memory:pinned/engine:ce/numa:local/"
     "bytes:268435456/device:0"),
    ("device_to_device_memcpy_write_ce", (0, 1),
     "transfer/device_to_device_memcpy_write_ce/dir:p2p/memory:device/engine:ce/peer_access:on/"
     "src:0/dst:1/bytes:268435456/device:0"),
]


def compare_with_nvbandwidth(ours, text, say=print):
    """Prints gpubench / nvbandwidth side by side; returns the number of failures.

    ours: {benchmark name: {"GB_per_s": ...}}. Non-empty text that holds no matrix at all is a
    failure: the comparison would otherwise pass silently whatever nvbandwidth printed.
    """
    if not text.strip():
        return 0
    parsed = parse_nvbandwidth(text)
    if not parsed:
        say("  nvbandwidth printed no result matrix this check understands; no comparison made")
        return 1
    bad = 0
    compared = 0
    for test, (row, col), name in NVB_PAIRS:
        if test not in parsed:
            say(f"  {test}: not in nvbandwidth's output (waived or not run)")
            continue
        theirs = nvbandwidth_cell(parsed, test, row, col)
        mine = ours.get(name, {}).get("GB_per_s")
        if theirs is None or mine is None:
            say(f"  {test}: no pair of values to compare (nvbandwidth "
                f"{'N/A' if theirs is None else theirs}, gpubench "
                f"{'missing' if mine is None else mine})")
            continue
        compared += 1
        ratio = mine / theirs if theirs > 0 else 0.0
        say(f"  {test}: gpubench {mine:.2f} GB/s, nvbandwidth {theirs:.2f} GB/s, ratio {ratio:.3f}")
        if not NVB_RATIO_LOW <= ratio <= NVB_RATIO_HIGH:
            say(f"  {test}: gpubench and nvbandwidth differ by more than 3%")
            bad += 1
    if compared == 0:
        say("  nvbandwidth ran but no testcase could be compared with gpubench")
        bad += 1
    return bad


def params(name):
    return dict(p.split(":", 1) for p in name.split("/")[2:] if ":" in p)


def host_coherent(transfer_doc, device):
    """True when the GPU reads pageable host memory through the host's page tables (NVLink-C2C,
    e.g. GH200): there pageable and pinned copies run alike, so 'pageable below pinned' is no
    bound."""
    raw = transfer_doc.get("context", {}).get("gpubench.transfer.host_page_tables", "{}")
    try:
        table = json.loads(raw)
    except ValueError:
        return False
    return bool(table.get(str(device), 0))


def check_copies(transfer_doc, ours, min_pct, say=print):
    """Pinned H2D/D2H against the PCIe link; pageable below pinned. Returns the failures."""
    devices = {d["index"]: d for d in
               json.loads(transfer_doc.get("context", {}).get("gpubench.devices", "[]"))}
    bad = 0
    for name, b in sorted(ours.items()):
        p = params(name)
        if not name.startswith("transfer/") or p.get("dir") not in ("h2d", "d2h"):
            continue
        if int(p.get("bytes", 0)) < 64 << 20 or p.get("engine") != "ce":
            continue
        device = int(p.get("device", 0))
        dev = devices.get(device, {})
        gbps = b.get("GB_per_s", 0.0)
        pct = b.get("pct_of_link")
        say(f"  {p['dir']} {p['memory']:>14} {int(p['bytes']) >> 20:>4} MiB: {gbps:7.2f} GB/s"
            + (f" = {pct:5.1f}% of the link" if pct is not None else " (% of link unknown)")
            + (f"  [{b['label']}]" if b.get("label") else ""))
        coherent = host_coherent(transfer_doc, device)
        if p["memory"] == "pinned" and coherent:
            # Host copies cross NVLink-C2C, not the PCIe link: the suite reports no pct_of_link
            # (link_rates.hpp host_link_rate), so there is no PCIe floor to hold.
            say(f"  {name}: GPU {device} reaches host memory over NVLink-C2C; no PCIe floor")
        elif p["memory"] == "pinned" and dev.get("cc") in DATACENTRE_CC:
            if pct is None:
                say(f"  {name}: the PCIe link rate is unknown, cannot check >= {min_pct}%")
                bad += 1
            elif pct < min_pct:
                say(f"  {name}: {pct:.1f}% of the PCIe link, below {min_pct}%")
                bad += 1
        if p["memory"] == "pageable":
            pinned = ours.get(name.replace("memory:pageable", "memory:pinned"))
            if coherent:
                say(f"  {name}: GPU {device} reads host memory coherently (NVLink-C2C); "
                    "pageable is not expected to be slower than pinned")
            elif pinned and gbps >= pinned.get("GB_per_s", 0.0):
                say(f"  {name}: pageable {gbps:.2f} GB/s not below pinned "
                    f"{pinned['GB_per_s']:.2f}")
                bad += 1
    return bad


def check_launch(ours, say=print):
    bad = 0
    for name, b in sorted(ours.items()):
        if name.startswith("launch/kernel_chain/"):
            s, g = b.get("us_per_kernel_stream", 0.0), b.get("us_per_kernel_graph", 0.0)
            say(f"  {name}: {s:.2f} us/kernel one by one, {g:.2f} us/kernel as a graph "
                f"({b.get('graph_speedup', 0.0):.2f}x)")
            if "/kernels:100/" in name + "/" and not (0 < g < s):
                say(f"  {name}: the graph is not faster per kernel than one-by-one launch")
                bad += 1
    for key in ("launch/launch_to_start/", "launch/back_to_back/"):
        for name, b in ours.items():
            if name.startswith(key):
                vals = {k: v for k, v in b.items() if k.endswith("_us") or k == "us_per_kernel"}
                say(f"  {name}: " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(vals.items())))
    return bad


def load(path, say=print):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        say(f"  {path}: no results written")
        return None
    with open(path) as f:
        return json.load(f)


def collect(docs, say=print):
    """Results by name without the iterations suffix; unexpected errors counted."""
    ours, bad = {}, 0
    for doc in docs:
        for b in doc.get("benchmarks", []):
            name = b["name"].split("/iterations:")[0]
            if b.get("error_occurred"):
                msg = b.get("error_message", "")
                if msg.startswith("skipped: ") and any(re.search(e, msg) for e in EXPECTED_SKIPS):
                    continue
                say(f"  {name}: {msg}")
                bad += 1
                continue
            ours[name] = b
    return ours, bad


def main(argv):
    tpath, lpath, nvbpath, min_pct = argv[1], argv[2], argv[3], float(argv[4])
    t, l = load(tpath), load(lpath)
    if t is None or l is None:
        return 1
    ours, bad = collect((t, l))
    bad += check_copies(t, ours, min_pct)
    bad += check_launch(ours)
    text = ""
    if os.path.exists(nvbpath):
        with open(nvbpath) as f:
            text = f.read()
    bad += compare_with_nvbandwidth(ours, text)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
