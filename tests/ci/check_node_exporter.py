#!/usr/bin/env python3
"""The OpenMetrics export as Prometheus itself ingests it (issue 26).

check_openmetrics.py parses the export with prometheus_client's OpenMetrics parser; Prometheus'
own tools parse the older text format, which rejects what that parser allows (the type "info":
node_exporter 1.5 reported `unknown metric type "info"` and node_textfile_scrape_error 1, and the
Grafana dashboard stayed empty). This test runs the real tools (Debian prometheus and
prometheus-node-exporter; ci/setup installs them) on a real database built by the real CLI:

1. `promtool check metrics` accepts the export with and without --against, and the export of the
   baseline's own run against it (the first night), which has no ratios or verdicts.
2. prometheus-node-exporter's textfile collector, on 127.0.0.1 and a free port, serves the export
   with node_textfile_scrape_error 0 and every series of the export present, values equal.
3. A Prometheus server (127.0.0.1, free port, temp TSDB) scrapes that node_exporter; every stat
   panel of ci/grafana/gpubench.json about verdicts, queried with "All" selected, equals what
   `gpubench compare --format json` counts on the same runs; the "Change vs baseline" panel
   draws primary metrics only, the slowdown as worse (issue 39).
Both daemons are stopped at the end, also when a check fails.

usage: check_node_exporter.py --bin BUILD/bin --work TEMP_DIR --source SOURCE_DIR
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import check_openmetrics as om  # noqa: E402  (shares the database the checks build)
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families as parse_text  # noqa: E402

check = om.check


def tool(name):
    path = shutil.which(name)
    if not path:
        print(f"gpubench: error: {name} not found (Debian package "
              f"{'prometheus' if name in ('promtool', 'prometheus') else 'prometheus-node-exporter'}"
              "; run ci/setup as root to install it)", file=sys.stderr)
        sys.exit(2)
    return path


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def series(families):
    """{(name, sorted labels): value} of every sample."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value for f in families for s in f.samples}


def http_get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode()


def wait_for(what, fn, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = fn()
            if value is not None:
                return value
        except OSError:
            pass
        time.sleep(0.5)
    check(False, f"{what} within {seconds} s")
    return None


def promtool_accepts(text, what):
    r = subprocess.run([tool("promtool"), "check", "metrics"], input=text, capture_output=True,
                       text=True)
    check(r.returncode == 0 and not r.stdout.strip() and not r.stderr.strip(),
          f"promtool check metrics accepts {what} (rc {r.returncode}: {(r.stdout + r.stderr).strip()[:300]})")


def start(argv, log):
    return subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)


def stop(proc):
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def query(port, expr):
    url = f"http://127.0.0.1:{port}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    doc = json.loads(http_get(url))
    check(doc.get("status") == "success", f"Prometheus evaluates {expr}")
    return doc["data"]["result"]


def panels_equal_cli(prom_port, source, counts):
    dash = json.load(open(os.path.join(source, "ci/grafana/gpubench.json")))
    checked = 0
    for panel in dash["panels"]:
        for target in panel["targets"]:
            expr = target["expr"]
            if "gpubench_verdict" not in expr:
                continue
            # "All" selected in every variable.
            expr_all = expr.replace("$host", ".*").replace("$suite", ".*").replace("$benchmark", ".*")
            result = query(prom_port, expr_all)
            if panel["type"] == "stat":
                shown = int(float(result[0]["value"][1])) if result else None
                verdict = expr.split('verdict="')[1].split('"')[0]
                check(shown == counts[verdict],
                      f"Grafana panel '{panel['title']}' shows {shown}, compare counts {counts[verdict]} {verdict}")
            else:
                # One series per entry whose verdict is not "unchanged".
                want = sum(n for v, n in counts.items() if v != "unchanged")
                check(len(result) == want,
                      f"Grafana panel '{panel['title']}' draws {len(result)} series, compare has {want}")
            checked += 1
    check(checked >= 3, f"{checked} verdict panels checked against the CLI")


