#!/usr/bin/env python3
"""How long headless Chromium takes to open gpubench's HTML reports (issue 16: a report of a
200,000-entry comparison must stay under 20 MB and open in under 5 s).

For each file: its size, and the wall time of `chromium --headless=new --dump-dom file://...`
(parse, style, layout and script-free DOM serialisation of the whole page), the median of
--repeat runs. A blank page is timed the same way first: Chromium's own start-up, to read the
figures against. Not a timed test: the figures are for people (the issue's note).

    python3 tests/perf/chromium_load.py REPORT.html [MORE.html ...] [--repeat 3]
      [--chromium /usr/bin/chromium] [--screenshot]

--screenshot times `--screenshot` instead (also paints the first screen). Exit 0 when every page
loaded, 2 when Chromium is missing, 3 when a load failed.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def load_seconds(chromium, path, screenshot, scratch):
    argv = [chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
            "--user-data-dir=" + os.path.join(scratch, "profile")]
    if screenshot:
        argv += ["--screenshot=" + os.path.join(scratch, "shot.png"), "--window-size=1400,1000"]
    else:
        argv += ["--dump-dom"]
    argv.append("file://" + os.path.abspath(path))
    start = time.monotonic()
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    seconds = time.monotonic() - start
    if proc.returncode != 0 or (not screenshot and b"</html>" not in proc.stdout[-200:]):
        raise RuntimeError("chromium exited %d on %s: %s" % (
            proc.returncode, path, proc.stderr.decode(errors="replace")[-400:]))
    return seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--screenshot", action="store_true")
    args = ap.parse_args()
    if not os.path.exists(args.chromium):
        print("gpubench: error: chromium not found (%s; install it: ci/setup does)"
              % args.chromium, file=sys.stderr)
        return 2
    scratch = tempfile.mkdtemp(prefix="gpubench-chromium-")
    try:
        blank = os.path.join(scratch, "blank.html")
        with open(blank, "w") as f:
            f.write("<!DOCTYPE html><html><body></body></html>\n")
        mode = "--screenshot" if args.screenshot else "--dump-dom"
        print("chromium %s, median of %d runs" % (mode, args.repeat))
        for path in [blank] + args.files:
            times = [load_seconds(args.chromium, path, args.screenshot, scratch)
                     for _ in range(args.repeat)]
            label = "(blank page: start-up)" if path == blank else path
            print("%-50s %8.1f MB %7.2f s (runs: %s)" % (
                label, os.path.getsize(path) / 1e6, statistics.median(times),
                ", ".join("%.2f" % t for t in times)), flush=True)
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        print("gpubench: error: %s" % e, file=sys.stderr)
        return 3
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
