#!/usr/bin/env python3
"""Runs the shell steps of ci/templates/ here, on the CPU suites, so the templates cannot rot.

For each template the real steps are taken from the file (GitHub Actions `run:` blocks, GitLab
`script:`/`after_script:` lines, the Slurm batch script itself) and run with bash in a temp
workspace, with the variables pointed at a temp database and a short quick-profile run of the
calibration and memory suites. Two nights per CI template:
  1. first night: no baseline yet -> the run becomes the baseline, the job succeeds;
  2. a night where the calibration suite does twice the work (GPUBENCH_CALIBRATION_SCALE=2, a
     known regression) -> the compare step exits 1, the job fails, and the Markdown summary,
     JUnit file, HTML report and OpenMetrics file are still written.
The Slurm script runs with a stand-in `srun` (a labelled fixture that runs the task once per
fake node) against the first night's database as the reference; node-b does twice the work and
must fail acceptance.

usage: run_templates.py --bin BUILD/bin --source SOURCE_DIR --work TEMP_DIR
"""
import argparse
import json
import os
import shutil
import stat
import subprocess
import sys

import yaml  # Debian: python3-yaml

RUN_ARGS = ("--profile quick --suite calibration,memory "
            "--filter hash_chain/base_units:250000/|host_triad/array_bytes:67108864/threads:1/")

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def bash(script, env, cwd):
    """Runs a script as GitHub/GitLab would (bash -eo pipefail); returns the exit code."""
    r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
                       env=env, cwd=cwd)
    return r.returncode


def base_env(args, work, db):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("GITHUB_") or k.startswith("GPUBENCH_") or k.startswith("CI_"):
            del env[k]
    env.update({
        "GPUBENCH_BIN": args.bin,
        "GPUBENCH_DB": db,
        "GPUBENCH_RUN_ARGS": RUN_ARGS,
        "GPUBENCH_DATA_DIR": os.path.join(work, "data"),
        "CI": "true",
    })
    return env


def check_outputs(out, name, regression):
    summary = os.path.join(out, "summary.md")
    check(os.path.isfile(summary), f"{name}: summary.md written")
    doctor = json.load(open(os.path.join(out, "doctor.json")))
    check(len(doctor.get("checks", [])) >= 20, f"{name}: doctor.json lists the checks")
    prom = open(os.path.join(out, "gpubench.prom")).read()
    check(prom.endswith("# EOF\n"), f"{name}: OpenMetrics file ends with # EOF")
    md = open(summary).read()
    first = md.splitlines()[0] if md else ""
    # Issue 25: the change points of the nightly runs and the static results site, every night.
    if "gitlab" in name or "github" in name:
        changes = open(os.path.join(out, "changes.txt")).read()
        check(changes.startswith("change points in "), f"{name}: history --changes written")
        check(os.path.isfile(os.path.join(out, "site", "index.html")),
              f"{name}: results site written")
    if regression:
        text = md.lower()
        check("regression" in text, f"{name}: summary names the regression")
        # Issue 26: headed by the verdict under the gate, then what was compared.
        check(first.startswith("## FAIL: ") and "regression" in first,
              f"{name}: summary's first line is the FAIL verdict ({first!r})")
        for row in ("| runs |", "| started (UTC) |", "| host |", "| gpubench git sha |"):
            check(row in md, f"{name}: summary has the runs table row {row}")
        # The templates' own variables (night 2 sets GPUBENCH_TEXTFILE_DIR) are no difference, the
        # variable that made the regression is (Markdown escapes `_`: compare the unescaped text).
        plain = md.replace("\\", "")
        check("GPUBENCH_TEXTFILE_DIR" not in plain,
              f"{name}: template variables not listed as differences")
        check("GPUBENCH_CALIBRATION_SCALE" in plain,
              f"{name}: GPUBENCH_CALIBRATION_SCALE listed as a difference")
        junit = open(os.path.join(out, "junit.xml")).read()
        check("<failure" in junit, f"{name}: JUnit file has a failure")
        check(os.path.getsize(os.path.join(out, "report.html")) > 1000,
              f"{name}: HTML report written")
        check('verdict="regression"' in prom, f"{name}: OpenMetrics carries the verdict")
    else:
        check("no baseline" in md.lower(), f"{name}: first night sets the baseline")
        check(first.startswith("## PASS"), f"{name}: first night's summary starts with PASS ({first!r})")
        check("gpubench_verdict" not in prom, f"{name}: first night exports no verdicts (run vs itself)")


