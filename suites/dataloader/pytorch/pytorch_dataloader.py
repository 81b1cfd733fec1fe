#!/usr/bin/env python3
"""PyTorch's DataLoader on a gpubench JPEG dataset (issue 41): the side-by-side of the dataloader
suite's CPU image pipeline, written as Google Benchmark JSON for `gpubench import`.

  pytorch_dataloader.py --dataset DIR [--workers 1,2,4] [--batch-size 4] [--epochs 2]
                        [--repetitions 1] [--seed 42] [--out FILE.json]

DIR is one WebDataset dataset directory of gpubench's (shard-NNNNN.tar, each sample the members
<key>.cls and <key>.jpg, key = the sample index in 9 digits). The pipeline is the one a PyTorch
user writes for ImageNet-style training:
  - a torch IterableDataset over the shards, indexed once before timing (tar headers walked with
    `tarfile`, as gpubench's reader walks them when it opens a shard); each sample is one pread
    of its two members;
  - decode with PIL: Image.open(...).convert("RGB");
  - torchvision RandomResizedCrop(224) (bilinear, on the PIL image), RandomHorizontalFlip(),
    ToTensor(), Normalize(ImageNet mean and std), then .to(torch.bfloat16);
  - DataLoader(batch_size=B, num_workers=W, pin_memory=False, persistent_workers=False,
    prefetch_factor left at its default of 2): each epoch starts W fresh worker processes, and
    their start-up is inside the epoch's time, as it is for a user who keeps the defaults.
Order: gpubench's `shuffled` order exactly (suites/dataloader/sample_order.cpp: splitmix64,
Fisher-Yates with rejection sampling, seed --seed, epoch e salted the same way). Batch k holds
positions [k*B, (k+1)*B) of the epoch's permutation, and worker w builds the batches k with
k % W == w; the DataLoader hands batches over round-robin from its workers, so the consumer sees
the permutation in order, as gpubench's consumer does. The untimed epoch checks that it did.
Timing: one untimed epoch (epoch 0's order), then --epochs timed epochs (epochs 1, 2, ... of the
order), as gpubench's image case runs its checking epoch and then its timed ones through one
pipeline.
Per worker count, each repetition is one Google Benchmark entry:
  images_per_s    images delivered to the consumer / wall seconds of the timed epochs
  input_MB_per_s  bytes of the JPEG members (the .jpg files, 1e6) consumed per second
  cpu_cores_used  CPU seconds of this process and its (joined) workers / wall seconds
Name: pytorch/dataloader/format:wds/size:WxH/decode:pil/workers:W/order:shuffled/cache:warm.
Exit: 0 written, 1 the pipeline failed (a read, or the order check), 2 bad input (the dataset, a
flag), 3 PyTorch, torchvision or PIL missing.
"""
import argparse
import datetime
import io
import json
import os
import re
import socket
import sys
import tarfile
import time

SUITE = "pytorch"
MASK64 = (1 << 64) - 1
CROP = 224
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
KEY = re.compile(r"^(\d{9})\.(jpg|cls)$")

METRICS = [
    {"name": "images_per_s", "unit": "images/s", "direction": "higher", "role": "primary",
     "description": "images delivered to the consumer per wall second (PyTorch DataLoader, PIL "
                    "decode, torchvision augmentation to bf16)"},
    {"name": "input_MB_per_s", "unit": "MB/s", "direction": "higher", "role": "secondary",
     "description": "JPEG file bytes consumed per second, 1e6 bytes"},
    {"name": "cpu_cores_used", "unit": "cores", "direction": "unknown", "role": "parameter",
     "description": "CPU seconds of the process and its worker processes / wall seconds"},
]


class BadInput(Exception):
    """What is wrong, why, and what to do: printed as `gpubench: error: ...`, exit 2."""


