#!/usr/bin/env python3
"""gpu-check's budget on a simulated 8-GPU server (issue 37: allreduce N4, transfer M3), without a
GPU. The bundle layout of tests/ci/gpu_check_bundle.sh with FIXTURE programs: gpubench answers
`run --plan --format json` with an 8-GPU quick plan whose estimates are the README's 8-GPU figures
(model estimates of the time model, rounded; not measurements) and fails everything else;
gpubench-gemm says a GPU is usable and records that it ran; nvidia-smi lists 8 GPUs.

From that plan each suite step may take 1.5 x its estimate + 30 s: gemm 105, fusion 95,
transfer+launch 452, each of the two CLI runs 746, allreduce 146, plus the fixed steps timing 60,
doctor 60, peers 180 (issue 40), identity 240 (8 GPUs) and 60 s of checks between the steps:
2950 s in all, where the old default budget was 600 s."""
import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.abspath(os.path.join(HERE, "..", ".."))

# FIXTURE: the README's 8-GPU quick plan (estimated seconds), not measurements.
PLAN_8_GPUS = {
    "profile": "quick", "gpus": 8, "gpus_source": "detected", "total_cases": 2392,
    "total_estimated_s": 477.3,
    "suites": [{"suite": "allreduce", "estimated_s": 77.0}, {"suite": "fusion", "estimated_s": 43.0},
               {"suite": "launch", "estimated_s": 17.0}, {"suite": "memory", "estimated_s": 10.0},
               {"suite": "transfer", "estimated_s": 264.0}, {"suite": "gemm", "estimated_s": 50.0},
               {"suite": "calibration", "estimated_s": 6.0},
               {"suite": "dataloader", "estimated_s": 3.6}],
    "settle": {"settles": 2, "bound_s": 10, "estimated_s": 6.7}}
TOTAL_8_GPUS = 105 + 95 + 452 + 746 + 746 + 60 + 60 + 146 + 180 + 240 + 60


def read(path):
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


def write_program(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)


def make_bundle(root):
    bundle = os.path.join(root, "gpubench-fixture-linux-x86_64")
    share = os.path.join(bundle, "share", "gpubench")
    bin_dir = os.path.join(bundle, "bin")
    tools = os.path.join(root, "tools")
    for d in (share, bin_dir, tools):
        os.makedirs(d)
    subprocess.run(["cp", os.path.join(SOURCE, "ci", "gpu-check"), share], check=True)
    subprocess.run(["cp", "-r", os.path.join(SOURCE, "ci", "gpu-check.d"), share], check=True)
    with open(os.path.join(share, "BUNDLE"), "w") as f:
        f.write("gpubench-fixture-linux-x86_64\n")
    marks = os.path.join(root, "marks")
    write_program(os.path.join(bin_dir, "gpubench"), f"""#!/bin/sh
# FIXTURE gpubench: the 8-GPU plan (the README's estimates); everything else fails
echo "gpubench $*" >>'{marks}'
if [ "$1" = run ] && [ "$2" = --plan ]; then
  cat <<'JSON'
{json.dumps(PLAN_8_GPUS)}
JSON
  exit 0
fi
exit 3
""")
    write_program(os.path.join(bin_dir, "gpubench-gemm"), f"""#!/bin/sh
# FIXTURE gpubench-gemm: a usable GPU; a run records that it ran and fails
case "$*" in
  *--gpubench_info*) echo '{{"suite": "gemm", "runnable": true, "reason": "", "notes": []}}'; exit 0 ;;
esac
echo "gpubench-gemm $*" >>'{marks}'
exit 1
""")
    smi = "".join(f"echo '{i}, GPU-fixture-{i}'\n" for i in range(8))
    write_program(os.path.join(tools, "nvidia-smi"),
                  "#!/bin/sh\n# FIXTURE nvidia-smi: eight GPUs\n" + smi)
    return os.path.join(share, "gpu-check"), tools, marks


def run_check(args=(), budget=None):
    with tempfile.TemporaryDirectory() as root:
        script, tools, marks = make_bundle(root)
        env = {k: v for k, v in os.environ.items() if k != "GPU_CHECK_BUDGET_S"}
        env["PATH"] = tools + ":/usr/bin:/bin"
        if budget is not None:
            env["GPU_CHECK_BUDGET_S"] = budget
        out_dir = os.path.join(root, "check")
        argv = ["bash", script, *args]
        if "--plan" not in args:
            argv += ["--out", out_dir]
        p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=240)
        return (p.returncode, p.stdout + p.stderr, read(marks),
                read(os.path.join(out_dir, "verdict.txt")), os.path.exists(out_dir))