def change_panel_is_direction_aware(prom_port, source):
    """Issue 39: the "Change vs baseline" panel over primary metrics with the direction applied.
    The second run does twice the work: its one primary series (calls_per_s) is worse, nothing
    is better, and real_time / ms_per_call (secondary reciprocals) are not drawn."""
    dash = json.load(open(os.path.join(source, "ci/grafana/gpubench.json")))
    panel = next((p for p in dash["panels"] if p["title"].startswith("Change vs baseline")), None)
    check(panel is not None, "Grafana has a 'Change vs baseline' panel")
    if panel is None:
        return
    results = {}
    for target in panel["targets"]:
        expr = target["expr"].replace("$host", ".*").replace("$suite", ".*").replace(
            "$benchmark", ".*")
        results[target["legendFormat"]] = query(prom_port, expr)
    worse = [r for k, r in results.items() if "worse" in k]
    better = [r for k, r in results.items() if "better" in k]
    each = [r for k, r in results.items() if "worse" not in k and "better" not in k]
    check(len(worse) == 1 and len(worse[0]) == 1 and float(worse[0][0]["value"][1]) < 0.7,
          f"the panel's worse series: one host, geomean speed-up below 0.7 ({worse})")
    check(len(better) == 1 and not better[0], f"the panel's better series: none ({better})")
    metrics = {r["metric"].get("metric") for rs in each for r in rs}
    check(metrics == {"calls_per_s"},
          f"the panel draws the primary metric only, not its reciprocals ({metrics})")


def one_attempt(args):
    gb, db, env = om.build_database(args.bin, args.work)
    against = om.run(gb, db, "export", "latest", "--format", "openmetrics", "--against", "nightly")
    check(against.returncode == 0, "export latest --against nightly exits 0")
    plain = om.run(gb, db, "export", "latest", "--format", "openmetrics")
    first = om.run(gb, db, "export", "1", "--format", "openmetrics", "--against", "nightly")
    check(first.returncode == 0 and "itself" in first.stderr,
          "export of the baseline's own run --against it exits 0 with a note")
    check("gpubench_verdict" not in first.stdout and "gpubench_change_ratio" not in first.stdout,
          "a run against itself gets no verdicts or change ratios")
    for text, what in ((against.stdout, "the export --against nightly"),
                       (plain.stdout, "the export without --against"),
                       (first.stdout, "the baseline's own run against it")):
        promtool_accepts(text, what)

    cmp = om.run(gb, db, "compare", "baseline:nightly", "latest", "--format", "json")
    counts = json.loads(cmp.stdout)["counts"] if cmp.stdout.strip() else {}
    check(counts.get("regression", 0) >= 1, f"compare finds the regression (counts {counts})")

    textfiles = os.path.join(args.work, "textfile")
    os.makedirs(textfiles)
    with open(os.path.join(textfiles, "gpubench.prom"), "w") as f:
        f.write(against.stdout)
    exported = series(parse_om(against.stdout))
    ne_port, prom_port = free_port(), free_port()
    ne = prom = None
    log = open(os.path.join(args.work, "daemons.log"), "w")
    try:
        ne = start([tool("prometheus-node-exporter"), "--collector.disable-defaults",
                    "--collector.textfile", f"--collector.textfile.directory={textfiles}",
                    f"--web.listen-address=127.0.0.1:{ne_port}"], log)
        scraped = wait_for("node_exporter answers",
                           lambda: http_get(f"http://127.0.0.1:{ne_port}/metrics"))
        if scraped is None:
            return
        got = series(parse_text(scraped))
        check(got.get(("node_textfile_scrape_error", ())) == 0, "node_textfile_scrape_error 0")
        missing = [k for k in exported if k not in got]
        check(not missing, f"all {len(exported)} exported series served by node_exporter "
                           f"({len(missing)} missing: {missing[:3]})")
        differ = [k for k in exported if k in got and got[k] != exported[k]]
        check(not differ, f"node_exporter serves the exported values ({differ[:3]})")

        config = os.path.join(args.work, "prometheus.yml")
        with open(config, "w") as f:
            f.write("global: {scrape_interval: 1s}\nscrape_configs:\n  - job_name: node\n"
                    f"    static_configs: [{{targets: ['127.0.0.1:{ne_port}']}}]\n")
        prom = start([tool("prometheus"), f"--config.file={config}",
                      f"--storage.tsdb.path={os.path.join(args.work, 'tsdb')}",
                      f"--web.listen-address=127.0.0.1:{prom_port}"], log)
        ready = wait_for("Prometheus has scraped the export", lambda: (
            query(prom_port, "gpubench_run_info") or None))
        if ready is None:
            return
        panels_equal_cli(prom_port, args.source, counts)
        change_panel_is_direction_aware(prom_port, args.source)
    finally:
        stop(prom)
        stop(ne)
        log.close()
    check(all(d is None or d.poll() is not None for d in (ne, prom)),
          "node_exporter and Prometheus stopped")


def main():
    # The panel-equals-CLI check holds on any attempt, the regression check may need another
    # (om.run_attempts).
    return om.run_attempts(one_attempt, "node_exporter / Prometheus")


if __name__ == "__main__":
    sys.exit(main())
