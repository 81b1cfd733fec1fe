#!/usr/bin/env python3
"""The PyTorch peer (issue 40): what PyTorch reaches on this GPU, written as Google Benchmark JSON
for `gpubench import`, so `gpubench peers` lines it up with gpubench's own figures.

  pytorch_peer.py --out FILE [--devices 0,1] [--sizes 4096,8192] [--dtypes bf16,fp16,tf32,fp32]
                  [--copy-bytes 268435456] [--repetitions 10]

Measures, on each GPU:
  - torch.matmul(a, b.T) (as nn.Linear: cuBLAS TN) in bf16, fp16, tf32 and fp32 at the gemm suite's
    large square shapes (4096 in its quick profile, 8192 and 16384 in standard): 2 n^3 / time;
    fp32 with TF32 off (torch.set_float32_matmul_precision("highest")), tf32 with it on ("high");
  - device-to-device copy bandwidth: dst.copy_(src), the buffer's bytes counted once (as
    nvbandwidth's device_local_copy and gpubench's transfer/device_local_copy);
  - pinned host-to-device and device-to-host copies with non_blocking=True from a
    pin_memory=True buffer (cudaHostAlloc).
Each repetition is one Google Benchmark entry: a batch of calls between two CUDA events on the
current stream (about 20 ms of GPU time, 1 to 200 calls), after a warm-up batch; its value is the
batch's rate. gpubench takes the median of the repetitions and an interval over them.

Names (the shared scheme of issue 40): pytorch/matmul/dtype:<d>/m:<n>/n:<n>/k:<n>/device:<i>
(TFLOP_per_s), pytorch/copy/d2d/bytes:<N>/device:<i> and
pytorch/copy/<h2d|d2h>/memory:pinned/bytes:<N>/device:<i> (GB_per_s, 1e9 bytes/s). The context
names each GPU by UUID (GPU-..., as NVML does) and PCI bus id, so gpubench pairs it with the
run's GPU whatever CUDA_VISIBLE_DEVICES did. torch is imported only to measure: the JSON writer
runs without it (tests/ci/test_gpu_check_peers.py).
Exit: 0 written, 2 usage error, 3 no PyTorch with CUDA here.
"""
import argparse
import datetime
import json
import os
import socket
import sys

SUITE = "pytorch"
DTYPES = ("bf16", "fp16", "tf32", "fp32")
# The gemm suite's large square sizes: 4096 (quick), 8192 (standard; 16384 is standard's too,
# left out of the default for time: an fp32 16384^3 call takes about 0.2 s).
DEFAULT_SIZES = (4096, 8192)
DEFAULT_COPY_BYTES = 256 * 1024 * 1024  # the transfer suite's largest quick size
BATCH_TARGET_S = 0.02  # GPU time of one timed batch
MAX_CALLS = 200

METRICS = [
    {"name": "TFLOP_per_s", "unit": "TFLOP/s", "direction": "higher", "role": "primary",
     "description": "2 m n k over the time of one torch.matmul call"},
    {"name": "GB_per_s", "unit": "GB/s", "direction": "higher", "role": "primary",
     "description": "bytes of one copy (counted once) over its time, 1e9 bytes/s"},
]


class Measurement:
    """One benchmark: its name, metric, and per repetition (seconds per call, calls, value)."""

    def __init__(self, name, metric, samples):
        self.name = name
        self.metric = metric
        self.samples = samples  # [(seconds_per_call, calls, value), ...]


def matmul_name(dtype, n, device):
    return f"{SUITE}/matmul/dtype:{dtype}/m:{n}/n:{n}/k:{n}/device:{device}"


def copy_name(kind, nbytes, device):
    if kind == "d2d":
        return f"{SUITE}/copy/d2d/bytes:{nbytes}/device:{device}"
    return f"{SUITE}/copy/{kind}/memory:pinned/bytes:{nbytes}/device:{device}"


def iso_now():
    return datetime.datetime.now().astimezone().isoformat(timespec="seconds")


