"""Page-cache residency, eviction and model-file discovery on real files."""
import os

import pytest

from wrapper.measure import pagecache

MIB = 1048576


def _write(path, size):
    with open(path, "wb") as fh:
        for _ in range(size // MIB):
            fh.write(os.urandom(MIB))
        fh.write(os.urandom(size % MIB))
    return str(path)


def _read_all(path):
    with open(path, "rb") as fh:
        while fh.read(MIB):
            pass


def test_evict_then_read_a_64_mib_file_goes_cold_then_warm(tmp_path):
    path = _write(tmp_path / "model.gguf", 64 * MIB)
    pagecache.evict([path])
    cold = pagecache.residency([path])
    assert cold["resident_fraction"] < 0.01
    assert cold["label"] == "cold"
    assert cold["size_mib"] == 64.0
    assert cold["reason"] is None
    _read_all(path)
    warm = pagecache.residency([path])
    assert warm["resident_fraction"] > 0.99
    assert warm["label"] == "warm"
    assert warm["resident_mib"] == pytest.approx(64.0, abs=0.7)
    assert pagecache.resident_fraction([path]) == warm["resident_fraction"]


def test_measuring_does_not_warm_the_cache(tmp_path):
    path = _write(tmp_path / "m.bin", 8 * MIB)
    pagecache.evict([path])
    pagecache.resident_fraction([path])
    assert pagecache.resident_fraction([path]) < 0.01


def test_fraction_is_weighted_by_pages_across_files(tmp_path):
    big = _write(tmp_path / "big.gguf", 12 * MIB)
    small = _write(tmp_path / "small.gguf", 4 * MIB)
    pagecache.evict([big, small])
    _read_all(small)
    assert pagecache.resident_fraction([big, small]) == pytest.approx(0.25, abs=0.01)
    assert pagecache.label(pagecache.resident_fraction([big, small])) == "partial"


def test_dirty_pages_are_evicted_too(tmp_path):
    path = str(tmp_path / "fresh.bin")
    with open(path, "wb") as fh:
        fh.write(os.urandom(4 * MIB))
    pagecache.evict([path])
    assert pagecache.resident_fraction([path]) < 0.01


def test_resident_pages_counts_a_partial_last_page(tmp_path):
    path = _write(tmp_path / "odd.bin", pagecache.PAGE_SIZE * 3 + 1)
    _read_all(path)
    assert pagecache.resident_pages(path) == (4, 4)


def test_empty_file_has_no_fraction_and_says_why(tmp_path):
    path = tmp_path / "empty.gguf"
    path.write_bytes(b"")
    state = pagecache.residency([str(path)])
    assert state["resident_fraction"] is None
    assert state["label"] is None
    assert state["reason"] == "the model files are empty"
    assert pagecache.resident_pages(str(path)) == (0, 0)


def test_unreadable_file_makes_the_whole_fraction_none(tmp_path):
    good = _write(tmp_path / "a.gguf", MIB)
    missing = str(tmp_path / "gone.gguf")
    state = pagecache.residency([good, missing])
    assert state["resident_fraction"] is None
    assert state["reason"] == f"{missing}: No such file or directory"


def test_a_directory_is_not_mappable(tmp_path):
    state = pagecache.residency([str(tmp_path)])
    assert state["resident_fraction"] is None
    assert state["reason"] == f"{tmp_path}: not a regular file"


def test_a_fifo_is_refused_without_hanging(tmp_path):
    fifo = str(tmp_path / "pipe")
    os.mkfifo(fifo)
    assert pagecache.residency([fifo])["reason"] == f"{fifo}: not a regular file"


def test_no_files_says_how_to_name_them():
    state = pagecache.residency([])
    assert state["resident_fraction"] is None
    assert state["reason"] == "no model files found in the command (pass --model-file PATH)"


def test_label_thresholds():
    assert pagecache.label(0.0) == "cold"
    assert pagecache.label(0.0499) == "cold"
    assert pagecache.label(0.05) == "partial"
    assert pagecache.label(0.95) == "partial"
    assert pagecache.label(0.9501) == "warm"
    assert pagecache.label(1.0) == "warm"
    assert pagecache.label(None) is None


def test_evict_missing_file_names_it(tmp_path):
    missing = str(tmp_path / "nope.gguf")
    with pytest.raises(pagecache.PageCacheError, match=r"nope\.gguf: can't open to evict it"):
        pagecache.evict([missing])


def test_drop_caches_refuses_without_root(tmp_path):
    target = tmp_path / "drop_caches"
    with pytest.raises(pagecache.PageCacheError, match=r"needs root \(euid is 1000\).*evict\(\)"):
        pagecache.drop_caches(path=str(target), euid=1000)
    assert not target.exists()


def test_drop_caches_as_root_writes_1(tmp_path):
    target = tmp_path / "drop_caches"
    pagecache.drop_caches(path=str(target), euid=0)
    assert target.read_text() == "1"


def test_drop_caches_unwritable_target_says_what_to_do_instead(tmp_path):
    target = tmp_path / "no-such-dir" / "drop_caches"
    with pytest.raises(pagecache.PageCacheError, match=r"can't write: No such file or directory.*evict"):
        pagecache.drop_caches(path=str(target), euid=0)


def test_model_files_from_flags_big_files_and_directories(tmp_path):
    tiny = tmp_path / "tiny.gguf"
    tiny.write_bytes(b"GGUF" + b"\0" * 100)
    big = _write(tmp_path / "mmproj.bin", MIB)
    small = tmp_path / "prompt.txt"
    small.write_text("hello")
    hf = tmp_path / "hf"
    hf.mkdir()
    for name in ("model-00002-of-00002.safetensors", "model-00001-of-00002.safetensors", "config.json"):
        (hf / name).write_bytes(b"x")
    exe = _write(tmp_path / "llama-completion", 2 * MIB)
    argv = [exe, "-m", str(tiny), "--mmproj", big, "-f", str(small), "--model-dir", str(hf), "-p", "hi"]
    assert pagecache.model_files(argv) == [
        str(tiny), big, str(hf / "model-00001-of-00002.safetensors"), str(hf / "model-00002-of-00002.safetensors")]


def test_model_files_equals_form_split_gguf_extras_and_duplicates(tmp_path, monkeypatch):
    for i in (1, 2, 3):
        (tmp_path / f"big-{i:05d}-of-00003.gguf").write_bytes(b"x")
    extra = tmp_path / "adapter.gguf"
    extra.write_bytes(b"x")
    monkeypatch.chdir(tmp_path)
    argv = ["llama-completion", "--model=big-00001-of-00003.gguf", "-m", "./big-00001-of-00003.gguf",
            "-m", "org/hub-model-id", "-n", "16"]
    assert pagecache.model_files(argv, extra=["adapter.gguf"]) == [
        str(tmp_path / f"big-{i:05d}-of-00003.gguf") for i in (1, 2, 3)] + [str(extra)]


def test_model_files_skips_the_executable_and_a_flag_looking_value(tmp_path):
    exe = _write(tmp_path / "big-binary", 2 * MIB)
    assert pagecache.model_files([exe, "-m", "--verbose"]) == []
