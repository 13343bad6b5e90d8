#!/usr/bin/env python3
"""Save a PyTorch nn.TransformerEncoder (trained or not) as an Attention Lab weights file.

    python3 torch_to_attnlab.py OUT.safetensors        # saves the small demo encoder below

In your own code:

    from torch_to_attnlab import save_encoder
    save_encoder(my_encoder, "trained.safetensors")

then open it with File ▸ Import weights… in the window, or `attnlab export --weights
trained.safetensors --text "…"`. The layers must be built with batch_first=True semantics in mind
(the weights do not depend on it) and dropout is ignored (Attention Lab computes without it). A
final `norm` (an nn.LayerNorm with the layers' eps) becomes Attention Lab's final norm
(`encoder.norm`, metadata `final_norm: true`).
Needs only PyTorch and NumPy (no `safetensors` package): the file layout is docs/cli.md's.
"""
import json
import struct
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def layer_config(layer):
    """The metadata Attention Lab needs, read off an nn.TransformerEncoderLayer."""
    act = layer.activation
    if act is F.relu or isinstance(act, nn.ReLU) or act == "relu":
        activation = "relu"
    elif isinstance(act, nn.GELU) and act.approximate == "tanh":
        activation = "gelu_tanh"
    elif act is F.gelu or isinstance(act, nn.GELU) or act == "gelu":
        activation = "gelu"
    else:
        raise ValueError(f"activation {act!r}: Attention Lab computes relu, gelu (the exact erf form) "
                         "or gelu_tanh (nn.GELU(approximate='tanh'))")
    return {"d_model": layer.self_attn.embed_dim, "heads": layer.self_attn.num_heads,
            "d_ff": layer.linear1.out_features, "norm": "pre" if layer.norm_first else "post",
            "activation": activation, "eps": layer.norm1.eps}


def save_encoder(encoder, path, positional="sinusoidal", seed=0):
    """encoder: nn.TransformerEncoder, or a list of nn.TransformerEncoderLayer."""
    if isinstance(encoder, nn.TransformerEncoder):
        layers, norm = list(encoder.layers), encoder.norm
    else:
        layers, norm = list(encoder), None
    cfg = layer_config(layers[0])
    if any(layer_config(l) != cfg for l in layers):
        raise ValueError("every layer must have the same sizes, norm placement, activation and eps")
    tensors = {f"encoder.layers.{i}.{k}": v.detach().cpu().float().numpy()
               for i, layer in enumerate(layers) for k, v in layer.state_dict().items()}
    if norm is not None:
        if not isinstance(norm, nn.LayerNorm) or norm.normalized_shape != (cfg["d_model"],) or \
                not norm.elementwise_affine or norm.eps != cfg["eps"]:
            raise ValueError("the final norm must be an nn.LayerNorm(d_model) with weights and the layers' eps")
        tensors["encoder.norm.weight"] = norm.weight.detach().cpu().float().numpy()
        tensors["encoder.norm.bias"] = norm.bias.detach().cpu().float().numpy()
    meta = {"format": "attnlab-weights/1", "d_model": str(cfg["d_model"]), "heads": str(cfg["heads"]),
            "d_ff": str(cfg["d_ff"]), "layers": str(len(layers)), "norm": cfg["norm"],
            "activation": cfg["activation"], "eps": repr(float(cfg["eps"])), "positional": positional,
            "seed": str(seed)}  # the seed makes the token embeddings (Attention Lab's, docs/cli.md)
    if norm is not None:
        meta["final_norm"] = "true"
    header, blobs, offset = {"__metadata__": meta}, [], 0
    for name in sorted(tensors):
        a = np.ascontiguousarray(tensors[name], dtype="<f4")
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + a.nbytes]}
        blobs.append(a.tobytes())
        offset += a.nbytes
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for b in blobs:
            f.write(b)


def demo_encoder():
    """A small pre-norm encoder with its final norm, as anyone would build it in PyTorch (seeded, so
    that tests can rebuild it; the norm's weights drawn too, as if trained)."""
    torch.manual_seed(1234)
    layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0,
                                       activation="gelu", batch_first=True, norm_first=True)
    norm = nn.LayerNorm(32)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.normal_(0.0, 0.1)
    return nn.TransformerEncoder(layer, num_layers=2, norm=norm, enable_nested_tensor=False)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    save_encoder(demo_encoder(), sys.argv[1])
    print(f"saved {sys.argv[1]}")