def template_variables(args):
    """Every GPUBENCH_ name a template uses that gpubench does not read itself must be in the
    list compare keeps out of environment differences (compare/env_differences.cpp)."""
    import glob
    import re
    names = set()
    for path in glob.glob(os.path.join(args.source, "ci/templates/*")):
        names |= set(re.findall(r"GPUBENCH_[A-Z_]+", open(path).read()))
    code = ""
    for folder in ("harness", "results", "compare", "util", "suites"):
        for path in glob.glob(os.path.join(args.source, folder, "**", "*.[ch]pp"), recursive=True):
            if not path.endswith("env_differences.cpp"):
                code += open(path).read()
    listed = open(os.path.join(args.source, "compare/env_differences.cpp")).read()
    for n in sorted(names):
        if f'"{n}"' not in code:
            check(f'"{n}"' in listed, f"template variable {n} is kept out of environment differences")


def github(args, work):
    doc = yaml.safe_load(open(os.path.join(args.source, "ci/templates/github-actions-nightly.yml")))
    job = doc["jobs"]["nightly"]
    check(job["runs-on"][0] == "self-hosted", "github: self-hosted runner")
    db = os.path.join(work, "github", "nightly.db")
    for night, scale in ((1, None), (2, "2")):
        ws = os.path.join(work, "github", f"night{night}")
        os.makedirs(ws)
        env = base_env(args, work, db)
        env.update({k: str(v) for k, v in job["env"].items()
                    if k not in ("GPUBENCH_DB", "GPUBENCH_RUN_ARGS")})
        env["GITHUB_ENV"] = os.path.join(ws, "github_env")
        env["GITHUB_STEP_SUMMARY"] = os.path.join(ws, "step_summary.md")
        env["GITHUB_SHA"] = "0" * 40
        if scale:
            env["GPUBENCH_CALIBRATION_SCALE"] = scale
            env["GPUBENCH_TEXTFILE_DIR"] = ws  # a template variable that differs between nights
        open(env["GITHUB_ENV"], "w").close()
        failed_step = None
        uploads = []
        for step in job["steps"]:
            if "uses" in step:
                uploads.append(step)
                continue
            if failed_step and "always()" not in str(step.get("if", "")):
                continue
            rc = bash(step["run"], env, ws)
            # $GITHUB_ENV lines become variables of later steps, as on GitHub.
            for line in open(env["GITHUB_ENV"]).read().splitlines():
                if "=" in line:
                    k, v = line.split("=", 1)
                    env[k] = v
            if rc != 0 and not failed_step:
                failed_step = (step["name"], rc)
        name = f"github night {night}"
        if scale:
            check(failed_step == ("Compare with the baseline", 1),
                  f"{name}: the compare step fails the job with exit 1 (got {failed_step})")
        else:
            check(failed_step is None, f"{name}: every step succeeds (got {failed_step})")
        check(os.path.getsize(env["GITHUB_STEP_SUMMARY"]) > 0, f"{name}: job summary written")
        for step in uploads:
            for key in ("path", "report_paths"):
                path = step.get("with", {}).get(key)
                if path and (scale or "junit" not in path):
                    check(os.path.exists(os.path.join(ws, path)),
                          f"{name}: '{step['name']}' finds {path}")
        check_outputs(os.path.join(ws, "gpubench-out"), name, bool(scale))
    return db


def gitlab(args, work):
    doc = yaml.safe_load(open(os.path.join(args.source, "ci/templates/gitlab-ci-nightly.yml")))
    job = doc["gpubench-nightly"]
    db = os.path.join(work, "gitlab", "nightly.db")
    for night, scale in ((1, None), (2, "2")):
        ws = os.path.join(work, "gitlab", f"night{night}")
        os.makedirs(ws)
        env = base_env(args, work, db)
        env.update({k: str(v) for k, v in job["variables"].items()
                    if k not in ("GPUBENCH_DB", "GPUBENCH_RUN_ARGS")})
        env["CI_COMMIT_SHA"] = "0" * 40
        if scale:
            env["GPUBENCH_CALIBRATION_SCALE"] = scale
            env["GPUBENCH_TEXTFILE_DIR"] = ws  # a template variable that differs between nights
        # GitLab runs the script lines in one shell and after_script in another, always.
        rc = bash("\n".join(job["script"]), env, ws)
        after = bash("\n".join(job["after_script"]), env, ws)
        name = f"gitlab night {night}"
        check(rc == (1 if scale else 0), f"{name}: script exit {rc}")
        check(after == 0, f"{name}: after_script exit {after}")
        for path in job["artifacts"]["paths"] + ([job["artifacts"]["reports"]["junit"]] if scale else []):
            check(os.path.exists(os.path.join(ws, path)), f"{name}: artifact {path} exists")
        check_outputs(os.path.join(ws, "gpubench-out"), name, bool(scale))


