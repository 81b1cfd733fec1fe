#!/usr/bin/env python3
"""gpu-check's peers (issue 40) without a GPU: ci/gpu-check.d/pytorch_peer.py's JSON writer with a
fake measurement function (no torch), its measuring code against the FIXTURE torch of
fixtures/fake_torch (a simulated clock, invented rates), and ci/gpu-check.d/peers with FIXTURE
tools on PATH (all_reduce_perf, nvbandwidth, bandwidthTest, nvidia-smi, a recording gpubench):
the commands it runs, what it imports, the peers table it prints. With --bin, the script's JSON
goes through the real `gpubench import` and `gpubench peers` beside a gpubench run of this host.

  test_gpu_check_peers.py [--bin BUILD/bin]
"""
import importlib.util
import json
import os
import socket
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))
PARTS = os.path.join(SOURCE, "ci", "gpu-check.d")
FAKE_TORCH = os.path.join(HERE, "fixtures", "fake_torch")
BIN = None  # --bin


def load_script():
    spec = importlib.util.spec_from_file_location("pytorch_peer",
                                                  os.path.join(PARTS, "pytorch_peer.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_program(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


def read(path):
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


def run_script_with_fake_torch(out, *args):
    env = dict(os.environ, PYTHONPATH=FAKE_TORCH)
    return subprocess.run([sys.executable, os.path.join(PARTS, "pytorch_peer.py"), "--out", out,
                           *args], capture_output=True, text=True, env=env, timeout=60)


class PytorchPeerDocument(unittest.TestCase):
    def test_writer_names_entries_and_context_without_torch(self):
        peer = load_script()

        def measure(args):  # FIXTURE values, not measurements
            return [peer.Measurement(peer.matmul_name("bf16", 4096, 0), "TFLOP_per_s",
                                     [(2e-4, 100, 687.2), (2.1e-4, 100, 654.5)]),
                    peer.Measurement(peer.copy_name("h2d", 268435456, 0), "GB_per_s",
                                     [(4.9e-3, 4, 54.8)])]

        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "p.json")
            rc = peer.main(["--out", out, "--sizes", "4096"], measure=measure,
                           devices=lambda a: [{"index": 0, "name": "X (FIXTURE)",
                                               "uuid": "GPU-FIXTURE-0"}],
                           versions=lambda: ("2.9.0+FIXTURE", "13.0"))
            self.assertEqual(rc, 0)
            doc = json.loads(read(out))
        self.assertNotIn("torch", sys.modules)  # imported only to measure
        names = [b["name"] for b in doc["benchmarks"]]
        self.assertEqual(names, ["pytorch/matmul/dtype:bf16/m:4096/n:4096/k:4096/device:0"] * 2 +
                         ["pytorch/copy/h2d/memory:pinned/bytes:268435456/device:0"])
        first = doc["benchmarks"][0]
        self.assertEqual((first["run_type"], first["repetitions"], first["repetition_index"]),
                         ("iteration", 2, 0))
        self.assertEqual(doc["benchmarks"][1]["repetition_index"], 1)
        self.assertAlmostEqual(first["real_time"], 200.0)  # us per call
        self.assertEqual(first["time_unit"], "us")
        self.assertEqual(first["TFLOP_per_s"], 687.2)
        self.assertEqual(doc["benchmarks"][2]["GB_per_s"], 54.8)
        c = doc["context"]
        self.assertEqual(c["gpubench.suite"], "pytorch")
        self.assertEqual(c["peer.tool"], "pytorch")
        self.assertEqual(c["peer.version"], "2.9.0+FIXTURE")
        self.assertEqual(c["host_name"], socket.gethostname())
        self.assertEqual(json.loads(c["gpubench.devices"])[0]["uuid"], "GPU-FIXTURE-0")
        metrics = {m["name"]: m for m in json.loads(c["gpubench.metrics"])}
        self.assertEqual(metrics["TFLOP_per_s"]["direction"], "higher")
        self.assertEqual(metrics["GB_per_s"]["role"], "primary")
        self.assertRegex(c["date"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$")

    def test_bad_arguments_are_usage_errors(self):
        with tempfile.TemporaryDirectory() as d:
            for args in (["--dtypes", "fp8"], ["--sizes", "x"], ["--repetitions", "0"]):
                p = subprocess.run([sys.executable, os.path.join(PARTS, "pytorch_peer.py"),
                                    "--out", os.path.join(d, "p.json"), *args],
                                   capture_output=True, text=True, timeout=60)
                self.assertEqual(p.returncode, 2, (args, p.stderr))
            # No usable torch here: none, or Debian's CPU-only build (ci/setup installs it for the
            # dataloader's PyTorch side by side): exit 3 with the fix.
            p = subprocess.run([sys.executable, os.path.join(PARTS, "pytorch_peer.py"),
                                "--out", os.path.join(d, "p.json")],
                               capture_output=True, text=True, timeout=60,
                               env=dict(os.environ, PYTHONPATH=d))
            if p.returncode != 0:
                self.assertEqual(p.returncode, 3, p.stderr)
                self.assertRegex(p.stderr, r"install (torch|a CUDA build of torch)")

    def test_measuring_code_against_the_fixture_torch(self):
        sys.path.insert(0, FAKE_TORCH)
        try:
            import torch as fake  # noqa: PLC0415 - the FIXTURE, not PyTorch
        finally:
            sys.path.remove(FAKE_TORCH)
            sys.modules.pop("torch", None)  # the writer's test checks torch is never imported
        self.assertIn("FIXTURE", fake.__version__)
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "p.json")
            p = run_script_with_fake_torch(out, "--devices", "1", "--sizes", "1024,2048",
                                           "--repetitions", "3")
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = json.loads(read(out))
        by_name = {}
        for b in doc["benchmarks"]:
            by_name.setdefault(b["name"], []).append(b)
        # 4 dtypes x 2 sizes + 3 copies, 3 repetitions each.
        self.assertEqual(len(by_name), 11)
        self.assertTrue(all(len(v) == 3 for v in by_name.values()))
        # The simulated clock's rates come back: the arithmetic of events, batches and units.
        expected = {"bf16": 800, "fp16": 790, "tf32": 400, "fp32": 50}
        for dtype, tflops in expected.items():
            for b in by_name[f"pytorch/matmul/dtype:{dtype}/m:2048/n:2048/k:2048/device:1"]:
                self.assertAlmostEqual(b["TFLOP_per_s"], tflops, places=6)
                self.assertAlmostEqual(b["real_time"], 2 * 2048 ** 3 / (tflops * 1e12) * 1e6)
                self.assertGreaterEqual(b["iterations"], 1)
                self.assertLessEqual(b["iterations"], 200)
        for kind, gbs in (("d2d", 2000), ("h2d", 55), ("d2h", 50)):
            name = (f"pytorch/copy/d2d/bytes:268435456/device:1" if kind == "d2d" else
                    f"pytorch/copy/{kind}/memory:pinned/bytes:268435456/device:1")
            for b in by_name[name]:
                self.assertAlmostEqual(b["GB_per_s"], gbs, places=6)
        device = json.loads(doc["context"]["gpubench.devices"])[0]
        self.assertEqual(device, {"index": 1, "name": "NVIDIA H200 (FIXTURE)",
                                  "uuid": "GPU-5eed0000-0000-4000-8000-000000000001",
                                  "pci_bus_id": "00000000:19:00.0"})


def make_tools(root, gpubench_refuses=""):
    """FIXTURE tools on PATH; each records its command line in `marks`. gpubench's import fails for
    a file whose name holds `gpubench_refuses`."""
    tools = os.path.join(root, "tools")
    bin_dir = os.path.join(root, "bin")
    os.makedirs(tools)
    os.makedirs(bin_dir)
    marks = os.path.join(root, "marks")
    for name, output in (("all_reduce_perf", "# nccl-tests FIXTURE output"),
                         ("nvbandwidth", "nvbandwidth FIXTURE output"),
                         ("bandwidthTest", "bandwidthTest FIXTURE output")):
        write_program(os.path.join(tools, name),
                      f"#!/bin/sh\n# FIXTURE {name}\necho \"{name} $*\" >>'{marks}'\n"
                      f"echo '{output}'\n")
    write_program(os.path.join(tools, "nvidia-smi"),
                  "#!/bin/sh\n# FIXTURE nvidia-smi: two GPUs\necho 0\necho 1\n")
    write_program(os.path.join(bin_dir, "gpubench"), f"""#!/bin/sh
# FIXTURE gpubench: records its arguments; import copies what it was given beside the marks
echo "gpubench $*" >>'{marks}'
case "$1" in
  import)
    case "$2" in *'{gpubench_refuses or "/never/"}'*)
      echo "gpubench: error: FIXTURE refusal of $2" >&2; exit 2 ;;
    esac
    cp "$2" '{root}/imported-'"$(basename "$2")"
    echo "imported $2 as run 9 (FIXTURE)" ;;
  peers) echo "FIXTURE peers table" ;;
esac
exit 0
""")
    return tools, bin_dir, marks


def run_part(root, tools, bin_dir, torch=True, seconds="120"):
    env = dict(os.environ, PATH=tools + ":/usr/bin:/bin",
               PYTHONPATH=FAKE_TORCH if torch else os.path.join(root, "no-torch"),
               GPU_CHECK_PYTHON=sys.executable)
    db = os.path.join(root, "gpubench.db")
    open(db, "w").close()
    return subprocess.run(["bash", os.path.join(PARTS, "peers"), bin_dir, db,
                           os.path.join(root, "tmp"), seconds],
                          capture_output=True, text=True, env=env, timeout=120)


class GpuCheckPeersPart(unittest.TestCase):
    def test_runs_every_tool_found_imports_each_output_and_prints_peers(self):
        with tempfile.TemporaryDirectory() as root:
            tools, bin_dir, marks = make_tools(root)
            p = run_part(root, tools, bin_dir)
            out = p.stdout + p.stderr
            self.assertEqual(p.returncode, 0, out)
            ran = read(marks)
            self.assertIn("all_reduce_perf -b 8M -e 256M -f 2 -g 2 -w 5 -n 20 -d float -o sum",
                          ran)
            self.assertIn("nvbandwidth -b 256 -t host_to_device_memcpy_ce "
                          "device_to_host_memcpy_ce device_local_copy", ran)
            self.assertIn("bandwidthTest --device=0 --memory=pinned --mode=range "
                          "--start=67108864 --end=268435456 --increment=67108864 --htod --dtoh "
                          "--dtod", ran)
            db = os.path.join(root, "gpubench.db")
            tmp = os.path.join(root, "tmp", "peers")
            for f in ("nccl-tests.txt", "nvbandwidth.txt", "bandwidthTest.txt", "pytorch.json"):
                self.assertIn(f"gpubench import {tmp}/{f} --db {db}", ran)
            # What was imported is each tool's own output; PyTorch's is the script's JSON.
            self.assertEqual(read(os.path.join(root, "imported-nvbandwidth.txt")),
                             "nvbandwidth FIXTURE output\n")
            doc = json.loads(read(os.path.join(root, "imported-pytorch.json")))
            self.assertEqual(doc["context"]["gpubench.suite"], "pytorch")
            self.assertIn(f"gpubench peers --db {db}", ran)
            self.assertLess(ran.index("gpubench import"), ran.index("gpubench peers"))
            self.assertIn("  FIXTURE peers table", out)

    def test_a_refused_import_fails_the_part_and_a_missing_tool_is_no_failure(self):
        with tempfile.TemporaryDirectory() as root:
            tools, bin_dir, marks = make_tools(root, gpubench_refuses="nvbandwidth")
            os.remove(os.path.join(tools, "all_reduce_perf"))
            p = run_part(root, tools, bin_dir, torch=False)
            out = p.stdout + p.stderr
            self.assertEqual(p.returncode, 1, out)
            self.assertIn("peers: FAIL: gpubench import refused the output of nvbandwidth", out)
            self.assertIn("FIXTURE refusal", out)
            ran = read(marks)
            self.assertNotIn("all_reduce_perf", ran)
            self.assertNotIn("pytorch.json", ran)  # no torch importable: no script
            self.assertIn("bandwidthTest.txt", ran)

    def test_nothing_found_is_a_note(self):
        with tempfile.TemporaryDirectory() as root:
            tools, bin_dir, marks = make_tools(root)
            for t in ("all_reduce_perf", "nvbandwidth", "bandwidthTest"):
                os.remove(os.path.join(tools, t))
            p = run_part(root, tools, bin_dir, torch=False)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("no side-by-side", p.stdout)
            self.assertEqual(read(marks), "")


class RealImportAndPeers(unittest.TestCase):
    def test_script_json_lines_up_beside_a_gpubench_run_of_this_host(self):
        if not BIN:
            self.skipTest("needs --bin BUILD/bin (the real gpubench; ctest gives it)")
        gpubench = os.path.join(BIN, "gpubench")
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "g.db")
            # FIXTURE gpubench run of this host (an export document), GPU 0 = the fake torch's
            # GPU 0; invented values.
            uuid0 = "GPU-5eed0000-0000-4000-8000-000000000000"
            h2d = ("transfer/host_to_device_memcpy_ce/dir:h2d/memory:pinned/engine:ce/numa:local/"
                   "bytes:268435456/device:0")
            gemm = "gemm/cublaslt/dtype:bf16/m:4096/n:4096/k:4096/layout:tn/cache:hot/device:0"
            run = {"run": {"uuid": "0e7c2a51-0000-4000-8000-000000000041",
                           "started_at": "2026-12-05T07:00:00Z",
                           "finished_at": "2026-12-05T08:00:00Z", "status": "complete"},
                   "environment": {"host": {"hostname": socket.gethostname()},
                                   "gpus": [{"nvml_index": 0, "uuid": uuid0,
                                             "name": "NVIDIA H200 (FIXTURE)"}]},
                   "suites": [{"id": 1, "suite": "transfer", "status": "ok"},
                              {"id": 2, "suite": "gemm", "status": "ok"}],
                   "results": [
                       {"suite": "transfer", "suite_run": 1, "benchmark": h2d,
                        "metric": "GB_per_s", "unit": "GB/s", "direction": "higher",
                        "role": "primary", "device_index": 0, "values": [54.0, 54.1, 53.9]},
                       {"suite": "gemm", "suite_run": 2, "benchmark": gemm,
                        "metric": "TFLOP_per_s", "unit": "TFLOP/s", "direction": "higher",
                        "role": "primary", "device_index": 0, "values": [780, 781, 779]}]}
            with open(os.path.join(d, "run.json"), "w") as f:
                json.dump(run, f)
            p = subprocess.run([gpubench, "import", os.path.join(d, "run.json"), "--db", db],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            out = os.path.join(d, "pytorch.json")
            p = run_script_with_fake_torch(out, "--sizes", "4096", "--dtypes", "bf16",
                                           "--repetitions", "3")
            self.assertEqual(p.returncode, 0, p.stderr)
            p = subprocess.run([gpubench, "import", out, "--db", db], capture_output=True,
                               text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            p = subprocess.run([gpubench, "peers", "1", "--format", "json", "--db", db],
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            doc = json.loads(p.stdout)
            lines = {l["gpubench"]["benchmark"]: l for l in doc["lines"]}
            self.assertEqual(set(lines), {h2d, gemm}, p.stdout)
            self.assertAlmostEqual(lines[gemm]["peer"]["median"], 800, places=6)  # FIXTURE rate
            self.assertAlmostEqual(lines[gemm]["ratio"], 780 / 800, places=4)
            self.assertIsNotNone(lines[gemm]["ci_low"])  # 3 and 3 values
            self.assertAlmostEqual(lines[h2d]["ratio"], 54.0 / 55.0, places=4)


if __name__ == "__main__":
    if "--bin" in sys.argv:
        i = sys.argv.index("--bin")
        BIN = sys.argv[i + 1]
        del sys.argv[i:i + 2]
    sys.exit(unittest.main())
