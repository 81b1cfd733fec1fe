#!/usr/bin/env python3
"""A STAND-IN JPEG WebDataset dataset, written with PIL in the layout of gpubench's wds image
datasets, for tests and for trying pytorch_dataloader.py where no gpubench-generated dataset is
at hand. Not gpubench's generator: its pixels are PIL noise over gradients (about 100 to 115 KB
at 500x375, quality 90, like the suite's images in size only), and gpubench's image cases never
read it. Its manifest.json says "standin": true.

  standin_shards.py --out DIR [--images 64] [--per-shard 32] [--width 500] [--height 375]
                    [--quality 90]

Layout (suites/dataloader/dataset.hpp): shard-NNNNN.tar, POSIX ustar, per sample the members
<key>.cls (the label, decimal ASCII) then <key>.jpg, key = the sample index in 9 digits, mode
0644, mtime 0. Labels are index % 1000.
Exit: 0 written, 2 bad input.
"""
import argparse
import io
import json
import os
import sys
import tarfile


def standin_image(index, width, height):
    """Deterministic noise blended into a rotated gradient, per channel: JPEG sizes near
    ImageNet's at 500x375 (noise is what costs bits; the gradient keeps it image-like)."""
    from PIL import Image, ImageFilter
    noise = Image.effect_noise((width, height), 60 + index % 20)
    grad = Image.linear_gradient("L").resize((width, height)).rotate(index * 37 % 360)
    r = Image.blend(grad, noise, 0.6)
    g = Image.blend(grad, noise.filter(ImageFilter.GaussianBlur(1)), 0.6)
    b = Image.blend(grad.transpose(Image.FLIP_TOP_BOTTOM), noise.transpose(Image.FLIP_LEFT_RIGHT),
                    0.6)
    return Image.merge("RGB", (r, g, b))


def add_member(tar, name, data):
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), 0o644, 0
    tar.addfile(info, io.BytesIO(data))


def write(out, images, per_shard, width, height, quality):
    os.makedirs(out, exist_ok=True)
    files = []
    for shard in range((images + per_shard - 1) // per_shard):
        name = f"shard-{shard:05d}.tar"
        tmp = os.path.join(out, name + ".tmp")
        with tarfile.open(tmp, "w", format=tarfile.USTAR_FORMAT) as tar:
            for i in range(shard * per_shard, min(images, (shard + 1) * per_shard)):
                buf = io.BytesIO()
                standin_image(i, width, height).save(buf, "JPEG", quality=quality)
                add_member(tar, f"{i:09d}.cls", str(i % 1000).encode())
                add_member(tar, f"{i:09d}.jpg", buf.getvalue())
        os.replace(tmp, os.path.join(out, name))
        files.append({"name": name, "bytes": os.path.getsize(os.path.join(out, name))})
    manifest = {"standin": True, "writer": "suites/dataloader/pytorch/standin_shards.py",
                "format": "wds", "samples": images, "samples_per_shard": per_shard,
                "image_width": width, "image_height": height, "jpeg_quality": quality,
                "files": files}
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)


def main(argv=None):
    p = argparse.ArgumentParser(prog="standin_shards.py", description=__doc__.split("\n")[0])
    p.add_argument("--out", required=True, help="directory to write (created)")
    p.add_argument("--images", type=int, default=64)
    p.add_argument("--per-shard", type=int, default=32)
    p.add_argument("--width", type=int, default=500)
    p.add_argument("--height", type=int, default=375)
    p.add_argument("--quality", type=int, default=90)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    if min(a.images, a.per_shard, a.width, a.height) < 1 or not 1 <= a.quality <= 100:
        p.error("--images, --per-shard, --width and --height must be 1 or more, --quality 1..100")
    if a.images > 10**9:
        p.error("--images must be below 10^9 (keys have 9 digits)")
    write(a.out, a.images, a.per_shard, a.width, a.height, a.quality)
    return 0


if __name__ == "__main__":
    sys.exit(main())
