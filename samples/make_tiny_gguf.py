#!/usr/bin/env python3
"""Write small random-weight GGUF models that llama.cpp loads and runs, for phasewrap's tests and benchmarks.

Nothing is downloaded: weights come from a seeded numpy generator, so the same arguments give the same file.

  --arch llama     a llama model of a few MB (or of at least --size-mb MB, to make loading measurable)
  --arch lfm2moe   an LFM2-MoE model (short-convolution and attention layers, leading dense layers, then experts)

Both use one SentencePiece-style vocabulary with the 256 byte-fallback tokens, so any text tokenizes. The output
head is zero for every token that is not a plain text piece (control, unknown and byte tokens), so with llama.cpp's
default sampling a run never picks end-of-sequence and prints only printable ASCII: it generates exactly -n tokens.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import gguf
import numpy as np

SPACE_PIECE = "\u2581"  # SentencePiece's visible space
SPECIAL_TOKENS = ("<unk>", "<s>", "</s>")
UNK_ID, BOS_ID, EOS_ID = 0, 1, 2
# A few merges so common English does not tokenize to single characters only; each one is reachable by merging
# two pieces that are already in the vocabulary.
MERGED_PIECES = (
    SPACE_PIECE + "t", "th", "he", "in", "er", "an", "re", "on", "nd", "at", "en", "es", "or", "ed",
    SPACE_PIECE + "a", SPACE_PIECE + "th", "the", SPACE_PIECE + "the", "ing", "and", SPACE_PIECE + "and",
)
# Logits of the allowed tokens have a standard deviation of about this, so sampling is sharp and the zero logits of
# the blocked tokens are never within llama.cpp's default min-p / top-k cut.
OUTPUT_LOGIT_STD = 8.0
RMS_NORM_EPS = 1e-5
CONTEXT_LENGTH_TOKENS = 4096
BYTES_PER_MB = 1_000_000
DTYPES = {"f32": np.float32, "f16": np.float16}
FILE_TYPES = {"f32": gguf.LlamaFileType.ALL_F32, "f16": gguf.LlamaFileType.MOSTLY_F16}


@dataclass(frozen=True)
class Vocab:
    """A byte-fallback SentencePiece vocabulary: llama.cpp's "llama" tokenizer model."""

    tokens: list[str]
    scores: list[float]
    types: list[int]

    def output_blocked_ids(self) -> list[int]:
        """Token ids the output head must never favour: everything but plain text pieces."""
        return [i for i, t in enumerate(self.types) if t != gguf.TokenType.NORMAL]


def spm_vocab() -> Vocab:
    """Specials, the 256 byte tokens <0x00>..<0xFF>, the space piece, printable ASCII, then a few merges."""
    pieces = [SPACE_PIECE] + [chr(c) for c in range(0x21, 0x7F)] + list(MERGED_PIECES)
    tokens = list(SPECIAL_TOKENS) + [f"<0x{b:02X}>" for b in range(256)] + pieces
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    types += [gguf.TokenType.BYTE] * 256 + [gguf.TokenType.NORMAL] * len(pieces)
    # The tokenizer applies the highest-scoring merge first; later (longer) pieces score lower, which is fine here.
    scores = [0.0] * (len(SPECIAL_TOKENS) + 256) + [-float(i) for i in range(len(pieces))]
    return Vocab(tokens, scores, [int(t) for t in types])


class RandomWeights:
    """Seeded random tensors in numpy layout (reversed ggml order: the last axis is ggml's ne[0], the input)."""

    def __init__(self, seed: int, dtype: type[np.floating]):
        self._rng = np.random.default_rng(seed)
        self._dtype = dtype

    def matrix(self, *shape: int, std: float | None = None) -> np.ndarray:
        """Normal weights scaled by 1/sqrt(fan_in) (unless std is given) so activations stay near unit size."""
        std = 1.0 / math.sqrt(shape[-1]) if std is None else std
        values = self._rng.standard_normal(shape, dtype=np.float32)
        values *= std
        return values.astype(self._dtype, copy=False)

    @staticmethod
    def ones(n: int) -> np.ndarray:
        """Norm weights; ggml wants 1-d tensors in f32 whatever the file type."""
        return np.ones(n, dtype=np.float32)

    def output_head(self, vocab: Vocab, n_embd: int) -> np.ndarray:
        """The output projection with zero rows for the blocked tokens."""
        head = self.matrix(len(vocab.tokens), n_embd, std=OUTPUT_LOGIT_STD / math.sqrt(n_embd))
        head[vocab.output_blocked_ids()] = 0
        return head


@dataclass(frozen=True)
class LlamaShape:
    """Dimensions of a llama model."""

    n_embd: int = 128
    n_layer: int = 4
    n_head: int = 4
    n_head_kv: int = 2
    n_ff: int = 384

    @property
    def n_embd_kv(self) -> int:
        """Width of the K and V projections (grouped-query attention)."""
        return self.n_embd // self.n_head * self.n_head_kv

    def layer_params(self) -> int:
        """Weights in one block, norms included."""
        attention = 2 * self.n_embd * self.n_embd + 2 * self.n_embd * self.n_embd_kv
        return attention + 3 * self.n_embd * self.n_ff + 2 * self.n_embd


