#!/usr/bin/env python3
"""Issue 41: suites/dataloader/pytorch/ end to end, through real child processes.

  test_pytorch_dataloader.py --source REPO --gpubench build/bin/gpubench --work DIR

- gpubench's `shuffled` order reimplemented in Python equals sample_order.cpp's (known answers
  printed by epoch_order() of the C++ code);
- pytorch_dataloader.py in its tiny mode (a STAND-IN dataset from standin_shards.py: 11 images of
  96x72 in 3 shards, 1 worker, 1 timed epoch, batch 4): its Google Benchmark JSON (name, counters
  consistent with each other and with the dataset's JPEG bytes), and `gpubench import` of it into
  a fresh database, read back with `gpubench export`;
- 2 workers: the script's own check that the consumer saw the epoch's permutation in order;
- bad input: a missing directory, a shard whose sample lacks its .jpg (exit 2, `gpubench: error:`);
- compare_pytorch.py against a FIXTURE gpubench-dataloader (a script that writes made-up
  images_per_s): the interleaved runs, the environment each gets, the table and the verdict's
  exit code.
Needs Debian's python3-torch, python3-torchvision and python3-pil (ci/setup installs them).
"""
import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile

FAILURES = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)


def run(cmd, env=None):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


# Printed by gpubench::dataloader::epoch_order(spec{samples=n}, Order::shuffled, seed, epoch).
KNOWN_ORDERS = {
    (10, 42, 0): [7, 6, 8, 0, 1, 9, 5, 3, 4, 2],
    (10, 42, 1): [8, 3, 4, 6, 7, 0, 5, 2, 1, 9],
    (37, 7, 3): [35, 10, 31, 8, 12, 5, 34, 23, 26, 7, 1, 28, 19, 3, 30, 25, 32, 33, 22, 21, 36, 0,
                 27, 16, 29, 13, 11, 15, 24, 2, 9, 20, 6, 17, 4, 14, 18],
}

# A FIXTURE gpubench-dataloader: writes a Google Benchmark JSON whose images_per_s is made up
# (FIXTURE_IMAGES_PER_S["W"] for workers W), and logs the environment it was started with.
FAKE_SUITE = r'''#!/usr/bin/env python3
import json, os, re, sys
args = dict(a.split("=", 1) for a in sys.argv[1:] if "=" in a)
name = re.sub(r"^\^|\(/\|\$\)$", "", args["--benchmark_filter"]) + "/iterations:1/manual_time"
w = re.search(r"/workers:([0-9]+)/", name).group(1)
with open(os.environ["FIXTURE_LOG"], "a") as f:
    f.write(json.dumps({"workers": w, "sweep": os.environ["GPUBENCH_DATALOADER_WORKERS"],
                        "data_dir": os.environ["GPUBENCH_DATA_DIR"],
                        "profile": os.environ.get("GPUBENCH_PROFILE"), "name": name,
                        "dataset_mib": os.environ.get("GPUBENCH_DATALOADER_DATASET_MIB")}) + "\n")
ips = json.loads(os.environ["FIXTURE_IMAGES_PER_S"])[w]
row = {"name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
       "repetition_index": 0, "iterations": 1, "real_time": 1.0, "cpu_time": 1.0,
       "time_unit": "ms", "images_per_s": ips, "cpu_cores_used": 0.5}
json.dump({"context": {"fixture_note": "FIXTURE: made-up figures"}, "benchmarks": [row]},
          open(args["--benchmark_out"], "w"))
'''


def test_order(source):
    sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
    sys.path.insert(0, os.path.join(source, "suites", "dataloader", "pytorch"))
    from pytorch_dataloader import shuffled_order  # noqa: PLC0415
    for (n, seed, epoch), want in KNOWN_ORDERS.items():
        check(shuffled_order(n, seed, epoch) == want,
              f"shuffled_order({n}, {seed}, {epoch}) equals sample_order.cpp's")


