#!/usr/bin/env python3
"""Unit tests of ci/gpu-check.d/transfer_check.py: the nvbandwidth parser and the comparison.

The nvbandwidth texts below are FIXTURES in the shape nvbandwidth's text output has (a
"Running <test>." line, a description line, a header of column indices, rows whose index is
right-aligned in a field of width 2 so rows 0-9 start with a space, cells right-aligned in
width 10 with two decimals or N/A, a SUM line); the numbers are invented, not measurements.
"""
import importlib.util
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "ci", "gpu-check.d", "transfer_check.py")
spec = importlib.util.spec_from_file_location("transfer_check", SCRIPT)
tc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tc)

FIXTURE = """nvbandwidth Version: v0.8
Built from Git version: v0.8

CUDA Runtime Version: 13000
CUDA Driver Version: 13000
Driver Version: 580.00

Device 0: NVIDIA H200 (00000000:19:00)
Device 1: NVIDIA H200 (00000000:3b:00)

Running host_to_device_memcpy_ce.
memcpy CE CPU(row) -> GPU(column) bandwidth (GB/s)
           0         1
 0     50.00     51.00

SUM host_to_device_memcpy_ce 101.00

Running device_to_host_memcpy_ce.
memcpy CE CPU(row) <- GPU(column) bandwidth (GB/s)
           0         1
 0     52.00     52.50

SUM device_to_host_memcpy_ce 104.50

Running device_to_device_memcpy_write_ce.
memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)
           0         1
 0       N/A    390.00
 1    391.00       N/A

SUM device_to_device_memcpy_write_ce 781.00
"""

BIDIR_FIXTURE = """Running device_to_device_bidirectional_memcpy_write_ce.
memcpy CE GPU(row) <-> GPU(column) Write1 bandwidth (GB/s)
           0         1
 0       N/A    370.00
 1    371.00       N/A

SUM device_to_device_bidirectional_memcpy_write_ce_write1 741.00

memcpy CE GPU(row) <-> GPU(column) Write2 bandwidth (GB/s)
           0         1
 0       N/A    369.00
 1    368.00       N/A

SUM device_to_device_bidirectional_memcpy_write_ce_write2 737.00
"""

H2D, D2H, D2D = (name for _, _, name in tc.NVB_PAIRS)


def ours(h2d, d2h, d2d):
    return {H2D: {"GB_per_s": h2d}, D2H: {"GB_per_s": d2h}, D2D: {"GB_per_s": d2d}}


class ParseNvbandwidth(unittest.TestCase):
    def test_rows_with_a_leading_space_are_read(self):
        parsed = tc.parse_nvbandwidth(FIXTURE)
        self.assertEqual(set(parsed), {"host_to_device_memcpy_ce", "device_to_host_memcpy_ce",
                                       "device_to_device_memcpy_write_ce"})
        self.assertEqual(tc.nvbandwidth_cell(parsed, "host_to_device_memcpy_ce", 0, 0), 50.0)
        self.assertEqual(tc.nvbandwidth_cell(parsed, "host_to_device_memcpy_ce", 0, 1), 51.0)
        self.assertEqual(tc.nvbandwidth_cell(parsed, "device_to_device_memcpy_write_ce", 0, 1),
                         390.0)
        self.assertEqual(tc.nvbandwidth_cell(parsed, "device_to_device_memcpy_write_ce", 1, 0),
                         391.0)

    def test_na_cells_are_none(self):
        parsed = tc.parse_nvbandwidth(FIXTURE)
        self.assertIsNone(tc.nvbandwidth_cell(parsed, "device_to_device_memcpy_write_ce", 0, 0))

    def test_two_digit_rows_and_several_matrices_per_test(self):
        header = "    " + "".join(f"{c:>10}" for c in range(12))
        rows = "\n".join(f"{r:>2}" + "".join(f"{(r * 12 + c) / 4:>10.2f}" for c in range(12))
                         for r in range(12))
        text = "Running device_to_device_memcpy_read_ce.\ndesc\n" + header + "\n" + rows + "\n"
        parsed = tc.parse_nvbandwidth(text)
        self.assertEqual(tc.nvbandwidth_cell(parsed, "device_to_device_memcpy_read_ce", 11, 10),
                         (11 * 12 + 10) / 4)
        bidir = tc.parse_nvbandwidth(BIDIR_FIXTURE)
        matrices = bidir["device_to_device_bidirectional_memcpy_write_ce"]
        self.assertEqual(len(matrices), 2)
        self.assertIn("Write1", matrices[0]["title"])
        self.assertEqual(matrices[1]["cells"][(1, 0)], 368.0)

    def test_waived_or_garbled_output_has_no_matrix(self):
        self.assertEqual(tc.parse_nvbandwidth(
            "Running device_to_device_memcpy_write_ce.\nWAIVED: not enough GPUs\n"), {})
        self.assertEqual(tc.parse_nvbandwidth("nvbandwidth: error: no CUDA device\n"), {})