def llama_shape_for_size(size_mb: float, vocab_size: int, bytes_per_weight: int) -> LlamaShape:
    """A 1024-wide llama with just enough layers for the file to reach size_mb (10**6 bytes)."""
    base = LlamaShape(n_embd=1024, n_layer=1, n_head=16, n_head_kv=4, n_ff=2816)
    fixed_bytes = (2 * vocab_size * base.n_embd) * bytes_per_weight + 4 * base.n_embd
    layer_bytes = base.layer_params() * bytes_per_weight
    n_layer = max(1, math.ceil((size_mb * BYTES_PER_MB - fixed_bytes) / layer_bytes))
    return LlamaShape(base.n_embd, n_layer, base.n_head, base.n_head_kv, base.n_ff)


def add_vocab(writer: gguf.GGUFWriter, vocab: Vocab) -> None:
    """Tokenizer metadata for llama.cpp's SentencePiece ("llama") tokenizer."""
    writer.add_tokenizer_model("llama")
    writer.add_token_list(vocab.tokens)
    writer.add_token_scores(vocab.scores)
    writer.add_token_types(vocab.types)
    writer.add_unk_token_id(UNK_ID)
    writer.add_bos_token_id(BOS_ID)
    writer.add_eos_token_id(EOS_ID)
    writer.add_add_bos_token(True)