def document(measurements, context):
    """Google Benchmark JSON of `measurements`: one iteration entry per repetition, the time per
    call as real_time in microseconds (cpu_time 0: not measured), the metric as a counter."""
    benchmarks = []
    for m in measurements:
        for i, (seconds, calls, value) in enumerate(m.samples):
            benchmarks.append({
                "name": m.name, "run_name": m.name, "run_type": "iteration",
                "repetitions": len(m.samples), "repetition_index": i, "threads": 1,
                "iterations": int(calls), "real_time": seconds * 1e6, "cpu_time": 0,
                "time_unit": "us", m.metric: value})
    return {"context": context, "benchmarks": benchmarks}


def context_of(devices, torch_version, cuda_version, argv):
    """`devices`: [{"index", "name", "uuid"?, "pci_bus_id"?}] as the suites' gpubench.devices."""
    return {
        "date": iso_now(),
        "host_name": socket.gethostname(),
        "executable": os.path.abspath(__file__),
        "num_cpus": os.cpu_count() or 0,
        "library_build_type": "release",
        "gpubench.suite": SUITE,
        "gpubench.metrics": json.dumps(METRICS),
        "gpubench.devices": json.dumps(devices),
        "gpubench.cuda_runtime_version": cuda_version or "unknown",
        "peer.tool": "pytorch",
        "peer.version": torch_version,
        "peer.command": " ".join(["pytorch_peer.py"] + list(argv)),
    }


# ---- measuring (torch only from here) -------------------------------------------------------------
def describe_devices(torch, indices):
    out = []
    for i in indices:
        p = torch.cuda.get_device_properties(i)
        d = {"index": i, "name": p.name}
        uuid = getattr(p, "uuid", None)
        if uuid:
            text = str(uuid)
            d["uuid"] = text if text.startswith("GPU-") else "GPU-" + text
        if hasattr(p, "pci_bus_id"):
            # NVML's form: 8-digit domain, bus, device, function 0.
            d["pci_bus_id"] = "%08X:%02X:%02X.0" % (getattr(p, "pci_domain_id", 0), p.pci_bus_id,
                                                    getattr(p, "pci_device_id", 0))
        out.append(d)
    return out


def timed_batches(torch, call, repetitions):
    """[(seconds per call, calls)] of `repetitions` batches, each between two CUDA events on the
    current stream, after a warm-up batch that also sizes the batches to BATCH_TARGET_S."""
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def batch(calls):
        start.record()
        for _ in range(calls):
            call()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop) / 1e3 / calls  # elapsed_time is in ms

    call()
    torch.cuda.synchronize()
    per_call = batch(3)
    calls = max(1, min(MAX_CALLS, int(BATCH_TARGET_S / max(per_call, 1e-9))))
    return [(batch(calls), calls) for _ in range(repetitions)]


def measure_matmul(torch, dtype, n, device, repetitions):
    torch_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(dtype, torch.float32)
    torch.set_float32_matmul_precision("high" if dtype == "tf32" else "highest")
    with torch.cuda.device(device):
        a = torch.randn(n, n, dtype=torch_dtype, device=f"cuda:{device}")
        b = torch.randn(n, n, dtype=torch_dtype, device=f"cuda:{device}")
        c = torch.empty(n, n, dtype=torch_dtype, device=f"cuda:{device}")
        bt = b.t()
        batches = timed_batches(torch, lambda: torch.matmul(a, bt, out=c), repetitions)
    flops = 2.0 * n * n * n
    return Measurement(matmul_name(dtype, n, device), "TFLOP_per_s",
                       [(s, calls, flops / s / 1e12) for s, calls in batches])


