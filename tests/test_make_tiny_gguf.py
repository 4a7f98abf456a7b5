"""samples/make_tiny_gguf.py writes GGUF files that read back with the gguf package's own reader (no llama.cpp)."""

import subprocess
import sys
from pathlib import Path

import pytest

gguf = pytest.importorskip("gguf")

SCRIPT = Path(__file__).resolve().parent.parent / "samples" / "make_tiny_gguf.py"
# 3 specials + 256 byte tokens + the space piece + 94 printable ASCII characters + 21 merged pieces
VOCAB_SIZE = 375


def make(tmp_path: Path, *args: str) -> tuple[Path, str]:
    """Run the script as a user would; return the file and what it printed."""
    path = tmp_path / "model.gguf"
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "-o", str(path), *args], capture_output=True, text=True, check=True, timeout=120
    )
    return path, done.stdout


def field(reader: "gguf.GGUFReader", key: str):
    """The decoded value of one metadata key."""
    return reader.fields[key].contents()


def test_llama_default(tmp_path):
    path, stdout = make(tmp_path)
    reader = gguf.GGUFReader(path)

    assert field(reader, "general.architecture") == "llama"
    assert field(reader, "tokenizer.ggml.model") == "llama"
    tokens = field(reader, "tokenizer.ggml.tokens")
    assert len(tokens) == VOCAB_SIZE
    assert tokens[:3] == ["<unk>", "<s>", "</s>"]
    assert tokens[3] == "<0x00>" and tokens[258] == "<0xFF>"
    assert field(reader, "llama.block_count") == 4
    assert len(reader.tensors) == 3 + 9 * 4
    by_name = {t.name: t for t in reader.tensors}
    assert list(by_name["token_embd.weight"].shape) == [128, VOCAB_SIZE]
    assert by_name["blk.0.attn_q.weight"].tensor_type == gguf.GGMLQuantizationType.F32
    assert stdout == f"{path}\t{path.stat().st_size} bytes ({path.stat().st_size / 1e6:.1f} MB)\n"


def test_output_head_blocks_everything_but_text_pieces(tmp_path):
    path, _ = make(tmp_path)
    reader = gguf.GGUFReader(path)
    head = next(t for t in reader.tensors if t.name == "output.weight").data
    first_text_piece = 3 + 256

    assert not head[:first_text_piece].any()
    assert head[first_text_piece:].any(axis=1).all()


def test_lfm2moe(tmp_path):
    path, _ = make(tmp_path, "--arch", "lfm2moe")
    reader = gguf.GGUFReader(path)

    assert field(reader, "general.architecture") == "lfm2moe"
    assert len(field(reader, "tokenizer.ggml.tokens")) == VOCAB_SIZE
    assert field(reader, "lfm2moe.vocab_size") == VOCAB_SIZE
    assert field(reader, "lfm2moe.expert_count") == 8
    assert field(reader, "lfm2moe.expert_used_count") == 2
    assert field(reader, "lfm2moe.leading_dense_block_count") == 2
    assert field(reader, "lfm2moe.shortconv.l_cache") == 3
    assert field(reader, "lfm2moe.attention.head_count_kv") == [0, 0, 2, 0, 0, 2]
    # 3 global + 2 dense conv blocks of 8 + 2 expert attention blocks of 13 + 2 expert conv blocks of 10
    assert len(reader.tensors) == 3 + 2 * 8 + 2 * 13 + 2 * 10
    by_name = {t.name: t for t in reader.tensors}
    assert list(by_name["blk.2.ffn_gate_exps.weight"].shape) == [128, 64, 8]
    assert list(by_name["blk.0.shortconv.conv.weight"].shape) == [3, 128]
    assert "blk.1.ffn_gate_inp.weight" not in by_name


def test_f16_and_seed(tmp_path):
    path, _ = make(tmp_path, "--dtype", "f16", "--seed", "7")
    again = tmp_path / "again.gguf"
    subprocess.run(
        [sys.executable, str(SCRIPT), "-o", str(again), "--dtype", "f16", "--seed", "7"], check=True, timeout=120
    )
    reader = gguf.GGUFReader(path)

    assert path.read_bytes() == again.read_bytes()
    by_name = {t.name: t for t in reader.tensors}
    assert by_name["blk.0.ffn_up.weight"].tensor_type == gguf.GGMLQuantizationType.F16
    assert by_name["blk.0.ffn_norm.weight"].tensor_type == gguf.GGMLQuantizationType.F32


def test_size_mb_reaches_the_size(tmp_path):
    path, _ = make(tmp_path, "--size-mb", "20")
    reader = gguf.GGUFReader(path)

    assert 20e6 <= path.stat().st_size < 20e6 + 46e6  # at most one 1024-wide f32 block over
    assert field(reader, "llama.embedding_length") == 1024
    assert not list(tmp_path.glob("*.tmp"))


def test_size_mb_refused_for_lfm2moe(tmp_path):
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "-o", str(tmp_path / "m.gguf"), "--arch", "lfm2moe", "--size-mb", "5"],
        capture_output=True, text=True, timeout=120,
    )

    assert done.returncode == 2
    assert "--size-mb: only for --arch llama, not lfm2moe" in done.stderr