SRUN_FIXTURE = """#!/usr/bin/env bash
# FIXTURE (tests/ci/run_templates.py): stands in for Slurm's srun on a machine without Slurm.
# Runs the task once per fake node in FAKE_NODES, with SLURMD_NODENAME set and the node's extra
# variables from FAKE_ENV_<node> (e.g. GPUBENCH_CALIBRATION_SCALE=2).
while [ "$#" -gt 0 ] && [ "${1#--}" != "$1" ]; do shift; done
for node in $FAKE_NODES; do
  var="FAKE_ENV_${node//-/_}"
  env SLURMD_NODENAME="$node" ${!var:-} "$@" || exit $?
done
"""


def slurm(args, work, reference_db):
    ws = os.path.join(work, "slurm")
    os.makedirs(os.path.join(ws, "bin"))
    srun = os.path.join(ws, "bin", "srun")
    open(srun, "w").write(SRUN_FIXTURE)
    os.chmod(srun, os.stat(srun).st_mode | stat.S_IEXEC)
    env = base_env(args, work, os.path.join(ws, "unused.db"))
    del env["GPUBENCH_DB"]
    env["PATH"] = os.path.join(ws, "bin") + ":" + env["PATH"]
    env.update({
        "GPUBENCH_OUT": os.path.join(ws, "out"),
        "GPUBENCH_REFERENCE_DB": reference_db,
        "GPUBENCH_BASELINE": "nightly",
        "FAKE_NODES": "node-a node-b",
        "FAKE_ENV_node_b": "GPUBENCH_CALIBRATION_SCALE=2",
        "SLURM_JOB_ID": "4242",
    })
    script = os.path.join(args.source, "ci/templates/slurm-acceptance.sbatch")
    r = subprocess.run(["bash", script], env=env, cwd=ws, capture_output=True, text=True)
    print(r.stdout + r.stderr, flush=True)
    out = env["GPUBENCH_OUT"]
    check(r.returncode == 1, f"slurm: exit 1 when a node fails acceptance (got {r.returncode})")
    check(open(os.path.join(out, "node-b.status")).read().strip() == "1",
          "slurm: node-b (twice the work) fails acceptance")
    check(open(os.path.join(out, "node-a.status")).read().strip() in ("0", "1"),
          "slurm: node-a ran and was judged")
    for node in ("node-a", "node-b"):
        check(os.path.isfile(os.path.join(out, f"{node}.db")), f"slurm: {node} has its own database")
        check(os.path.isfile(os.path.join(out, f"{node}.junit.xml")), f"slurm: {node} JUnit written")
    check("node-b: FAILED acceptance" in r.stdout, "slurm: the failing node is named")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--work", required=True)
    args = p.parse_args()
    args.bin = os.path.abspath(args.bin)
    global RUN_ARGS
    if not os.path.exists(os.path.join(args.bin, "gpubench-memory")):  # host-only builds
        RUN_ARGS = RUN_ARGS.replace("calibration,memory", "calibration")
    # The slowed nights are timed runs: one repetition slowed by a busy machine can leave the
    # 2x slowdown inconclusive (exit 0 instead of 1). A failed attempt is run again from scratch,
    # at most 3 times; a fault in a template fails every attempt.
    for attempt in range(1, 4):
        failures.clear()
        shutil.rmtree(args.work, ignore_errors=True)
        os.makedirs(args.work)
        template_variables(args)
        reference = github(args, args.work)
        gitlab(args, args.work)
        slurm(args, args.work, reference)
        if not failures:
            print("all template checks passed" + (f" (attempt {attempt})" if attempt > 1 else ""))
            return 0
        print(f"attempt {attempt}: {len(failures)} template check(s) failed:\n  " +
              "\n  ".join(failures), flush=True)
    return 1


if __name__ == "__main__":
    sys.exit(main())
