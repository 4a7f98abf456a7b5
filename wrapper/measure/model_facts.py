"""What a model file says about the bytes a run must move: size, parameters, experts, bytes read per token.

Read from the file's own headers, never its weights: GGUF through the ``gguf`` package (the reader maintained with
llama.cpp; optional: without it the facts are null with the reason), safetensors from each file's JSON header
plus the directory's ``config.json``.

Per token, a decoder reads every weight matrix once, except the token-embedding table (one row per token: left
out, unless the model has no separate output head and the table doubles as it) and the experts a token is not
routed to: ``active_bytes_per_token`` = dense bytes + expert bytes × used / count. ``kv_bytes_per_token`` is the
K and V cache one token adds: Σ over attention layers of KV heads × (key + value head width) × the cache's
element size (llama.cpp's default f16 cache, a safetensors model's own dtype).
"""
from __future__ import annotations

import json
import os
import re
import struct
from typing import Optional, Sequence

from . import pagecache

KV_ELEMENT_BYTES_F16 = 2  # llama.cpp's default cache type (-ctk/-ctv f16)
_SAFETENSORS_DTYPE_BYTES = {"F64": 8, "I64": 8, "U64": 8, "F32": 4, "I32": 4, "U32": 4, "F16": 2, "BF16": 2,
                            "I16": 2, "U16": 2, "I8": 1, "U8": 1, "BOOL": 1, "F8_E4M3": 1, "F8_E5M2": 1}
_TORCH_DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2, "float8_e4m3fn": 1}
_HEADER_MAX_BYTES = 100 << 20  # a safetensors header larger than this is no header
_GGUF_EXPERT = re.compile(r"_exps\b|_exps\.")
_ST_EXPERT = re.compile(r"\.experts\.")
_ST_EMBED = "embed_tokens.weight"


class ModelFactsError(Exception):
    """Why a model file's facts could not be read (the sentence goes into the record)."""


def find(argv: Sequence[str], given: Optional[str] = None) -> Optional[str]:
    """The model a command names: ``given`` (--model-path), else ``-m``/``--model``'s value or an argument that
    is a model file or a model directory (``config.json`` beside *.safetensors, or *.gguf). None if none."""
    if given:
        return given
    for value, flagged in pagecache._candidates(argv):
        if not value or value.startswith("-"):
            continue
        if flagged and not os.path.exists(value):
            return value  # named as the model, absent here: read() says so
        if os.path.isfile(value) and value.endswith(pagecache.MODEL_SUFFIXES):
            return value
        if os.path.isdir(value) and pagecache._dir_models(value):
            return value
    return None


def read(path: str) -> dict:
    """The facts of the model at ``path`` (a GGUF file, a safetensors file or a directory of them), ``source``
    "file". Raises ModelFactsError naming what is missing."""
    if not os.path.exists(path):
        raise ModelFactsError(f"model file {path} does not exist here")
    if os.path.isdir(path):
        files = pagecache._dir_models(path)
        ggufs = [f for f in files if f.endswith(".gguf")]
        if ggufs and not any(f.endswith(".safetensors") for f in files):
            return _gguf(ggufs[0])
        if not files:
            raise ModelFactsError(f"{path}: no *.gguf or *.safetensors file in the directory")
        return _safetensors(path, [f for f in files if f.endswith(".safetensors")])
    if path.endswith(".safetensors"):
        return _safetensors(os.path.dirname(path) or ".", [path])
    return _gguf(path)


def _facts(path: str, fmt: str, tensors: list, meta: dict) -> dict:
    """The record's ``model`` object from (name, type, bytes, elements, is_expert, per_token) per tensor."""
    dtype_bytes: dict = {}
    for _name, kind, size, _n, _expert, _read in tensors:
        dtype_bytes[kind] = dtype_bytes.get(kind, 0) + size
    expert_bytes = sum(t[2] for t in tensors if t[4])
    dense_bytes = sum(t[2] for t in tensors if not t[4] and t[5])
    count, used = meta.get("expert_count"), meta.get("expert_used")
    experts = None
    active = dense_bytes
    if count and expert_bytes:
        experts = {"count": count, "used": used, "expert_bytes": expert_bytes, "dense_bytes": dense_bytes}
        active = None if used is None else round(dense_bytes + expert_bytes * used / count)
    return {"path": os.path.abspath(path), "format": fmt, "bytes": meta["bytes"],
            "params": sum(t[3] for t in tensors), "arch": meta.get("arch"), "layers": meta.get("layers"),
            "dtype_bytes": dtype_bytes, "experts": experts, "active_bytes_per_token": active,
            "kv_bytes_per_token": meta.get("kv_bytes_per_token"), "source": "file"}


def _gguf_fields(reader) -> dict:
    out = {}
    for key, field in reader.fields.items():
        try:
            out[key] = field.contents()
        except (ValueError, IndexError, TypeError):  # a field this gguf version can't decode: not ours to need
            continue
    return out