def measure_copy(torch, kind, nbytes, device, repetitions):
    with torch.cuda.device(device):
        dev = torch.empty(nbytes, dtype=torch.uint8, device=f"cuda:{device}")
        if kind == "d2d":
            other = torch.empty(nbytes, dtype=torch.uint8, device=f"cuda:{device}")
            call = lambda: other.copy_(dev)  # noqa: E731
        else:
            host = torch.empty(nbytes, dtype=torch.uint8, pin_memory=True)
            if kind == "h2d":
                call = lambda: dev.copy_(host, non_blocking=True)  # noqa: E731
            else:
                call = lambda: host.copy_(dev, non_blocking=True)  # noqa: E731
        batches = timed_batches(torch, call, repetitions)
    return Measurement(copy_name(kind, nbytes, device), "GB_per_s",
                       [(s, calls, nbytes / s / 1e9) for s, calls in batches])


def measure_all(torch, devices, sizes, dtypes, copy_bytes, repetitions):
    out = []
    for d in devices:
        for dtype in dtypes:
            for n in sizes:
                out.append(measure_matmul(torch, dtype, n, d, repetitions))
        for kind in ("d2d", "h2d", "d2h"):
            out.append(measure_copy(torch, kind, copy_bytes, d, repetitions))
    return out


# ---- the command --------------------------------------------------------------------------------
def int_list(text):
    try:
        values = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of integers")
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"'{text}' needs one or more non-negative integers")
    return values


def dtype_list(text):
    values = [v.strip() for v in text.split(",") if v.strip()]
    bad = [v for v in values if v not in DTYPES]
    if not values or bad:
        raise argparse.ArgumentTypeError(
            f"unknown dtype(s) {', '.join(bad) or '(none)'}; expected some of {', '.join(DTYPES)}")
    return values


def parse_args(argv):
    p = argparse.ArgumentParser(prog="pytorch_peer.py", description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="Google Benchmark JSON file to write")
    p.add_argument("--devices", type=int_list, default=[0], help="CUDA ordinals (default 0)")
    p.add_argument("--sizes", type=int_list, default=list(DEFAULT_SIZES),
                   help="square matmul sizes (default 4096,8192)")
    p.add_argument("--dtypes", type=dtype_list, default=list(DTYPES))
    p.add_argument("--copy-bytes", type=int, default=DEFAULT_COPY_BYTES)
    p.add_argument("--repetitions", type=int, default=10)
    args = p.parse_args(argv)
    if args.repetitions < 1 or args.copy_bytes < 1:
        p.error("--repetitions and --copy-bytes must be 1 or more")
    return args


def main(argv=None, measure=None, devices=None, versions=None):
    """`measure`, `devices` and `versions` replace the torch-backed functions (tests):
    measure(args) -> [Measurement], devices(args) -> gpubench.devices list, versions() ->
    (torch version, CUDA version)."""
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if measure is None:
        try:
            import torch  # noqa: PLC0415 - only where it measures
        except ImportError as e:
            print(f"pytorch_peer: error: PyTorch is not importable ({e}; install torch with CUDA)",
                  file=sys.stderr)
            return 3
        if not torch.cuda.is_available():
            print("pytorch_peer: error: torch.cuda.is_available() is False (a CPU-only PyTorch, "
                  "or no usable GPU; install a CUDA build of torch)", file=sys.stderr)
            return 3
        count = torch.cuda.device_count()
        if any(d >= count for d in args.devices):
            print(f"pytorch_peer: error: --devices {args.devices} but PyTorch sees {count} GPU(s) "
                  "(give ordinals below that)", file=sys.stderr)
            return 2
        measure = lambda a: measure_all(torch, a.devices, a.sizes, a.dtypes,  # noqa: E731
                                        a.copy_bytes, a.repetitions)
        devices = lambda a: describe_devices(torch, a.devices)  # noqa: E731
        versions = lambda: (torch.__version__, torch.version.cuda)  # noqa: E731
    doc = document(measure(args), context_of(devices(args), *versions(), argv))
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(doc, f, indent=1)
    os.replace(tmp, args.out)  # atomic: an interrupted run leaves no half file to import
    print(f"pytorch_peer: {len(doc['benchmarks'])} entries written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
