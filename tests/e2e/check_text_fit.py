#!/usr/bin/env python3
"""Issue 39: every text command fits COLUMNS and never cuts a number, through the real CLI.

  check_text_fit.py --gpubench BIN --fixture-suites DIR --eight-gpu SCRIPT [--suite-path DIR]
                    [--table] [--only NAME]

Builds a database in a temporary directory from FIXTURE data only: two made-up 8-GPU gemm runs
(tests/fixtures/reports/make_eight_gpu_gemm.py, imported) and a run of the e2e fixture suite
fixture_ok (tests/e2e/fixtures). Renders every text command at COLUMNS=80 and 120 and with
--wide, and fails when
  - a line is longer than COLUMNS, or
  - a word holding a digit (a number, a date, an interval, a name like m:8192) is not a word of
    the same command's --wide output: it was cut. A name shortened by whole '/' segments
    ("dtype:bf16/m:8192" for "gemm/cublaslt/dtype:bf16/m:8192/manual_time") counts whole, and so
    does one a table shortened by the prefix it announced ("every benchmark below starts with").
--table prints the line count and the longest line of each command at each width (the issue's
before/after note); with it, failures are listed but do not fail (for measuring an older build).
Exit 0 when every check passes, 1 otherwise.
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys
import tempfile

WIDTHS = (80, 120)
PREFIX_LINE = re.compile(r"^\s*every (.+) below starts with (\S+)$")


def run(gpubench, args, env, check=True):
    r = subprocess.run([gpubench] + args, env=env, capture_output=True, text=True, timeout=300)
    if check and r.returncode not in (0, 1):
        raise SystemExit("gpubench %s failed (exit %d): %s" % (" ".join(args), r.returncode,
                                                               r.stderr.strip()))
    return r


def words(text):
    return [w for w in text.split() if any(c.isdigit() for c in w)]


def build_database(gpubench, fixture_suites, eight_gpu, root, env):
    db = os.path.join(root, "fit.db")
    data = os.path.join(root, "eight")
    subprocess.run([sys.executable, eight_gpu, "--out", data], check=True)
    for name in ("gemm_run1.json", "gemm_run2.json"):
        run(gpubench, ["import", os.path.join(data, name), "--db", db], env)
    suite_env = dict(env, GPUBENCH_SUITE_PATH=fixture_suites, CI="1")
    run(gpubench, ["run", "--suite", "fixture_ok", "--db", db], suite_env)
    run(gpubench, ["baseline", "set", "nightly", "1", "--note",
                   "FIXTURE: the first made-up 8-GPU gemm run, kept as the reference for the "
                   "nightly comparison of this server", "--db", db], env)
    spec = os.path.join(root, "accept.spec")
    with open(spec, "w") as f:  # FIXTURE spec: fp32 (about 52 TFLOP/s) cannot meet it
        f.write("# FIXTURE spec\ngemm/* TFLOP_per_s >= 100 TFLOP/s\n")
    return db, spec


def commands(db, spec, suite_path):
    """(name, args, extra environment): every text command of issue 39."""
    d = ["--db", db]
    suites = {"GPUBENCH_SUITE_PATH": suite_path} if suite_path else {}
    return [
        ("compare", ["compare", "1", "2"] + d, {}),
        ("report", ["report", "2"] + d, {}),
        ("accept", ["accept", "2", "--spec", spec] + d, {}),
        ("models", ["models"] + d, {}),
        ("fleet", ["fleet"] + d, {}),
        ("show", ["show", "2"] + d, {}),
        ("runs", ["runs"] + d, {}),
        ("history", ["history", "all"] + d, {}),
        ("doctor", ["doctor"] + d, {}),
        # The real suites next to gpubench when built (their plans are the long ones), else none.
        ("run --plan", ["run", "--plan", "--gpus", "8"], suites),
        ("suites", ["suites"], suites),
        ("baseline list", ["baseline", "list"] + d, {}),
    ]


def check(name, out, wide, columns):
    problems = []
    # A long name broken after a '/' goes on on the next line (`suites`): joined, it is checked
    # whole. Line lengths are checked on the lines as printed.
    joined = re.sub(r"/\n\s+", "/", out)
    wide_words = set(wide.split())
    # Names are shortened by whole '/' segments (a common prefix, `manual_time`, segments every
    # row shares): a word whose segments are, in order, whole segments of a --wide word is whole.
    by_segment = {}
    for w in wide_words:
        if "/" in w:
            parts = w.split("/")
            for p in set(parts):
                by_segment.setdefault(p, []).append(parts)

    def shortened(word):
        parts = word.split("/")
        for candidate in by_segment.get(parts[0], []):
            it = iter(candidate)
            if all(any(p == c for c in it) for p in parts):
                return True
        return False
    # The names line of a summary ("names: gemm/.../dtype:*/.../device:*", what every row's name
    # shares, '*' where rows differ): whole when its segments are, in order, whole segments of
    # one --wide name ('*' inside a segment standing for what differs: "dtype:*").
    split_wide = [w.split("/") for w in wide_words if "/" in w]

    def pattern(word):
        if "*" not in word:
            return False
        parts = word.strip(",;()").split("/")
        for c in split_wide:
            it = iter(c)  # in order; '*' stands for what differs between rows ("dtype:*")
            if all(any(fnmatch.fnmatchcase(q, p) for q in it) for p in parts):
                return True
        return False
    prefixes = []
    for line in out.splitlines():
        m = PREFIX_LINE.match(line)
        if m:
            prefixes.append(m.group(2))
    for n, line in enumerate(out.splitlines(), 1):
        if len(line) > columns:
            problems.append("%s at %d: line %d is %d columns: %s" %
                            (name, columns, n, len(line), line))
    for w in words(joined):
        if (w in wide_words or any(p + w in wide_words for p in prefixes) or shortened(w) or
                pattern(w)):
            continue
        problems.append("%s at %d: %r is not a word of the --wide output (cut)" %
                        (name, columns, w))
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpubench", required=True)
    ap.add_argument("--fixture-suites", required=True)
    ap.add_argument("--eight-gpu", required=True)
    ap.add_argument("--suite-path", help="real suites for run --plan and suites (default: the "
                    "ones next to gpubench)")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--only", action="append", default=[])
    a = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "GPUBENCH_SUITE_PATH")}
    problems = []
    rows = []
    with tempfile.TemporaryDirectory(prefix="gpubench-fit-") as root:
        db, spec = build_database(a.gpubench, a.fixture_suites, a.eight_gpu, root, env)
        for name, args, extra in commands(db, spec, a.suite_path):
            if a.only and name not in a.only:
                continue
            cenv = dict(env, **extra)
            wide = run(a.gpubench, ["--wide"] + args, cenv, check=False)
            if wide.returncode not in (0, 1) or not wide.stdout.strip():
                # Only `run --plan` and `suites` depend on what is built: no suites, no output.
                print("SKIP %s: %s" % (name, (wide.stderr.strip() or "no output")[:200]))
                continue
            row = [name, len(wide.stdout.splitlines()),
                   max(len(l) for l in wide.stdout.splitlines())]
            for columns in WIDTHS:
                r = run(a.gpubench, args, dict(cenv, COLUMNS=str(columns)), check=False)
                lines = r.stdout.splitlines()
                row += [len(lines), max((len(l) for l in lines), default=0)]
                problems += check(name, r.stdout, wide.stdout, columns)
            rows.append(row)
    if a.table:
        print("| command | --wide lines | --wide max | 80: lines | 80: max | 120: lines | 120: max |")
        print("|---|---|---|---|---|---|---|")
        for r in rows:
            print("| " + " | ".join(str(x) for x in r) + " |")
    by_command = {}
    for p in problems:
        by_command.setdefault(p.split(" at ")[0], []).append(p)
    for name, ps in by_command.items():
        print("FAIL %s: %d problems, e.g.\n  %s" % (name, len(ps), "\n  ".join(ps[:4])))
    if not problems:
        print("every command fits 80 and 120 columns and cuts no number")
    return 0 if a.table or not problems else 1


if __name__ == "__main__":
    sys.exit(main())