def _gguf(path: str) -> dict:
    try:
        import gguf
    except ImportError:
        raise ModelFactsError("reading GGUF needs the gguf package (pip install gguf)") from None
    parts = pagecache.model_files(["-", "-m", path]) or [path]
    tensors, fields = [], {}
    for part in parts:
        try:
            reader = gguf.GGUFReader(part)
        except (ValueError, OSError, struct.error, IndexError, KeyError, TypeError) as exc:  # gguf on a damaged file
            raise ModelFactsError(f"{part}: not a readable GGUF file ({type(exc).__name__}: {exc})") from None
        fields = fields or _gguf_fields(reader)
        tensors += [(t.name, t.tensor_type.name, int(t.n_bytes), int(t.n_elements)) for t in reader.tensors]
    names = {t[0] for t in tensors}
    tied = "output.weight" not in names
    rows = [(name, kind, size, n, bool(_GGUF_EXPERT.search(name)), name != "token_embd.weight" or tied)
            for name, kind, size, n in tensors]
    arch = fields.get("general.architecture")
    meta = {"bytes": sum(os.path.getsize(p) for p in parts), "arch": arch, "layers": fields.get(f"{arch}.block_count"),
            "expert_count": fields.get(f"{arch}.expert_count"), "expert_used": fields.get(f"{arch}.expert_used_count"),
            "kv_bytes_per_token": _gguf_kv_bytes(fields, arch)}
    return _facts(path, "gguf", rows, meta)


def _gguf_kv_bytes(fields: dict, arch: Optional[str]) -> Optional[int]:
    layers, heads = fields.get(f"{arch}.block_count"), fields.get(f"{arch}.attention.head_count")
    kv_heads = fields.get(f"{arch}.attention.head_count_kv", heads)
    width = fields.get(f"{arch}.embedding_length")
    if not layers or kv_heads is None:
        return None
    per_layer = kv_heads if isinstance(kv_heads, list) else [kv_heads] * layers
    head = heads[0] if isinstance(heads, list) else heads
    k_len = fields.get(f"{arch}.attention.key_length") or (width // head if width and head else None)
    v_len = fields.get(f"{arch}.attention.value_length") or k_len
    if k_len is None:
        return None
    return sum(int(h) for h in per_layer) * (k_len + v_len) * KV_ELEMENT_BYTES_F16


def _st_header(path: str) -> dict:
    try:
        with open(path, "rb") as fh:
            (size,) = struct.unpack("<Q", fh.read(8))
            if size > _HEADER_MAX_BYTES:
                raise ModelFactsError(f"{path}: not a safetensors file (header of {size} bytes)")
            return json.loads(fh.read(size))
    except (OSError, struct.error, ValueError) as exc:
        raise ModelFactsError(f"{path}: not a readable safetensors file ({exc})") from None


def _safetensors(folder: str, files: list) -> dict:
    config_path = os.path.join(folder, "config.json")
    try:
        with open(config_path, encoding="utf-8") as fh:
            config = json.load(fh)
    except (OSError, ValueError):
        config = {}
    text = config.get("text_config") if isinstance(config.get("text_config"), dict) else config
    tensors = []
    for path in files:
        for name, info in _st_header(path).items():
            if name == "__metadata__" or not isinstance(info, dict):
                continue
            start, end = info["data_offsets"]
            n = 1
            for dim in info["shape"]:
                n *= dim
            tensors.append((name, info["dtype"], end - start, n))
    tied = not any(t[0].endswith("lm_head.weight") for t in tensors)
    rows = [(name, kind, size, n, bool(_ST_EXPERT.search(name)), not name.endswith(_ST_EMBED) or tied)
            for name, kind, size, n in tensors]
    meta = {"bytes": sum(os.path.getsize(p) for p in files), "arch": (config.get("architectures") or [None])[0],
            "layers": text.get("num_hidden_layers"),
            "expert_count": next((text[k] for k in ("num_experts", "num_local_experts", "n_routed_experts",
                                                    "moe_num_experts") if text.get(k)), None),
            "expert_used": next((text[k] for k in ("num_experts_per_tok", "num_experts_per_token", "moe_k")
                                 if text.get(k)), None),
            "kv_bytes_per_token": _st_kv_bytes(text, config)}
    return _facts(folder if len(files) > 1 else files[0], "safetensors", rows, meta)


def _st_kv_bytes(text: dict, config: dict) -> Optional[int]:
    layers, heads = text.get("num_hidden_layers"), text.get("num_attention_heads")
    if not layers or not heads:
        return None
    kv_heads = text.get("num_key_value_heads") or heads
    head_dim = text.get("head_dim") or (text["hidden_size"] // heads if text.get("hidden_size") else None)
    types = text.get("layer_types")
    attention_layers = sum("attention" in str(t) for t in types) if isinstance(types, list) else layers
    element = _TORCH_DTYPE_BYTES.get(str(text.get("torch_dtype") or config.get("torch_dtype")), 2)
    return None if head_dim is None else attention_layers * kv_heads * head_dim * 2 * element


def fill(inputs, command: Sequence[str]):
    """``inputs`` (a ``derive.limits.LimitsInput``) with the facts of the model the command (or --model-path)
    names, or the reason there are none; read once, before the run."""
    import dataclasses

    path = find(command, inputs.model_path)
    if path is None:
        return dataclasses.replace(inputs, model_reason="no model file named on the command line (-m/--model, "
                                   "a *.gguf/*.safetensors file or model directory)")
    try:
        return dataclasses.replace(inputs, model_file=read(path), model_reason=None)
    except ModelFactsError as exc:
        return dataclasses.replace(inputs, model_reason=str(exc))
