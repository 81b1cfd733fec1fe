#!/usr/bin/env python3
"""gpubench's CPU image pipeline and PyTorch's DataLoader side by side on the same shards
(issue 41): for each worker count, one run of gpubench's case, then one of
pytorch_dataloader.py on the dataset that case read, interleaved, and a table.

  compare_pytorch.py --data-dir DIR [--gpubench-dataloader build/bin/gpubench-dataloader]
                     [--workers 1,2,...] [--dataset-mib 1024] [--batch-size 4] [--epochs N]
                     [--rounds 1] [--dataset DIR] [--keep DIR] [--pytorch-only]

gpubench's side: the case
  dataloader/image/format:wds/size:500x375/decode:cpu/path:pread/workers:W/order:shuffled/cache:warm
run at one worker count W at a time (--benchmark_filter selects workers:W) with
GPUBENCH_DATA_DIR=DIR, GPUBENCH_DATALOADER_WORKERS=the whole --workers list (so every count reads
the dataset sized for the largest) and GPUBENCH_DATALOADER_DATASET_MIB=--dataset-mib, in the
profile GPUBENCH_PROFILE names (default quick). The image datasets hold a fifth of those bytes decoded: 1024 MiB gives 381 images of
500x375 (about 40 MB of JPEG), so PyTorch's per-epoch worker start-up (persistent_workers=False)
is a small part of an epoch, not most of it as on the quick profile's 11 images. gpubench
generates the dataset under DIR (or finds it there); PyTorch's side then reads that directory:
the wds directory of 500x375 JPEG images under DIR (when several, the one of the image count
--dataset-mib gives), or --dataset. The suite's start-up check wants free space for every
dataset its profile plans at that size (about 8 GB at 1024 MiB), though it generates only this
one.
Like for like: gpubench's `shuffled` order (the same permutation per epoch) on both sides, warm
epochs timed after an untimed one, as many as gpubench timed (its entry's `iterations`), and
gpubench's image batch of 4 (ImageCase::batch in dataloader_cases_detail.hpp).
Prints: workers | gpubench images/s | PyTorch images/s | gpubench / PyTorch, with each side's CPU
cores used and the ratio of images per CPU-second; each figure the median over --rounds runs
(interleaved) and, within a run, over its repetitions.
Exit: 0 gpubench at least as fast as PyTorch at every worker count (or --pytorch-only), 1 slower
at some worker count, 2 bad input or a side that failed (its output is shown).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ left beside the scripts
sys.path.insert(0, HERE)
from pytorch_dataloader import worker_list  # noqa: E402 - beside this script; imports no torch
SIZE = (500, 375)


def gpubench_case(workers):
    return (f"dataloader/image/format:wds/size:{SIZE[0]}x{SIZE[1]}/decode:cpu/path:pread/"
            f"workers:{workers}/order:shuffled/cache:warm")


def pytorch_case(workers):
    return (f"pytorch/dataloader/format:wds/size:{SIZE[0]}x{SIZE[1]}/decode:pil/"
            f"workers:{workers}/order:shuffled/cache:warm")


class Failed(Exception):
    """A side that did not produce its figure: printed as `gpubench: error: ...`, exit 2."""


def figures(path, name):
    """(images_per_s, cpu_cores_used or None, timed epochs) of benchmark `name` in Google
    Benchmark JSON `path`: medians over its iteration entries. Raises Failed when it is absent,
    skipped or failed, naming why."""
    with open(path) as f:
        doc = json.load(f)
    def same_case(b):
        # gpubench's names carry Google Benchmark's suffix (/iterations:N/manual_time).
        run_name = b.get("run_name", b.get("name", ""))
        return run_name == name or run_name.startswith(name + "/")

    rows = [b for b in doc.get("benchmarks", [])
            if same_case(b) and b.get("run_type", "iteration") == "iteration"]
    if not rows:
        raise Failed(f"'{path}' has no benchmark {name}")
    for b in rows:
        if b.get("error_occurred") or b.get("skipped"):
            raise Failed(f"{name}: {b.get('error_message') or b.get('skip_message') or 'failed'}")
    ips = [b["images_per_s"] for b in rows if "images_per_s" in b]
    if not ips:
        raise Failed(f"{name} in '{path}' reports no images_per_s")
    cores = [b["cpu_cores_used"] for b in rows if "cpu_cores_used" in b]
    return (statistics.median(ips), statistics.median(cores) if cores else None,
            int(rows[0].get("iterations", 1)))


def run(cmd, env, what):
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise Failed(f"{what} exited {p.returncode}: {' '.join(cmd)}\n{p.stdout[-4000:]}")
    return p.stdout


def run_gpubench(args, workers, out):
    # The whole sweep in GPUBENCH_DATALOADER_WORKERS, one count selected by the filter: gpubench
    # sizes the sweep's dataset by its largest count, so every count reads the same dataset.
    env = dict(os.environ, GPUBENCH_DATA_DIR=os.path.abspath(args.data_dir),
               GPUBENCH_DATALOADER_WORKERS=",".join(map(str, args.workers)),
               GPUBENCH_DATALOADER_DATASET_MIB=str(args.dataset_mib))
    env.setdefault("GPUBENCH_PROFILE", "quick")
    run([args.gpubench_dataloader, f"--benchmark_filter=^{gpubench_case(workers)}(/|$)",
         f"--benchmark_out={out}", "--benchmark_out_format=json"], env, "gpubench-dataloader")
    return figures(out, gpubench_case(workers))


def run_pytorch(args, dataset, workers, epochs, out):
    run([sys.executable, os.path.join(HERE, "pytorch_dataloader.py"), "--dataset", dataset,
         "--workers", str(workers), "--batch-size", str(args.batch_size), "--epochs",
         str(epochs), "--out", out], dict(os.environ), "pytorch_dataloader.py")
    return figures(out, pytorch_case(workers))


def first_image_size(directory):
    """(width, height) of the first .jpg member of the directory's first shard, or None."""
    from PIL import Image  # noqa: PLC0415
    shards = sorted(f for f in os.listdir(directory) if f.endswith(".tar"))
    if not shards:
        return None
    with tarfile.open(os.path.join(directory, shards[0]), "r:") as tar:
        for m in tar:
            if m.isfile() and m.name.endswith(".jpg"):
                return Image.open(tar.extractfile(m)).size
    return None