class GpuCheckBudget(unittest.TestCase):
    def test_eight_gpus_derive_a_budget_that_holds_every_step(self):
        rc, out, ran, verdict, _ = run_check()
        self.assertEqual(rc, 1, out)  # the fixture programs fail every check
        self.assertIn("gpu-check: plan: 8 GPU(s) (found here); quick profile 477 s estimated", out)
        self.assertIn(f"budget {TOTAL_8_GPUS} s: the plan's total", out)
        self.assertGreater(TOTAL_8_GPUS, 600)
        # Every step ran with its full plan limit: none was cut short by the budget.
        for line in ("gpubench-gemm, limit 105 s)", "gpu-check.d/fusion, limit 95 s)",
                     "gpu-check.d/transfer-launch, limit 452 s)",
                     "gpubench run --profile quick, limit 746 s)", "gpubench doctor (limit 60 s)",
                     "gpu-check.d/allreduce, limit 146 s)", "gpu-check.d/peers, limit 180 s)",
                     "gpu-check.d/gpu-identity, limit 240 s)"):
            self.assertIn(line, out)
        self.assertNotIn("no time left", out)
        self.assertIn("gpubench-gemm --benchmark_out", ran)
        # The plan comes first, before any step: its table and its total.
        self.assertLess(out.index("plan:   total"), out.index("gemm quick profile, every GPU ("))
        self.assertIn(f"plan:   result checks between the steps                60 s   {TOTAL_8_GPUS} s",
                      out)
        self.assertIn(f"budget {TOTAL_8_GPUS} s", verdict)

    def test_a_budget_too_small_is_refused_before_any_step_naming_the_step(self):
        rc, out, ran, verdict, _ = run_check(budget="600")
        self.assertEqual(rc, 2, out)
        # gemm 105 + fusion 95 = 200 fit; transfer and launch (452) would end by 652 s.
        self.assertIn("GPU_CHECK_BUDGET_S=600 cannot hold the plan: step 'transfer and launch quick "
                      "profiles' (limit 452 s) would end by 652 s, past 600 s; the whole check "
                      f"needs {TOTAL_8_GPUS} s (set GPU_CHECK_BUDGET_S={TOTAL_8_GPUS} or more", out)
        self.assertNotIn("gpubench-gemm --benchmark_out", ran)
        self.assertNotIn("gemm quick profile, every GPU (", out)
        self.assertIn("cannot hold the plan", verdict)
        self.assertIn("verdict: not run", verdict)

    def test_an_explicit_budget_that_holds_the_plan_is_used(self):
        rc, out, ran, _, _ = run_check(budget="3000")
        self.assertEqual(rc, 1, out)
        self.assertIn(f"budget 3000 s (GPU_CHECK_BUDGET_S; the plan needs {TOTAL_8_GPUS} s)", out)
        self.assertIn("gpubench-gemm, limit 105 s)", out)

    def test_plan_prints_the_steps_and_runs_nothing(self):
        rc, out, ran, _, out_made = run_check(args=("--plan", "--gpus", "8"))
        self.assertEqual(rc, 0, out)
        self.assertIn("gpubench run --plan --format json --profile quick --gpus 8", ran)
        self.assertIn("plan:   quick run through the CLI                     746 s", out)
        self.assertIn(f"plan:   total                                        {TOTAL_8_GPUS} s", out)
        self.assertNotIn("gpubench-gemm", ran)
        self.assertFalse(out_made)

    def test_plan_with_a_budget_too_small_is_refused(self):
        rc, out, _, _, _ = run_check(args=("--plan",), budget="1000")
        self.assertEqual(rc, 2, out)
        # 105 + 95 + 452 = 652 fit; the first CLI run (746) would end by 1398 s.
        self.assertIn("step 'quick run through the CLI' (limit 746 s) would end by 1398 s", out)

    def test_bad_budget_and_gpus_without_plan_are_usage_errors(self):
        for budget in ("10m", "0", "-5"):
            rc, out, ran, _, _ = run_check(budget=budget)
            self.assertEqual(rc, 2, out)
            self.assertIn(f"GPU_CHECK_BUDGET_S='{budget}' is not a positive number of seconds", out)
            self.assertEqual(ran, "")
        rc, out, _, _, _ = run_check(args=("--gpus", "8"))
        self.assertEqual(rc, 2, out)
        self.assertIn("--gpus goes with --plan", out)


if __name__ == "__main__":
    sys.exit(unittest.main())