def test_tiny(source, gpubench, work):
    scripts = os.path.join(source, "suites", "dataloader", "pytorch")
    ds = os.path.join(work, "standin-96x72")
    rc, _, err = run([sys.executable, os.path.join(scripts, "standin_shards.py"), "--out", ds,
                      "--images", "11", "--per-shard", "4", "--width", "96", "--height", "72"])
    check(rc == 0, f"standin_shards.py wrote the stand-in dataset ({err.strip()})")
    out = os.path.join(work, "tiny.json")
    rc, _, err = run([sys.executable, os.path.join(scripts, "pytorch_dataloader.py"), "--dataset",
                      ds, "--workers", "1", "--epochs", "1", "--batch-size", "4", "--out", out])
    check(rc == 0, f"pytorch_dataloader.py tiny mode exits 0 (stderr: {err.strip()[-500:]})")
    if rc != 0:
        return
    doc = json.load(open(out))
    rows = doc["benchmarks"]
    name = ("pytorch/dataloader/format:wds/size:96x72/decode:pil/workers:1/order:shuffled/"
            "cache:warm")
    check([r["name"] for r in rows] == [name], f"one benchmark, named {name}")
    r = rows[0]
    jpeg_bytes = 0
    for f in sorted(os.listdir(ds)):
        if f.endswith(".tar"):
            with tarfile.open(os.path.join(ds, f)) as t:
                jpeg_bytes += sum(m.size for m in t if m.name.endswith(".jpg"))
    wall_s = r["real_time"] / 1e3 * r["iterations"]
    check(r["iterations"] == 1 and r["time_unit"] == "ms", "iterations = timed epochs, in ms")
    check(abs(r["images_per_s"] * wall_s - 11) < 1e-6, "images_per_s = 11 images / timed wall")
    check(abs(r["input_MB_per_s"] * wall_s * 1e6 - jpeg_bytes) < 1e-3 * jpeg_bytes,
          "input_MB_per_s = the .jpg members' bytes / timed wall")
    check(r["cpu_cores_used"] > 0 and abs(r["cpu_cores_used"] - r["cpu_time"] / r["real_time"])
          < 1e-9, "cpu_cores_used > 0 and = CPU time / wall time")
    metrics = {m["name"] for m in json.loads(doc["context"]["gpubench.metrics"])}
    check(metrics == {"images_per_s", "input_MB_per_s", "cpu_cores_used"},
          "the context declares the three metrics")

    db = os.path.join(work, "import.db")
    rc, so, err = run([gpubench, "--db", db, "import", out])
    check(rc == 0 and "1 benchmarks" in so, f"gpubench import stores it ({so.strip()} {err})")
    rc, so, err = run([gpubench, "--db", db, "export", "1", "--format", "json"])
    stored = {(x["benchmark"], x["metric"]): x["median"] for x in json.loads(so)["results"]} \
        if rc == 0 else {}
    got = stored.get((name, "images_per_s"), -1)
    check(abs(got - r["images_per_s"]) < 1e-6 * r["images_per_s"],
          "the stored images_per_s is the file's")
    check(next((x["suite"] for x in json.loads(so)["results"]), "") == "pytorch" if rc == 0
          else False, "stored under the suite pytorch")

    # Two workers: batches come from two processes; the untimed epoch checks the order.
    rc, _, err = run([sys.executable, os.path.join(scripts, "pytorch_dataloader.py"), "--dataset",
                      ds, "--workers", "2", "--epochs", "1", "--batch-size", "2", "--out",
                      os.path.join(work, "two.json")])
    check(rc == 0, f"2 workers deliver the permutation in order (stderr: {err.strip()[-500:]})")

    # Bad input: exit 2 with the CLI's error line naming the cause.
    rc, _, err = run([sys.executable, os.path.join(scripts, "pytorch_dataloader.py"), "--dataset",
                      os.path.join(work, "nowhere"), "--workers", "1"])
    check(rc == 2 and err.startswith("gpubench: error: dataset directory") and "nowhere" in err,
          f"a missing dataset directory: exit 2 naming it ({rc}: {err.strip()})")
    broken = os.path.join(work, "broken")
    shutil.rmtree(broken, ignore_errors=True)
    os.makedirs(broken)
    shard = os.path.join(broken, "shard-00000.tar")
    with tarfile.open(shard, "w", format=tarfile.USTAR_FORMAT) as t:
        for name_, data in (("000000000.cls", b"3"), ("000000000.jpg", b"x"),
                            ("000000001.cls", b"4")):
            info = tarfile.TarInfo(name_)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
    rc, _, err = run([sys.executable, os.path.join(scripts, "pytorch_dataloader.py"), "--dataset",
                      broken, "--workers", "1"])
    check(rc == 2 and "sample 1 lacks its .jpg" in err,
          f"a sample without its .jpg: exit 2 naming it ({rc}: {err.strip()})")