# ---- gpubench's shuffled order (suites/dataloader/sample_order.cpp) ------------------------------
def _splitmix64(state):
    """(new state, output) of splitmix64, as sample_order.cpp's."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def shuffled_order(samples, seed, epoch):
    """The permutation gpubench's `order:shuffled` visits in epoch `epoch`: Fisher-Yates over
    0..samples-1 driven by splitmix64 from epoch_state(seed, epoch, 0x5bd1e995), each draw
    uniform by rejection (no modulo bias)."""
    s = (seed ^ ((0xD1B54A32D192ED03 * (epoch + 1)) & MASK64) ^ 0x5BD1E995) & MASK64
    _, state = _splitmix64(s)
    order = list(range(samples))
    for i in range(samples, 1, -1):
        limit = MASK64 - (MASK64 % i)
        while True:
            state, x = _splitmix64(state)
            if x < limit:
                break
        j = x % i
        order[i - 1], order[j] = order[j], order[i - 1]
    return order


# ---- the dataset's index -------------------------------------------------------------------------
class ShardIndex:
    """Where every sample's members are: shard file, offset and size of <key>.cls and
    <key>.jpg, by sample index (the key). Plain lists, so the workers get them by fork."""

    def __init__(self, directory):
        self.directory = os.path.abspath(directory)
        if not os.path.isdir(self.directory):
            raise BadInput(f"dataset directory '{directory}' does not exist (or is not a "
                           "directory); give a gpubench wds dataset directory (shard-NNNNN.tar "
                           "files) with --dataset")
        self.files = sorted(f for f in os.listdir(self.directory)
                            if f.startswith("shard-") and f.endswith(".tar"))
        if not self.files:
            raise BadInput(f"'{directory}' holds no shard-NNNNN.tar files (not a WebDataset "
                           "dataset of gpubench's; give the directory of a format:wds dataset)")
        members = {}  # index -> {"jpg": (file, offset, size), "cls": ...}
        for fi, name in enumerate(self.files):
            path = os.path.join(self.directory, name)
            try:
                with tarfile.open(path, "r:") as tar:
                    for m in tar:
                        match = KEY.match(os.path.basename(m.name))
                        if not m.isfile() or match is None:
                            continue
                        slot = members.setdefault(int(match.group(1)), {})
                        if match.group(2) in slot:
                            raise BadInput(f"'{path}' holds {m.name} twice (a corrupt dataset; "
                                           "delete the directory so gpubench regenerates it)")
                        slot[match.group(2)] = (fi, m.offset_data, m.size)
            except tarfile.TarError as e:
                raise BadInput(f"cannot read the tar shard '{path}' ({e}; delete the dataset "
                               "directory so gpubench regenerates it)") from None
        n = len(members)
        missing = [i for i in range(n) if i not in members or len(members[i]) != 2]
        if n == 0 or missing:
            what = "no <key>.jpg members" if n == 0 else (
                f"sample {missing[0]} lacks its .jpg or .cls member, or the keys are not "
                f"0..{n - 1}")
            raise BadInput(f"'{directory}' is not a complete JPEG WebDataset dataset ({what}; "
                           "give a gpubench dataset of format wds with images)")
        self.samples = n
        self.jpg = [members[i]["jpg"] for i in range(n)]
        self.cls = [members[i]["cls"] for i in range(n)]
        self.jpeg_bytes = sum(size for _, _, size in self.jpg)

    def read(self, fds, index):
        """(JPEG bytes, label) of sample `index`: one pread over both members when they are
        neighbours in the shard (gpubench writes .cls, then .jpg), else one each."""
        jf, joff, jsize = self.jpg[index]
        cf, coff, csize = self.cls[index]
        fd = fds.get(jf)
        if fd is None:
            fd = fds[jf] = os.open(os.path.join(self.directory, self.files[jf]), os.O_RDONLY)
        lo, hi = min(joff, coff), max(joff + jsize, coff + csize)
        if jf == cf and hi - lo <= jsize + csize + 2048:  # headers and padding between them
            span = os.pread(fd, hi - lo, lo)
            jpeg = span[joff - lo:joff - lo + jsize]
            label = span[coff - lo:coff - lo + csize]
        else:
            jpeg = os.pread(fd, jsize, joff)
            cfd = fds.get(cf)
            if cfd is None:
                cfd = fds[cf] = os.open(os.path.join(self.directory, self.files[cf]), os.O_RDONLY)
            label = os.pread(cfd, csize, coff)
        if len(jpeg) != jsize or len(label) != csize:
            raise OSError(f"short read of sample {index} in {self.files[jf]}")
        return jpeg, int(label.decode("ascii").strip())


def image_size(index):
    """(width, height) of the dataset's images: the manifest's when it states them, else the
    first image's (every image of a gpubench dataset has the same size)."""
    manifest = os.path.join(index.directory, "manifest.json")
    try:
        with open(manifest) as f:
            m = json.load(f)
        if int(m.get("image_width", 0)) > 0 and int(m.get("image_height", 0)) > 0:
            return int(m["image_width"]), int(m["image_height"])
    except (OSError, ValueError, TypeError, AttributeError):
        pass
    from PIL import Image
    jpeg, _ = index.read({}, 0)
    return Image.open(io.BytesIO(jpeg)).size


