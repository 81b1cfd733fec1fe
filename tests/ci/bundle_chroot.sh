#!/usr/bin/env bash
# The bundle runs with nothing but glibc: packs the existing build with ci/bundle, unpacks the
# tarball into an empty root that holds only the bundle, the dynamic loader and glibc's libc, libm,
# libpthread, libdl, librt (plus libstdc++/libgcc_s only when a program needs them, i.e. not linked
# statically), /tmp, /dev/null and /proc, and runs inside it (chroot): gpubench --version,
# gpubench doctor, a quick run of the CPU suites into a database there, compare of that run
# against itself, and every suite's --gpubench_info (GPU parts skipped: no driver there).
#   bundle_chroot.sh SOURCE_DIR BUILD_DIR WORK_DIR
# Exit 0 passed, 1 failed, 77 skipped (not root, or no chroot/unshare/mknod: they need root).
set -uo pipefail
source_dir="$1"
build_dir="$2"
work="$3"

skip() {
  echo "bundle_chroot: skipped: $*"
  exit 77
}
failures=0
fail() {
  echo "bundle_chroot: FAIL: $*"
  failures=$((failures + 1))
}

[ "$(id -u)" -eq 0 ] || skip "not root (chroot, mknod and mounting /proc need root)"
for tool in chroot unshare mknod mount objdump readelf; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed"
done

rm -rf "$work"
mkdir -p "$work/out"
if ! GPUBENCH_BUILD_DIR="$build_dir" GPUBENCH_BUNDLE_NO_BUILD=1 bash "$source_dir/ci/bundle" "$work/out"; then
  echo "bundle_chroot: FAIL: ci/bundle failed (above)"
  exit 1
fi
tarball="$(ls "$work"/out/gpubench-*-linux-x86_64.tar.gz)"
name="$(basename "$tarball" .tar.gz)"

root="$work/root"
mkdir -p "$root/tmp" "$root/dev" "$root/proc"
chmod 1777 "$root/tmp"
mknod -m 666 "$root/dev/null" c 1 3 || skip "mknod failed (no CAP_MKNOD in this container)"
tar -xzf "$tarball" -C "$root"
mv "$root/$name" "$root/gpubench"
# The dataloader dlopens libturbojpeg (issue 41); the root has none but the bundle's.
[ -f "$root/gpubench/lib/libturbojpeg.so.0" ] || fail "the bundle has no lib/libturbojpeg.so.0"