class Compare(unittest.TestCase):
    def run_compare(self, mine, text=FIXTURE):
        lines = []
        return tc.compare_with_nvbandwidth(mine, text, say=lines.append), lines

    def test_agreement_passes_and_every_pair_is_compared(self):
        bad, lines = self.run_compare(ours(50.5, 52.0, 389.0))
        self.assertEqual(bad, 0, lines)
        self.assertEqual(sum("ratio" in l for l in lines), 3, lines)

    def test_a_disagreement_fails(self):
        bad, lines = self.run_compare(ours(45.0, 52.0, 389.0))
        self.assertEqual(bad, 1, lines)
        bad, _ = self.run_compare(ours(50.0, 52.0, 420.0))
        self.assertEqual(bad, 1)

    def test_output_without_a_comparable_value_fails(self):
        bad, _ = self.run_compare(ours(50.0, 52.0, 390.0), "nvbandwidth: error: no CUDA device\n")
        self.assertEqual(bad, 1)
        bad, _ = self.run_compare({}, FIXTURE)
        self.assertEqual(bad, 1)

    def test_no_nvbandwidth_is_no_comparison(self):
        self.assertEqual(self.run_compare(ours(1.0, 1.0, 1.0), "")[0], 0)


class Copies(unittest.TestCase):
    def doc(self, coherent):
        ctx = {"gpubench.devices": '[{"index": 0, "cc": "9.0"}]'}
        if coherent is not None:
            ctx["gpubench.transfer.host_page_tables"] = '{"0": %d}' % coherent
        return {"context": ctx}

    def results(self):
        base = "transfer/host_to_device_memcpy_ce/dir:h2d/memory:{}/engine:ce/numa:local/" \
               "bytes:268435456/device:0"
        return {base.format("pinned"): {"GB_per_s": 400.0, "pct_of_link": 90.0},
                base.format("pageable"): {"GB_per_s": 410.0}}

    def test_pageable_not_below_pinned_fails_on_pcie(self):
        self.assertEqual(tc.check_copies(self.doc(0), self.results(), 80, say=lambda _: None), 1)
        self.assertEqual(tc.check_copies(self.doc(None), self.results(), 80, say=lambda _: None), 1)

    def test_pageable_like_pinned_is_fine_on_a_coherent_host(self):
        self.assertEqual(tc.check_copies(self.doc(1), self.results(), 80, say=lambda _: None), 0)

    def test_no_pcie_floor_where_host_copies_cross_nvlink_c2c(self):
        # The suite reports no pct_of_link there (the PCIe link is not the path): not a failure.
        results = self.results()
        for b in results.values():
            b.pop("pct_of_link", None)
        results = {k: v for k, v in results.items() if "pinned" in k}
        self.assertEqual(tc.check_copies(self.doc(1), results, 80, say=lambda _: None), 0)
        self.assertEqual(tc.check_copies(self.doc(0), results, 80, say=lambda _: None), 1)


if __name__ == "__main__":
    unittest.main()
