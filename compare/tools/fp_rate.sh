#!/usr/bin/env bash
# False-positive rate of `gpubench compare` (issues 3, 8): N runs of identical work per suite into
# one fresh database, each run compared with the one before it (A/A) with the default options
# (threshold 2%, alpha 0.01, history window 10). Every series called `regression` (or
# `improvement`) is a false positive. Prints the rate per suite and overall, over all comparisons
# and over the series whose interval had history (>= 3 runs), and the interval half-widths
# (min_detectable_effect); the same pairs compared with --history 0 show what the history changes.
#
# Usage: compare/tools/fp_rate.sh [-b BIN_DIR] [-n RUNS] [-p PROFILE] [-o OUT_DIR] [SUITE...]
#   BIN_DIR  directory with gpubench and the suite executables (default: where `gpubench` is on
#            PATH); RUNS 21 (20 comparisons); PROFILE quick; OUT_DIR a new temporary directory;
#   SUITE    default: calibration memory.
# Needs jq. Check `uptime` first: a loaded machine measures the load, not gpubench.
set -euo pipefail

bin_dir=""
runs=21
profile=quick
out=""
while getopts "b:n:p:o:" opt; do
  case "$opt" in
    b) bin_dir="$OPTARG" ;;
    n) runs="$OPTARG" ;;
    p) profile="$OPTARG" ;;
    o) out="$OPTARG" ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(calibration memory)
if [ -z "$bin_dir" ]; then
  bin_dir="$(dirname "$(command -v gpubench)")"
fi
gpubench="$bin_dir/gpubench"
[ -x "$gpubench" ] || { echo "fp_rate.sh: no gpubench in '$bin_dir' (use -b)" >&2; exit 2; }
command -v jq > /dev/null || { echo "fp_rate.sh: needs jq" >&2; exit 2; }
[ -n "$out" ] || out="$(mktemp -d -t gpubench-fp-rate.XXXXXX)"
mkdir -p "$out"
db="$out/fp.db"
[ ! -e "$db" ] || { echo "fp_rate.sh: '$db' exists; give a new -o directory" >&2; exit 2; }

echo "database: $db   runs per suite: $runs   profile: $profile   load: $(cut -d' ' -f1-3 /proc/loadavg)"
# Runs interleave the suites (run i of every suite, then run i+1), as a nightly job would, so
# consecutive runs of a suite are minutes apart on slow suites, not a burst of identical state.
declare -A ids
start=$(date +%s)
for ((i = 1; i <= runs; i++)); do
  for suite in "${suites[@]}"; do
    "$gpubench" --db "$db" run --suite "$suite" --profile "$profile" --tag "fp=$suite" \
      > "$out/run-$suite-$i.log" 2>&1
    ids[$suite:$i]="$("$gpubench" --db "$db" runs --format json --limit 1 | jq '.[0].id')"
  done
done
echo "${#suites[@]} suites x $runs runs in $(($(date +%s) - start)) s"
for suite in "${suites[@]}"; do
  for ((i = 2; i <= runs; i++)); do
    name="$suite-$(printf %02d "$((i - 1))")"
    "$gpubench" --db "$db" compare "${ids[$suite:$((i - 1))]}" "${ids[$suite:$i]}" \
      --format json --fail-on never -o "$out/compare-$name.json"
    # The same pair without history, to show what the history changes.
    "$gpubench" --db "$db" compare "${ids[$suite:$((i - 1))]}" "${ids[$suite:$i]}" \
      --format json --fail-on never --history 0 -o "$out/nohistory-$name.json"
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

# One line per compared series: suite, history runs, verdict, interval half-width, noise source.
for kind in compare nohistory; do
  for f in "$out/$kind"-*.json; do
    jq -r '.results[] | select(.min_detectable_effect != null)
      | [.suite, .history_runs, .verdict, .min_detectable_effect, .noise_source] | @tsv' "$f"
  done > "$out/series-$kind.tsv"
done

summary() {  # $1: label, stdin: series lines
  local lines n
  lines="$(cat)"
  n=$(printf '%s' "$lines" | grep -c . || true)
  if [ "$n" -eq 0 ]; then printf '%-30s no series\n' "$1"; return; fi
  # Half-widths sorted, then median, P90 and max by rank (POSIX awk: no asort).
  printf '%s\n' "$lines" | cut -f4 | sort -g | awk -v n="$n" '
    NR == int((n + 1) / 2) { med = $1 } NR == int(0.9 * n + 0.5) { p90 = $1 } { max = $1 }
    END { printf "half-width median %.1f%% p90 %.1f%% max %.1f%%", 100 * med, 100 * p90, 100 * max }' \
    > "$out/.margins"
  printf '%s\n' "$lines" | awk -F'\t' -v label="$1" -v margins="$(cat "$out/.margins")" '
    { n++; if ($3 == "regression") r++; if ($3 == "improvement") i++ }
    END {
      printf "%-30s series %4d  regression %3d (%.2f%%)  improvement %3d (%.2f%%)  %s\n",
             label, n, r, 100 * r / n, i, 100 * i / n, margins
    }'
  rm -f "$out/.margins"
}
echo
lines() {  # $1: suite or all, $2: compare or nohistory
  if [ "$1" = all ]; then cat "$out/series-$2.tsv"; else
    awk -F'\t' -v s="$1" '$1 == s' "$out/series-$2.tsv"; fi
}
for suite in "${suites[@]}" all; do
  lines "$suite" compare | summary "$suite, all comparisons"
  lines "$suite" compare | awk -F'\t' '$2 >= 3' | summary "$suite, with history"
  lines "$suite" nohistory | summary "$suite, --history 0"
done
echo
echo "what the intervals held (series):"
cut -f1,5 "$out/series-compare.tsv" | sed 's/history ([0-9]* runs)/history/' | sort | uniq -c
echo "per-series details: $out/series-*.tsv; comparisons: $out/compare-*.json"