def expected_images(dataset_mib, max_workers, profile):
    """Images of gpubench's 500x375 sweep dataset, as image_spec_for() in dataloader_sweep.cpp
    sizes it: the most of at least 8, a fifth of GPUBENCH_DATALOADER_DATASET_MIB decoded as RGB,
    and image_batches_per_worker (4 in quick, else 8) batches of 4 per worker at the sweep's
    largest count. Only used to choose among several candidates."""
    per_worker = 4 if profile == "quick" else 8
    return max(8, (dataset_mib << 20) // 5 // (3 * SIZE[0] * SIZE[1]), per_worker * 4 * max_workers)


def find_dataset(data_dir, samples):
    """The wds dataset directory under `data_dir` of SIZE JPEG images (the size its manifest
    states, else its first image's): the only one, else the one of `samples` images."""
    found = {}  # directory -> images
    for name in sorted(os.listdir(data_dir)):
        manifest = os.path.join(data_dir, name, "manifest.json")
        try:
            with open(manifest) as f:
                m = json.load(f)
            if m.get("format") != "wds":
                continue
            size = (int(m.get("image_width", 0)), int(m.get("image_height", 0)))
            if size == (0, 0):
                size = first_image_size(os.path.join(data_dir, name))
            if size == SIZE:
                found[os.path.join(data_dir, name)] = int(m.get("samples", -1))
        except (OSError, ValueError, TypeError, AttributeError, tarfile.TarError):
            continue
    if len(found) == 1:
        return next(iter(found))
    matching = [d for d, n in found.items() if n == samples]
    if len(matching) == 1:
        return matching[0]
    if not found:
        raise Failed(f"no wds dataset of {SIZE[0]}x{SIZE[1]} JPEG images under '{data_dir}' "
                     "(gpubench's case generates it there; or name one with --dataset)")
    raise Failed(f"{len(found)} wds datasets of {SIZE[0]}x{SIZE[1]} images under '{data_dir}' "
                 f"({', '.join(os.path.basename(d) for d in found)}) and "
                 f"{'none' if not matching else 'several'} of the {samples} images expected "
                 "for --dataset-mib (name the one gpubench read with --dataset, or use a data "
                 "directory of its own)")


def ratio_text(g, p):
    return f"{g / p:.2f}" if g is not None and p > 0 else "-"


def median_figures(figs):
    """(images/s, cores or None) medians over rounds of [(images/s, cores, epochs)]."""
    cores = [f[1] for f in figs if f[1] is not None]
    return (statistics.median(f[0] for f in figs), statistics.median(cores) if cores else None)


def per_core(fig):
    """Images per CPU-second: what a side gets out of the cores it was given (a figure the
    machine's other load changes less than images/s)."""
    return fig[0] / fig[1] if fig and fig[1] else None


def table(rows):
    """rows: (workers, (gpubench images/s, cores) or None, (PyTorch images/s, cores))."""
    def cell(fig):
        if fig is None:
            return "-", "-"
        return f"{fig[0]:.1f}", ("-" if fig[1] is None else f"{fig[1]:.2f}")
    lines = [f"{'workers':>7}  {'gpubench img/s':>14}  {'cores':>5}  {'PyTorch img/s':>13}  "
             f"{'cores':>5}  {'gpubench/PyTorch':>16}  {'per core-s':>10}"]
    for w, g, p in rows:
        gi, gc = cell(g)
        pi, pc = cell(p)
        gpc, ppc = per_core(g), per_core(p)
        lines.append(f"{w:>7}  {gi:>14}  {gc:>5}  {pi:>13}  {pc:>5}  "
                     f"{ratio_text(g[0] if g else None, p[0]):>16}  "
                     f"{ratio_text(gpc, ppc or 0):>10}")
    return "\n".join(lines)


def parse_args(argv):
    cores = len(os.sched_getaffinity(0))
    p = argparse.ArgumentParser(prog="compare_pytorch.py", description=__doc__.split("\n")[0])
    p.add_argument("--data-dir", required=True, help="GPUBENCH_DATA_DIR for gpubench's side")
    p.add_argument("--gpubench-dataloader", default="build/bin/gpubench-dataloader")
    p.add_argument("--workers", type=worker_list, default=list(range(1, cores + 1)),
                   help=f"worker counts (default 1..{cores}, the usable CPUs)")
    p.add_argument("--dataset-mib", type=int, default=1024,
                   help="GPUBENCH_DATALOADER_DATASET_MIB for gpubench's side (default 1024)")
    p.add_argument("--batch-size", type=int, default=4,
                   help="PyTorch's batch size (default 4, gpubench's image batch)")
    p.add_argument("--epochs", type=int,
                   help="PyTorch's timed epochs (default: as many as gpubench timed; 2 with "
                        "--pytorch-only)")
    p.add_argument("--dataset", help="the dataset directory PyTorch reads (default: found)")
    p.add_argument("--rounds", type=int, default=1,
                   help="runs of each side per worker count, interleaved; medians (default 1)")
    p.add_argument("--keep", help="directory to keep every run's JSON in")
    p.add_argument("--pytorch-only", action="store_true",
                   help="no gpubench side (needs --dataset): PyTorch's figures alone")
    args = p.parse_args(argv)
    if args.batch_size < 1 or args.rounds < 1 or (args.epochs is not None and args.epochs < 1) \
            or not 1 <= args.dataset_mib <= 1 << 30:
        p.error("--batch-size, --rounds and --epochs must be 1 or more, --dataset-mib 1..2^30")
    if args.pytorch_only and not args.dataset:
        p.error("--pytorch-only needs --dataset (no gpubench run generates one)")
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if not os.path.isdir(args.data_dir):
        print(f"gpubench: error: data directory '{args.data_dir}' does not exist (create it; "
              "gpubench generates its datasets there)", file=sys.stderr)
        return 2
    if not args.pytorch_only and not os.access(args.gpubench_dataloader, os.X_OK):
        print(f"gpubench: error: '{args.gpubench_dataloader}' is not an executable (build "
              "gpubench-dataloader, or name it with --gpubench-dataloader)", file=sys.stderr)
        return 2
    keep = args.keep or tempfile.mkdtemp(prefix="compare-pytorch-")
    os.makedirs(keep, exist_ok=True)
    runs = {w: ([], []) for w in args.workers}  # workers -> (gpubench runs, PyTorch runs)
    try:
        # Interleaved: both sides at W before either moves on, every round in turn, so a change
        # of the machine's load during the comparison falls on both.
        for r in range(args.rounds):
            for w in args.workers:
                g = None
                if not args.pytorch_only:
                    g = run_gpubench(args, w, os.path.join(keep, f"gpubench-w{w}-r{r}.json"))
                    runs[w][0].append(g)
                dataset = args.dataset or find_dataset(args.data_dir, expected_images(
                    args.dataset_mib, max(args.workers), os.environ.get("GPUBENCH_PROFILE", "quick")))
                epochs = args.epochs or (g[2] if g else 2)
                p = run_pytorch(args, dataset, w, epochs,
                                os.path.join(keep, f"pytorch-w{w}-r{r}.json"))
                runs[w][1].append(p)
                ours = "-" if g is None else f"{g[0]:.1f}"
                print(f"round {r + 1}, workers {w}: gpubench {ours} images/s, PyTorch "
                      f"{p[0]:.1f} images/s", file=sys.stderr, flush=True)
    except Failed as e:
        print(f"gpubench: error: {e}", file=sys.stderr)
        return 2
    rows = [(w, median_figures(g) if g else None, median_figures(p))
            for w, (g, p) in runs.items()]
    print(f"dataset: {dataset}  (each run's JSON: {keep})")
    print(table(rows))
    if args.pytorch_only:
        return 0
    slower = [w for w, g, p in rows if g[0] < p[0]]
    if slower:
        print(f"gpubench slower than PyTorch at workers {', '.join(map(str, slower))}")
        return 1
    print("gpubench at least as fast as PyTorch at every worker count")
    return 0


if __name__ == "__main__":
    sys.exit(main())
