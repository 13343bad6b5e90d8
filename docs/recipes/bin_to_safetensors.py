#!/usr/bin/env python3
"""Convert a checkpoint folder's pytorch_model.bin into model.safetensors, once, on your own machine.

    python3 bin_to_safetensors.py FOLDER

Attention Lab opens only safetensors: a .bin file is a Python pickle, and unpickling a file can run
code that the file carries. This recipe loads it with `torch.load(..., weights_only=True)`
(PyTorch 1.13 or later), which refuses anything but tensors and plain containers, and writes
FOLDER/model.safetensors beside it. Tensors that share storage (GPT-2's lm_head.weight is its
wte.weight) are written once, as Hugging Face's own converter does. The .bin file is left as it
is; the folder's config.json and tokenizer files are not touched.

Needs only PyTorch (no `safetensors` package): the layout is the safetensors format's — an
8-byte little-endian header length, a JSON header naming each tensor's dtype, shape and byte
range, then the bytes.
"""
import json
import os
import struct
import sys

import torch

DTYPES = {torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}


def tensor_bytes(t):
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:  # NumPy has no bfloat16: the same 16 bits as int16
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def convert(folder):
    src = os.path.join(folder, "pytorch_model.bin")
    dst = os.path.join(folder, "model.safetensors")
    if os.path.exists(dst):
        raise SystemExit("%s exists already; nothing to do" % dst)
    state = torch.load(src, map_location="cpu", weights_only=True)
    header, chunks, offset, seen = {"__metadata__": {"format": "pt"}}, [], 0, {}
    for name, t in state.items():
        if not isinstance(t, torch.Tensor) or t.dtype not in DTYPES:
            print("skipped %s (not a float tensor: a buffer Attention Lab ignores)" % name)
            continue
        key = (t.untyped_storage().data_ptr() if hasattr(t, "untyped_storage") else t.storage().data_ptr(),
               t.storage_offset(), tuple(t.shape))
        if key in seen:
            print("skipped %s (the same tensor as %s: a tied weight)" % (name, seen[key]))
            continue
        seen[key] = name
        data = tensor_bytes(t)
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape), "data_offsets": [offset, offset + len(data)]}
        chunks.append(data)
        offset += len(data)
    head = json.dumps(header, separators=(",", ":")).encode("utf-8")
    head += b" " * ((8 - len(head) % 8) % 8)
    tmp = dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(head)) + head)
        for c in chunks:
            f.write(c)
    os.replace(tmp, dst)  # never a half-written model.safetensors
    print("wrote %s (%d tensors)" % (dst, len(chunks)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    convert(sys.argv[1])