def test_compare(source, work):
    scripts = os.path.join(source, "suites", "dataloader", "pytorch")
    data = os.path.join(work, "compare-data")
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    # 32 images: what gpubench's sweep dataset holds at --dataset-mib 1 for workers 1,2 in quick
    # (4 batches of 4 per worker at the largest count, 2).
    rc, _, _ = run([sys.executable, os.path.join(scripts, "standin_shards.py"), "--out",
                    os.path.join(data, "wds-standin"), "--images", "32", "--per-shard", "8"])
    check(rc == 0, "stand-in 500x375 dataset for compare_pytorch.py")
    # Its manifest without the image size (found from the first image), beside newer wds
    # datasets of another image size and of another image count, which it must not pick.
    manifest = os.path.join(data, "wds-standin", "manifest.json")
    m = json.load(open(manifest))
    del m["image_width"], m["image_height"]
    json.dump(m, open(manifest, "w"))
    rc, _, _ = run([sys.executable, os.path.join(scripts, "standin_shards.py"), "--out",
                    os.path.join(data, "wds-other-size"), "--images", "2", "--width", "64",
                    "--height", "48"])
    rc, _, _ = run([sys.executable, os.path.join(scripts, "standin_shards.py"), "--out",
                    os.path.join(data, "wds-other-count"), "--images", "3"])
    fake = os.path.join(work, "fixture-gpubench-dataloader")
    with open(fake, "w") as f:
        f.write(FAKE_SUITE)
    os.chmod(fake, 0o755)
    log = os.path.join(work, "fixture.log")
    # (made-up gpubench figures, rounds, exit code, verdict)
    cases = (({"1": 1e9, "2": 1e9}, 1, 0, "at least as fast"),
             ({"1": 1e9, "2": 1e-3}, 2, 1, "slower than PyTorch at workers 2"))
    for figures, rounds, want_rc, verdict in cases:
        if os.path.exists(log):
            os.remove(log)
        env = dict(os.environ, FIXTURE_LOG=log, FIXTURE_IMAGES_PER_S=json.dumps(figures))
        env.pop("GPUBENCH_PROFILE", None)
        rc, so, err = run([sys.executable, os.path.join(scripts, "compare_pytorch.py"),
                           "--data-dir", data, "--gpubench-dataloader", fake, "--workers", "1,2",
                           "--dataset-mib", "1", "--batch-size", "2", "--rounds", str(rounds),
                           "--keep", os.path.join(work, "keep")], env)
        check(rc == want_rc and verdict in so, f"compare verdict '{verdict}', exit {want_rc} "
              f"(got {rc}: {so.strip()[-300:]} {err.strip()[-300:]})")
        calls = [json.loads(line) for line in open(log)] if os.path.exists(log) else []
        check([c["workers"] for c in calls] == ["1", "2"] * rounds and
              all(c["data_dir"] == os.path.abspath(data) and c["profile"] == "quick" and
                  c["sweep"] == "1,2" and
                  c["dataset_mib"] == "1" and
                  c["name"].endswith(f"/workers:{c['workers']}/order:shuffled/cache:warm"
                                     "/iterations:1/manual_time")
                  for c in calls),
              f"gpubench's case run per round ({rounds}) and worker count, interleaved, with "
              "its workers selected by the filter from the whole sweep, data dir, dataset size, "
              "quick")
        epochs = [json.load(open(os.path.join(work, "keep", f"pytorch-w{w}-r0.json")))
                  ["benchmarks"][0]["iterations"] for w in (1, 2)]
        check(epochs == [1, 1], f"PyTorch timed as many epochs as gpubench did (1): {epochs}")
        check(f"dataset: {os.path.join(data, 'wds-standin')} " in so,
              "PyTorch read the 500x375 dataset (size from its first image)")
        lines = [line.split() for line in so.splitlines() if line.split()[:1] in (["1"], ["2"])]
        check(len(lines) == 2 and lines[1][1] == f"{figures['2']:.1f}" and float(lines[1][3]) > 0,
              "the table has a row per worker count with both sides' images/s")
    rc, _, err = run([sys.executable, os.path.join(scripts, "compare_pytorch.py"), "--data-dir",
                      data, "--gpubench-dataloader", os.path.join(work, "missing-binary")])
    check(rc == 2 and "gpubench: error:" in err and "missing-binary" in err,
          "a missing gpubench-dataloader: exit 2 naming it")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--source", required=True)
    p.add_argument("--gpubench", required=True)
    p.add_argument("--work", required=True)
    a = p.parse_args()
    try:
        import importlib  # noqa: PLC0415
        for module in ("PIL", "torch", "torchvision"):
            importlib.import_module(module)
    except ImportError as e:
        print(f"FAIL PyTorch, torchvision or PIL missing ({e}; install python3-torch "
              "python3-torchvision python3-pil, as ci/setup does)")
        return 1
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    test_order(a.source)
    test_tiny(a.source, a.gpubench, a.work)
    test_compare(a.source, a.work)
    print(f"{len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
