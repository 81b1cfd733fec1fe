#!/usr/bin/env bash
# gpu-check run from a bundle layout (bin/, share/gpubench/gpu-check, BUNDLE) whose programs are
# fixtures: gpubench-gemm says a GPU is usable, gpubench answers `run --plan --format json` with a
# fixture plan and fails everything else. Checks, without a GPU: no build step, each step's time
# limit taken from the plan (1.5 x estimate + 30 s), the budget the sum of the limits (issue 37),
# the failures reported as a FAIL verdict (exit 1), and --out holding verdict.txt and suites.json,
# fewer than 8 files. tests/ci/test_gpu_check_budget.py checks the budget on 8 GPUs.
#   gpu_check_bundle.sh SOURCE_DIR WORK_DIR
set -uo pipefail
source_dir="$1"
work="$2"
rm -rf "$work"
bundle="$work/gpubench-fixture-linux-x86_64"
mkdir -p "$bundle/bin" "$bundle/share/gpubench"
cp "$source_dir/ci/gpu-check" "$bundle/share/gpubench/"
cp -r "$source_dir/ci/gpu-check.d" "$bundle/share/gpubench/"
echo "gpubench-fixture-linux-x86_64" >"$bundle/share/gpubench/BUNDLE"

cat >"$bundle/bin/gpubench-gemm" <<'EOF'
#!/bin/sh
# fixture: a usable GPU; a run writes a small Google Benchmark JSON and fails
case "$*" in
  *--gpubench_info*) echo '{"suite": "gemm", "runnable": true, "reason": "", "notes": []}'; exit 0 ;;
esac
for a in "$@"; do
  case "$a" in --benchmark_out=*) echo '{"context": {}, "benchmarks": []}' >"${a#--benchmark_out=}" ;; esac
done
exit 1
EOF
cat >"$bundle/bin/gpubench" <<'EOF'
#!/bin/sh
# fixture: the plan of a quick run (gemm 10 s, fusion 20 s, transfer 4 s + launch 6 s: 40 s)
if [ "$1" = run ] && [ "$2" = --plan ]; then
  cat <<'JSON'
{"profile": "quick", "gpus": 1, "gpus_source": "fixture", "total_cases": 4, "total_estimated_s": 40,
 "suites": [{"suite": "gemm", "cases": 1, "estimated_s": 10}, {"suite": "fusion", "cases": 1, "estimated_s": 20},
            {"suite": "transfer", "cases": 1, "estimated_s": 4}, {"suite": "launch", "cases": 1, "estimated_s": 6}]}
JSON
  exit 0
fi
echo "fixture gpubench: $*" >&2
exit 3
EOF
chmod +x "$bundle/bin/gpubench" "$bundle/bin/gpubench-gemm"

failures=0
expect() {  # expect PATTERN WHAT
  if ! grep -qE "$1" "$work/out.txt"; then
    echo "gpu_check_bundle: FAIL: $2 (no line matching '$1')"
    failures=$((failures + 1))
  fi
}
PATH="/usr/bin:/bin" timeout 300 env -u GPU_CHECK_BUDGET_S "$bundle/share/gpubench/gpu-check" \
  --out "$work/check" >"$work/out.txt" 2>&1
rc=$?
cat "$work/out.txt"
[ "$rc" -eq 1 ] || { echo "gpu_check_bundle: FAIL: exit $rc, want 1"; failures=$((failures + 1)); }
expect "from the bundle gpubench-fixture-linux-x86_64: no build step" "bundle mode not detected"
expect "GPU tests \(ctest -L gpu\) not run: the bundle carries no tests" "the ctest step is not skipped"
expect "step time limits: 1 GPU\(s\) \(found here\); quick profile 40 s estimated by gpubench run --plan" "plan not read"
# gemm 45 + fusion 60 + transfer/launch 45 + two CLI runs 2 x 90 + timing 60 + doctor 60 +
# allreduce 150 + peers 180 (issue 40) + identity 30 (one GPU: skipped) + checks between the steps 60
expect "budget 870 s: the plan's total" "the budget is not the sum of the step limits"
expect "gpubench-gemm, limit 45 s\)" "gemm limit is not 1.5 x 10 + 30"
expect "gpu-check.d/fusion, limit 60 s\)" "fusion limit is not 1.5 x 20 + 30"
expect "gpu-check.d/transfer-launch, limit 45 s\)" "transfer+launch limit is not 1.5 x 10 + 30"
expect "gpubench run --profile quick, limit 90 s\)" "CLI run limit is not 1.5 x 40 + 30"
expect "allreduce, limit 150 s\)" "a suite the plan lacks does not keep its fixed limit"
expect "verdict: FAIL" "no FAIL verdict"
if ! grep -q "verdict: FAIL" "$work/check/verdict.txt" 2>/dev/null; then
  echo "gpu_check_bundle: FAIL: --out has no verdict.txt with the verdict"
  failures=$((failures + 1))
fi
if ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if any("gemm" in k for k in d["documents"]) else 1)' \
    "$work/check/suites.json"; then
  echo "gpu_check_bundle: FAIL: --out has no suites.json holding the gemm JSON"
  failures=$((failures + 1))
fi
files="$(find "$work/check" -type f | wc -l)"
[ "$files" -lt 8 ] || { echo "gpu_check_bundle: FAIL: $files files in --out"; failures=$((failures + 1)); }
if [ "$failures" -gt 0 ]; then
  echo "gpu_check_bundle: $failures check(s) failed"
  exit 1
fi
echo "gpu_check_bundle: passed"