# ---- the pipeline (torch from here) --------------------------------------------------------------
def make_dataset_class(torch):
    class ShuffledShards(torch.utils.data.IterableDataset):
        """Yields (image bf16 CHW, label, sample index) in the batch layout the module docstring
        describes. `order` is set before each epoch's iterator is made; the fork that starts the
        epoch's workers gives each worker that order."""

        def __init__(self, index, transform, batch_size):
            super().__init__()
            self.index = index
            self.transform = transform
            self.batch_size = batch_size
            self.order = list(range(index.samples))

        def __iter__(self):
            from PIL import Image
            info = torch.utils.data.get_worker_info()
            worker, workers = (info.id, info.num_workers) if info else (0, 1)
            n, b = len(self.order), self.batch_size
            fds = {}
            try:
                for k in range(worker, (n + b - 1) // b, workers):
                    for pos in range(k * b, min(n, (k + 1) * b)):
                        i = self.order[pos]
                        jpeg, label = self.index.read(fds, i)
                        img = Image.open(io.BytesIO(jpeg)).convert("RGB")
                        yield self.transform(img).to(torch.bfloat16), label, i
            finally:
                for fd in fds.values():
                    os.close(fd)

    return ShuffledShards


def cpu_seconds():
    """CPU seconds of this process and its waited-for children (the joined workers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def run_epoch(torch, loader, dataset, order, check):
    """(images, wall seconds, CPU seconds) of one epoch in `order`; with `check`, raises when the
    consumer did not see exactly `order`."""
    dataset.order = order
    seen = [] if check else None
    images = 0
    cpu0 = cpu_seconds()
    t0 = time.perf_counter()
    for batch, _labels, idx in loader:
        images += batch.shape[0]
        if check:
            seen.extend(idx.tolist())
    wall = time.perf_counter() - t0
    cpu = cpu_seconds() - cpu0
    if check and seen != order:
        first = next((p for p, (a, b) in enumerate(zip(seen, order)) if a != b), len(seen))
        raise RuntimeError(f"the DataLoader delivered {len(seen)} samples whose order differs "
                           f"from the epoch's permutation at position {first}")
    if images != len(order):
        raise RuntimeError(f"an epoch delivered {images} images, expected {len(order)}")
    return images, wall, cpu


def measure(torch, transforms, index, width, height, args):
    """[(name, [(images, wall_s, cpu_s, epochs) per repetition])] for each worker count."""
    torch.manual_seed(args.seed)  # the augmentation's draws; each worker gets base seed + id
    transform = transforms.Compose([
        transforms.RandomResizedCrop(CROP, interpolation=transforms.InterpolationMode.BILINEAR),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(IMAGENET_MEAN, IMAGENET_STD),
    ])
    dataset = make_dataset_class(torch)(index, transform, args.batch_size)
    # Epoch 0 is the untimed one, 1..epochs the timed ones (gpubench numbers them the same way).
    orders = [shuffled_order(index.samples, args.seed, e) for e in range(args.epochs + 1)]
    out = []
    for w in args.workers:
        loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, num_workers=w,
                                             pin_memory=False, persistent_workers=False)
        run_epoch(torch, loader, dataset, orders[0], check=True)  # untimed; checks the order
        reps = []
        for _ in range(args.repetitions):
            images = wall = cpu = 0.0
            for e in range(1, args.epochs + 1):
                i, wl, c = run_epoch(torch, loader, dataset, orders[e], check=False)
                images, wall, cpu = images + i, wall + wl, cpu + c
            reps.append((images, wall, cpu, args.epochs))
        name = (f"{SUITE}/dataloader/format:wds/size:{width}x{height}/decode:pil/workers:{w}/"
                "order:shuffled/cache:warm")
        out.append((name, reps))
        best = reps[0]
        print(f"{name}: {best[0] / best[1]:.1f} images/s, {best[2] / best[1]:.2f} cores",
              file=sys.stderr, flush=True)
    return out


# ---- the JSON ------------------------------------------------------------------------------------
def document(results, index, args, context):
    """Google Benchmark JSON: one iteration entry per repetition, iterations = timed epochs,
    real_time and cpu_time the mean epoch's wall and CPU (process and workers) in ms."""
    benchmarks = []
    for name, reps in results:
        for r, (images, wall, cpu, epochs) in enumerate(reps):
            benchmarks.append({
                "name": name, "run_name": name, "run_type": "iteration",
                "repetitions": len(reps), "repetition_index": r, "threads": 1,
                "iterations": epochs, "real_time": wall / epochs * 1e3,
                "cpu_time": cpu / epochs * 1e3, "time_unit": "ms",
                "images_per_s": images / wall,
                "input_MB_per_s": index.jpeg_bytes * epochs / wall / 1e6,
                "cpu_cores_used": cpu / wall,
                "label": f"batch={args.batch_size} images={index.samples} seed={args.seed}"})
    return {"context": context, "benchmarks": benchmarks}


def context_of(versions, index, args, argv):
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "host_name": socket.gethostname(),
        "executable": os.path.abspath(__file__),
        "num_cpus": os.cpu_count() or 0,
        "load_avg": list(os.getloadavg()),
        "library_build_type": "release",
        "gpubench.suite": SUITE,
        "gpubench.metrics": json.dumps(METRICS),
        "peer.tool": "pytorch",
        "peer.version": versions["torch"],
        "peer.command": " ".join(["pytorch_dataloader.py"] + list(argv)),
        "pytorch.versions": json.dumps(versions),
        "pytorch.dataset": os.path.basename(index.directory),
        "pytorch.usable_cpus": len(os.sched_getaffinity(0)),
        "pytorch.order": f"gpubench order:shuffled permutation, seed {args.seed}, timed epochs "
                         f"1..{args.epochs} after an untimed epoch 0",
    }