def add_llama(writer: gguf.GGUFWriter, shape: LlamaShape, vocab: Vocab, weights: RandomWeights) -> None:
    """Metadata and tensors of a llama model."""
    writer.add_context_length(CONTEXT_LENGTH_TOKENS)
    writer.add_embedding_length(shape.n_embd)
    writer.add_block_count(shape.n_layer)
    writer.add_feed_forward_length(shape.n_ff)
    writer.add_head_count(shape.n_head)
    writer.add_head_count_kv(shape.n_head_kv)
    writer.add_layer_norm_rms_eps(RMS_NORM_EPS)
    writer.add_rope_dimension_count(shape.n_embd // shape.n_head)

    d, kv, ff = shape.n_embd, shape.n_embd_kv, shape.n_ff
    writer.add_tensor("token_embd.weight", weights.matrix(len(vocab.tokens), d, std=1.0))
    for i in range(shape.n_layer):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", weights.ones(d))
        writer.add_tensor(f"blk.{i}.attn_q.weight", weights.matrix(d, d))
        writer.add_tensor(f"blk.{i}.attn_k.weight", weights.matrix(kv, d))
        writer.add_tensor(f"blk.{i}.attn_v.weight", weights.matrix(kv, d))
        writer.add_tensor(f"blk.{i}.attn_output.weight", weights.matrix(d, d))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", weights.ones(d))
        writer.add_tensor(f"blk.{i}.ffn_gate.weight", weights.matrix(ff, d))
        writer.add_tensor(f"blk.{i}.ffn_up.weight", weights.matrix(ff, d))
        writer.add_tensor(f"blk.{i}.ffn_down.weight", weights.matrix(d, ff))
    writer.add_tensor("output_norm.weight", weights.ones(d))
    writer.add_tensor("output.weight", weights.output_head(vocab, d))


@dataclass(frozen=True)
class Lfm2MoeShape:
    """Dimensions of an LFM2-MoE model; attention_layers lists the attention blocks, the rest are short convolutions."""

    n_embd: int = 128
    n_layer: int = 6
    attention_layers: tuple[int, ...] = (2, 5)
    n_dense_lead: int = 2
    n_head: int = 4
    n_head_kv: int = 2
    n_ff: int = 256
    n_expert: int = 8
    n_expert_used: int = 2
    n_ff_expert: int = 64
    conv_l_cache: int = 3


def add_lfm2moe(writer: gguf.GGUFWriter, shape: Lfm2MoeShape, vocab: Vocab, weights: RandomWeights) -> None:
    """Metadata and tensors of an LFM2-MoE model, as llama.cpp's lfm2moe loader expects them.

    A block is recurrent (short convolution) exactly when its head_count_kv entry is 0.
    """
    d, head_dim = shape.n_embd, shape.n_embd // shape.n_head
    kv = head_dim * shape.n_head_kv
    writer.add_context_length(CONTEXT_LENGTH_TOKENS)
    writer.add_embedding_length(d)
    writer.add_block_count(shape.n_layer)
    writer.add_feed_forward_length(shape.n_ff)
    writer.add_head_count(shape.n_head)
    writer.add_head_count_kv([shape.n_head_kv if i in shape.attention_layers else 0 for i in range(shape.n_layer)])
    writer.add_layer_norm_rms_eps(RMS_NORM_EPS)
    writer.add_vocab_size(len(vocab.tokens))
    writer.add_shortconv_l_cache(shape.conv_l_cache)
    writer.add_expert_count(shape.n_expert)
    writer.add_expert_used_count(shape.n_expert_used)
    writer.add_expert_feed_forward_length(shape.n_ff_expert)
    writer.add_leading_dense_block_count(shape.n_dense_lead)
    writer.add_expert_gating_func(gguf.ExpertGatingFuncType.SIGMOID)

    e, ff_e = shape.n_expert, shape.n_ff_expert
    writer.add_tensor("token_embd.weight", weights.matrix(len(vocab.tokens), d, std=1.0))
    for i in range(shape.n_layer):
        writer.add_tensor(f"blk.{i}.attn_norm.weight", weights.ones(d))
        if i in shape.attention_layers:
            writer.add_tensor(f"blk.{i}.attn_q.weight", weights.matrix(d, d))
            writer.add_tensor(f"blk.{i}.attn_k.weight", weights.matrix(kv, d))
            writer.add_tensor(f"blk.{i}.attn_v.weight", weights.matrix(kv, d))
            writer.add_tensor(f"blk.{i}.attn_q_norm.weight", weights.ones(head_dim))
            writer.add_tensor(f"blk.{i}.attn_k_norm.weight", weights.ones(head_dim))
            writer.add_tensor(f"blk.{i}.attn_output.weight", weights.matrix(d, d))
        else:
            writer.add_tensor(f"blk.{i}.shortconv.in_proj.weight", weights.matrix(3 * d, d))
            writer.add_tensor(f"blk.{i}.shortconv.conv.weight", weights.matrix(d, shape.conv_l_cache))
            writer.add_tensor(f"blk.{i}.shortconv.out_proj.weight", weights.matrix(d, d))
        writer.add_tensor(f"blk.{i}.ffn_norm.weight", weights.ones(d))
        if i < shape.n_dense_lead:
            writer.add_tensor(f"blk.{i}.ffn_gate.weight", weights.matrix(shape.n_ff, d))
            writer.add_tensor(f"blk.{i}.ffn_up.weight", weights.matrix(shape.n_ff, d))
            writer.add_tensor(f"blk.{i}.ffn_down.weight", weights.matrix(d, shape.n_ff))
        else:
            writer.add_tensor(f"blk.{i}.ffn_gate_inp.weight", weights.matrix(e, d))
            writer.add_tensor(f"blk.{i}.exp_probs_b.bias", np.zeros(e, dtype=np.float32))
            writer.add_tensor(f"blk.{i}.ffn_gate_exps.weight", weights.matrix(e, ff_e, d))
            writer.add_tensor(f"blk.{i}.ffn_up_exps.weight", weights.matrix(e, ff_e, d))
            writer.add_tensor(f"blk.{i}.ffn_down_exps.weight", weights.matrix(e, d, ff_e))
    # LFM2 stores its final norm under this name (llama.cpp maps it to the output norm)
    writer.add_tensor("token_embd_norm.weight", weights.ones(d))
    writer.add_tensor("output.weight", weights.output_head(vocab, d))


def write_model(path: Path, arch: str, seed: int, dtype_name: str, size_mb: float | None = None) -> int:
    """Write one model to path (through a temporary file, so a cut-off run leaves no half file); returns its size in bytes."""
    vocab = spm_vocab()
    dtype = DTYPES[dtype_name]
    weights = RandomWeights(seed, dtype)
    tmp_path = path.with_name(path.name + ".tmp")
    writer = gguf.GGUFWriter(tmp_path, arch)
    writer.add_name(f"phasewrap random {arch}")
    writer.add_file_type(FILE_TYPES[dtype_name])
    add_vocab(writer, vocab)
    if arch == "lfm2moe":
        add_lfm2moe(writer, Lfm2MoeShape(), vocab, weights)
    elif size_mb is None:
        add_llama(writer, LlamaShape(), vocab, weights)
    else:
        add_llama(writer, llama_shape_for_size(size_mb, len(vocab.tokens), np.dtype(dtype).itemsize), vocab, weights)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(tmp_path, path)
    return path.stat().st_size


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command line; --size-mb only applies to llama."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-o", "--output", type=Path, required=True, help="GGUF file to write")
    parser.add_argument("--arch", choices=("llama", "lfm2moe"), default="llama")
    parser.add_argument("--size-mb", type=float, help="llama only: make the file at least this many MB (10**6 bytes)")
    parser.add_argument("--dtype", choices=tuple(DTYPES), default="f32", help="type of the weight matrices")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    if args.size_mb is not None and args.arch != "llama":
        parser.error(f"--size-mb: only for --arch llama, not {args.arch}")
    if args.size_mb is not None and args.size_mb <= 0:
        parser.error(f"--size-mb: must be positive, got {args.size_mb}")
    return args


def main(argv: list[str] | None = None) -> int:
    """Write the model and print its path and size."""
    args = parse_args(argv)
    size_bytes = write_model(args.output, args.arch, args.seed, args.dtype, args.size_mb)
    print(f"{args.output}\t{size_bytes} bytes ({size_bytes / BYTES_PER_MB:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
