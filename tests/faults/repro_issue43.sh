#!/usr/bin/env bash
# The fault report's reproducers (issue 43), through the real CLI: one line per defect, "ok" when
# gpubench behaves as the report's "Should" says. Not a CTest test (about 70 s, needs root for the
# /dev check and prlimit); run by hand after a change to outputs, import, run or options:
#   tests/faults/repro_issue43.sh build/bin
# Prints one line per defect: id | what was checked | result | ok/BAD
set -u
B=$(cd "$1" && pwd); G=$B/gpubench; H=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d); cd "$W"; export CI=1
line() { printf '%-5s | %-62s | %-40s | %s\n' "$1" "$2" "$3" "$4"; }
ok() { if [ "${1:-}" = 1 ]; then echo ok; else echo BAD; fi; }
runs_of() { sqlite3 "$1" 'select count(*) from runs' 2>/dev/null || echo ERR; }

for i in 1 2 3; do $G run --suite calibration --profile quick --tag series=cal --db g.db >/dev/null 2>&1; done
GPUBENCH_CALIBRATION_SCALE=2.0 $G run --suite calibration --profile quick --tag series=cal --db g.db >/dev/null 2>&1
n0=$(runs_of g.db)

# 1: -o onto the database
cp g.db t.db; $G export 1 --format json -o t.db --db t.db >/dev/null 2>&1; rc=$?
line D1a "export -o t.db --db t.db" "rc=$rc runs=$(runs_of t.db)" "$(ok $([ $rc = 2 ] && [ "$(runs_of t.db)" = "$n0" ] && echo 1))"
cp g.db t.db; ln -sf t.db r.html; $G compare 3 4 --format html -o r.html --db t.db >/dev/null 2>&1; rc=$?
line D1b "compare -o symlink-to-db" "rc=$rc runs=$(runs_of t.db)" "$(ok $([ $rc = 2 ] && [ "$(runs_of t.db)" = "$n0" ] && echo 1))"
cp g.db t.db; $G history all -o t.db-wal --db t.db >/dev/null 2>&1; rc=$?
line D1c "history -o t.db-wal" "rc=$rc" "$(ok $([ $rc = 2 ] && echo 1))"
mkdir -p s; cp g.db s/index.html; $G site -o s --db s/index.html >/dev/null 2>&1; rc=$?
line D1d "site -o s --db s/index.html" "rc=$rc runs=$(runs_of s/index.html)" "$(ok $([ $rc = 2 ] && [ "$(runs_of s/index.html)" = "$n0" ] && echo 1))"

# 2: annotations after a merge
cp g.db node.db; $G import node.db --db fleet.db >/dev/null 2>&1
$G annotate 3 "driver 575 upgrade" --db node.db >/dev/null 2>&1
$G import node.db --db fleet.db >/dev/null 2>&1; rc=$?
a=$(sqlite3 fleet.db 'select count(*) from annotations')
line D2 "annotation made after merge reaches the target" "rc=$rc annotations=$a" "$(ok $([ "$a" = 1 ] && echo 1))"

# 4: --until-decided: latest is not the partial rerun
$G run --suite calibration,memory --profile quick --tag ci=nightly --db p.db >/dev/null 2>&1
$G baseline set nightly 1 --db p.db >/dev/null 2>&1
GPUBENCH_CALIBRATION_SCALE=2.0 timeout 600 $G run --suite calibration,memory --profile quick --tag ci=nightly \
  --until-decided baseline:nightly --max-extra-runs 1 --db p.db >/dev/null 2>&1; rc1=$?
$G compare baseline:nightly latest --db p.db >/dev/null 2>&1; rc=$?
line D4 "compare baseline latest after --until-decided (run rc=$rc1)" "rc=$rc" "$(ok $([ $rc = 1 ] && echo 1))"

# 5: history --record after change points were deleted
mkdir -p hist; python3 "$H/gen_fixtures.py" hist hist 20 40
for f in hist/h*.json; do $G import "$f" --tag ci=nightly --db h.db >/dev/null 2>&1; done
r1=$($G history all --record --db h.db 2>&1 | grep -o 'recorded [0-9]* change points' | head -1)
sqlite3 h.db 'delete from change_points'
$G history all --record --db h.db >/dev/null 2>&1
c=$(sqlite3 h.db 'select count(*) from change_points')
line D5 "record after deleting change points ($r1)" "change_points=$c" "$(ok $([ "$c" -gt 0 ] && echo 1))"

# 6: site pages of a.b, a_b, a-b
for sname in a.b a_b a-b; do python3 "$H/gen_fixtures.py" names "$sname.json" "$sname" "$sname/x/n:1"; $G import "$sname.json" --db site.db >/dev/null 2>&1; done
$G site -o site_out --db site.db >/dev/null 2>&1; rc=$?
pages=$(ls site_out | grep -c '^suite-')
line D6 "site pages for a.b, a_b, a-b" "rc=$rc suite pages=$pages" "$(ok $([ "$pages" = 3 ] && echo 1))"

# 8: doctor with an unreadable dataloader plan
mkdir -p dl; printf '#!/bin/bash\nfor a; do case $a in --gpubench_plan*) echo garbage; exit 0;; esac; done\n' > dl/gpubench-dataloader; chmod +x dl/gpubench-dataloader
out=$(GPUBENCH_SUITE_PATH=$PWD/dl $G doctor 2>&1 | grep 'storage.free_space' | head -1)
line D8 "doctor storage.free_space with a garbage plan" "${out:0:40}" "$(ok $(echo "$out" | grep -qv '^ *PASS' && echo 1))"