# glibc from the host, at the paths the loader searches; the loader at the programs' PT_INTERP.
interp="$(readelf -l "$root/gpubench/bin/gpubench" | sed -nE 's/.*Requesting program interpreter: (.*)\]/\1/p')"
mkdir -p "$root$(dirname "$interp")"
cp -L "$interp" "$root$interp"
host_lib() {  # path of a host library by soname
  local so="$1" d
  for d in /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64; do
    [ -e "$d/$so" ] && { echo "$d/$so"; return 0; }
  done
  return 1
}
base=(libc.so.6 libm.so.6 libpthread.so.0 libdl.so.2 librt.so.1)
# libstdc++/libgcc_s only when a program still needs them and the bundle does not carry them.
for so in libstdc++.so.6 libgcc_s.so.1; do
  for f in "$root"/gpubench/bin/*; do
    if readelf -d "$f" | grep -q "NEEDED.*\[$so\]" && [ ! -e "$root/gpubench/lib/$so" ]; then
      echo "bundle_chroot: note: $(basename "$f") needs $so: copied from the host (not linked statically)"
      base+=("$so")
      break
    fi
  done
done
mkdir -p "$root/lib/x86_64-linux-gnu"
for so in "${base[@]}"; do
  path="$(host_lib "$so")" || skip "the host has no $so to copy"
  cp -L "$path" "$root/lib/x86_64-linux-gnu/$so"
done
echo "bundle_chroot: root holds $(cd "$root" && find . -type f | wc -l) files: the bundle, ${base[*]}, $(basename "$interp")"

# Runs a command inside the root with a clean environment; /proc is mounted in a private mount
# namespace, so it goes away with the command (gpubench finds its suites through /proc/self/exe).
chroot_bin="$(command -v chroot)"
in_root() {
  timeout 300 unshare --mount --propagation private --fork /bin/sh -c \
    'r="$0" c="$1"; shift; mount -t proc proc "$r/proc" && exec env -i PATH=/gpubench/bin HOME=/tmp TMPDIR=/tmp CI=1 "$c" "$r" "$@"' \
    "$root" "$chroot_bin" "$@"
}
loader_failure() {  # a program that could not start says so on stderr
  grep -E "error while loading shared libraries|cannot open shared object|version .GLIBC|No such file or directory" "$1"
}
run_step() {  # run_step LABEL ALLOWED_EXIT_CODES COMMAND...
  local label="$1" allowed="$2" rc
  shift 2
  in_root "$@" >"$work/$label.out" 2>"$work/$label.err"
  rc=$?
  if loader_failure "$work/$label.err" >/dev/null || [[ " $allowed " != *" $rc "* ]]; then
    tail -n 15 "$work/$label.out" "$work/$label.err"
    fail "$label: exit $rc (expected one of: $allowed)"
    return 1
  fi
  echo "bundle_chroot: ok: $label (exit $rc)"
}

if run_step version 0 /gpubench/bin/gpubench --version; then
  grep -q "bundle $name" "$work/version.out" || fail "gpubench --version does not name the bundle: $(cat "$work/version.out")"
  cat "$work/version.out"
fi
# doctor exits 1 when a check fails: here the GPU checks do (no driver); 3 would be its own failure.
if run_step doctor "0 1" /gpubench/bin/gpubench doctor; then
  grep -qiE "driver|nvml" "$work/doctor.out" || fail "doctor says nothing about the missing driver"
fi
run_step run 0 /gpubench/bin/gpubench run --suite calibration,memory --profile quick --db /tmp/bundle.db
# compare refuses a run against itself (exit 2: it says nothing), so a second, short run is the
# candidate; 1 (a regression, the noise of this shared machine) is a verdict too.
run_step run2 0 /gpubench/bin/gpubench run --suite calibration --profile quick --db /tmp/bundle.db
run_step compare "0 1" /gpubench/bin/gpubench compare latest~1 latest --db /tmp/bundle.db

for program in "$root"/gpubench/bin/gpubench-*; do
  suite="$(basename "$program")"
  run_step "$suite-info" 0 "/gpubench/bin/$suite" --gpubench_info || continue
  if ! python3 - "$work/$suite-info.out" "$suite" <<'PY'; then
import json, re, sys
info = json.loads(open(sys.argv[1]).read())
suite = sys.argv[2]
reason = info.get("reason", "")
if suite == "gpubench-calibration":  # the host-only suite runs anywhere
    sys.exit(0 if info["runnable"] else 1)
cause = re.compile(r"driver|libcuda|not found", re.I)
if not info["runnable"]:
    if not cause.search(reason):
        print(f"  {suite}: skip reason does not name the missing driver/library: {reason!r}")
        sys.exit(1)
    print(f"  {suite}: skipped: {reason}")
    sys.exit(0)
# Host cases run; the GPU (or CUDA library) parts must say they are skipped and why.
skipped = [n for n in info.get("notes", []) if "skipped:" in n and cause.search(n)]
if not skipped:
    print(f"  {suite}: runnable, and no note says its GPU parts are skipped: {info.get('notes')}")
    sys.exit(1)
for n in skipped:
    print(f"  {suite}: {n}")
PY
    fail "$suite --gpubench_info: not skipped for want of a driver (above)"
  fi
done

# gpu-check from the unpacked bundle (on the host: it needs bash and python3), no GPU visible: it
# starts without a build, says there is no usable GPU, and leaves its verdict in --out.
CUDA_VISIBLE_DEVICES="" GPU_CHECK_BUDGET_S=120 timeout 300 "$root/gpubench/share/gpubench/gpu-check" \
  --out "$work/check" >"$work/gpu-check.out" 2>&1
rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "from the bundle $name: no build step" "$work/gpu-check.out" ||
    ! grep -q "verdict: FAIL (no usable CUDA device" "$work/check/verdict.txt" 2>/dev/null; then
  tail -n 20 "$work/gpu-check.out"
  fail "gpu-check from the bundle without a GPU: exit $rc, want 1 with the no-GPU verdict in --out"
else
  files="$(find "$work/check" -type f | wc -l)"
  big="$(find "$work/check" -type f -size +16M)"
  if [ "$files" -ge 8 ] || [ -n "$big" ]; then
    fail "gpu-check --out holds $files files (want < 8), over 16 MiB: ${big:-none}"
  else
    echo "bundle_chroot: ok: gpu-check from the bundle without a GPU (exit 1, $files file(s) in --out)"
  fi
fi

if [ "$failures" -gt 0 ]; then
  echo "bundle_chroot: $failures step(s) failed; outputs in $work"
  exit 1
fi
echo "bundle_chroot: passed ($name ran in an empty root)"