# ---- the command ---------------------------------------------------------------------------------
def worker_list(text):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of integers")
    if not values or any(v < 1 or v > 1024 for v in values):
        raise argparse.ArgumentTypeError(f"'{text}' needs worker counts from 1 to 1024")
    return values


def parse_args(argv):
    cores = len(os.sched_getaffinity(0))
    p = argparse.ArgumentParser(prog="pytorch_dataloader.py", description=__doc__.split("\n")[0])
    p.add_argument("--dataset", required=True, help="a gpubench wds JPEG dataset directory")
    p.add_argument("--workers", type=worker_list, default=list(range(1, cores + 1)),
                   help=f"worker counts (default 1..{cores}, the usable CPUs)")
    p.add_argument("--batch-size", type=int, default=4,
                   help="images per batch (default 4: gpubench's image cases)")
    p.add_argument("--epochs", type=int, default=2,
                   help="timed epochs per repetition (default 2: gpubench's standard profile)")
    p.add_argument("--repetitions", type=int, default=1)
    p.add_argument("--seed", type=int, default=42, help="the order's seed (gpubench's: 42)")
    p.add_argument("--out", help="Google Benchmark JSON file to write (default: stdout)")
    args = p.parse_args(argv)
    if args.batch_size < 1 or args.epochs < 1 or args.repetitions < 1 or args.seed < 0:
        p.error("--batch-size, --epochs and --repetitions must be 1 or more, --seed 0 or more")
    return args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    try:
        import PIL
        import torch
        import torchvision
        from torchvision import transforms
    except ImportError as e:
        print(f"gpubench: error: PyTorch, torchvision or PIL is not importable ({e}; install "
              "python3-torch python3-torchvision python3-pil, as ci/setup does, and run this "
              "with the system python3)", file=sys.stderr)
        return 3
    try:
        index = ShardIndex(args.dataset)
        width, height = image_size(index)
    except BadInput as e:
        print(f"gpubench: error: {e}", file=sys.stderr)
        return 2
    versions = {"torch": torch.__version__, "torchvision": torchvision.__version__,
                "pillow": PIL.__version__}
    try:
        results = measure(torch, transforms, index, width, height, args)
    except (RuntimeError, OSError) as e:
        print(f"gpubench: error: the PyTorch pipeline failed ({e}; no figures written)",
              file=sys.stderr)
        return 1
    doc = document(results, index, args, context_of(versions, index, args, argv))
    text = json.dumps(doc, indent=1)
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            f.write(text + "\n")
        os.replace(tmp, args.out)  # never a half-written file under the final name
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