# 9: env -i descendants
mkdir -p zz; printf '#!/bin/bash\nfor a; do case $a in --benchmark_list_tests*) echo zz/case; exit;; --gpubench_plan*) echo "{}"; exit;; esac; done\nsetsid env -i /bin/sleep 314 & (setsid env -i /bin/sleep 315 &); sleep 300\n' > zz/gpubench-zzdaemon; chmod +x zz/gpubench-zzdaemon
GPUBENCH_SUITE_PATH=$PWD/zz $G run --suite zzdaemon --db z.db >/dev/null 2>&1 & p=$!; sleep 4; kill -KILL $p; wait $p 2>/dev/null; sleep 2
left=$(pgrep -f 'sleep 31[45]' | wc -l); pkill -f 'sleep 31[45]'
line D9 "descendants with env -i after SIGKILL" "left=$left" "$(ok $([ "$left" = 0 ] && echo 1))"

# 10: expect_gpu_model with no GPU
printf 'expect_gpu_model "H200"\ncalibration/* calls_per_s >= 1 calls/s\n' > spec.txt
$G accept 3 --spec spec.txt --db g.db >/dev/null 2>&1; rc=$?
line D10 "accept --spec expect_gpu_model H200, no GPU" "rc=$rc" "$(ok $([ $rc = 1 ] && echo 1))"

# 11: SIGXFSZ
cp g.db t.db; prlimit --fsize=60000 $G export 1 --format json -o e.json --db t.db >/dev/null 2>&1; rc=$?
line D11 "export under a 60 kB file-size limit" "rc=$rc" "$(ok $([ $rc = 3 ] && echo 1))"

# 12, 13, 14: option values
$G run --plan --gpus -1 >/dev/null 2>&1; rc=$?
line D12 "run --plan --gpus -1" "rc=$rc" "$(ok $([ $rc = 2 ] && echo 1))"
bad=""
for args in "run --suite calibration --profile quick --expect-gpus '' --db e.db" "doctor --expect-gpus ''" \
            "run --plan --gpus ''" "fleet --suite '' --db g.db" "models --reference '' --db g.db" \
            "doctor --data-dir ''" "import hist/h00.json --suite '' --db e.db" \
            "run --suite calibration --until-decided '' --db e.db"; do
  eval "$G $args" >/dev/null 2>&1; r=$?; [ $r = 2 ] || bad="$bad [$args:$r]"
done
line D13 "empty option values (8 commands)" "${bad:-all 2}" "$(ok $([ -z "$bad" ] && echo 1))"
$G export 1 --format json -o e1.json --db g.db >/dev/null 2>&1; mkdir -p IN
(cd "$W" && python3 "$H/mkfleet.py" IN >/dev/null 2>&1)
for f in h100a h100b h200a h200b; do $G import IN/$f.json --db f.db >/dev/null 2>&1; done
$G fleet --db f.db >/dev/null 2>&1; rc0=$?
$G fleet --z inf --db f.db >/dev/null 2>&1; rc=$?
line D14 "fleet --z inf (plain fleet rc=$rc0)" "rc=$rc" "$(ok $([ $rc = 2 ] && [ $rc0 = 1 ] && echo 1))"

# 15, 16: invalid UTF-8, control characters
cp g.db u.db; $G annotate 2 "$(printf 'bad \xff byte')" --db u.db >/dev/null 2>&1; rc=$?
line D15 "annotate with invalid UTF-8" "rc=$rc" "$(ok $([ $rc = 2 ] && echo 1))"
$G annotate 2 "$(printf 'x\e[31mRED\e[0m')" --db u.db > ann.out 2>&1
esc=$( { cat ann.out; $G report 2 --db u.db; $G compare 1 2 --db u.db; } 2>&1 | grep -c $'\e')
line D16 "raw ESC in annotate/report/compare output" "lines with ESC=$esc" "$(ok $([ "$esc" = 0 ] && echo 1))"

# 17: history --format md with <script>
python3 "$H/gen_fixtures.py" names sec.json sec "sec/<script>alert(1)</script>/n:2"
$G import sec.json --db sec.db >/dev/null 2>&1; $G import sec.json --db sec.db >/dev/null 2>&1
n=$($G history all --format md --db sec.db 2>/dev/null | grep -c '<script>')
line D17 "history --format md raw <script>" "count=$n" "$(ok $([ "$n" = 0 ] && echo 1))"

# 18: sidecar beside /dev/null
python3 "$H/gen_fixtures.py" big big.json 5100
$G import big.json --db big.db >/dev/null 2>&1; $G import big.json --db big.db >/dev/null 2>&1
rm -f /dev/null.unchanged.csv; $G compare 1 2 --format html -o /dev/null --db big.db >/dev/null 2>&1; rc=$?
side=$([ -e /dev/null.unchanged.csv ] && echo yes || echo no); rm -f /dev/null.unchanged.csv
line D18 "compare -o /dev/null of 5,100 entries: sidecar in /dev" "rc=$rc sidecar=$side" "$(ok $([ "$side" = no ] && echo 1))"

# 19: deep nesting
python3 "$H/gen_fixtures.py" deep deep.json 100000
$G import deep.json --db d.db >/dev/null 2>&1; rc=$?
line D19 "import of a 10^5-deep context" "rc=$rc" "$(ok $([ $rc = 2 ] && echo 1))"

# 20: name length cap
python3 "$H/gen_fixtures.py" long long.json 10000
$G import long.json --db l.db >/dev/null 2>&1; rc=$?
line D20 "import of a 10 KB benchmark name" "rc=$rc" "$(ok $([ $rc = 2 ] && echo 1))"

cd /; rm -rf "$W"
