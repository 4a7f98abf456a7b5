"""llama-bench markdown, CSV, JSON and JSONL results -> one dict per result row; exact values as printed."""

from wrapper.derive.frameworks import parse_lines
from .conftest import log_fixture



def parse(name: str, framework=None) -> list[dict]:
    with open(log_fixture(name), encoding="utf-8") as fh:
        return parse_lines(fh, framework)


def row(r: dict) -> tuple:
    """(test, tokens, t/s, ± stddev) of a result, from the fields each kind of test fills."""
    x = r["extra"]
    if x["test"].startswith("pp") and "+" not in x["test"]:
        assert r["eval_tokens"] is None and r["eval_tps"] is None
        return x["test"], r["prompt_tokens"], r["prompt_tps"], x["tps_stddev"]
    if x["test"].startswith("tg"):
        assert r["prompt_tokens"] is None and r["prompt_tps"] is None
        return x["test"], r["eval_tokens"], r["eval_tps"], x["tps_stddev"]
    return x["test"], (r["prompt_tokens"], r["eval_tokens"]), x["pg_tps"], x["tps_stddev"]


def test_2024_markdown_old_test_names_and_extra_column():
    runs = parse("llama-bench__2024-01-old-format-pp-512-tg-128-nkvo-cuda.log")
    assert {r["framework"] for r in runs} == {"llama-bench"}
    assert {r["version"] for r in runs} == {"32d9f7d9 (1786)"}  # printed after the table, applies to every row
    assert [row(r) for r in runs] == [("pp512", 512, 4035.47, 157.68), ("tg128", 128, 127.43, 0.18),
                                      ("pp512", 512, 237.84, 10.28), ("tg128", 128, 59.99, 2.35)]
    assert [r["extra"]["nkvo"] for r in runs] == ["0", "0", "1", "1"]
    assert runs[0]["extra"] == {"model": "llama 7B Q4_0", "size": "3.56 GiB", "params": "6.74 B", "backend": "CUDA",
                                "ngl": "99", "nkvo": "0", "test": "pp512", "tps_stddev": 157.68,
                                "model_size_mib": 3645.44, "model_params_billions": 6.74}  # the two cells as numbers
    assert all(r["prompt_eval_ms"] is None and r["eval_ms"] is None for r in runs)  # markdown prints rates only


def test_2026_markdown_new_test_names_without_build_line():
    runs = parse("llama-bench__lfm2-1.2B-Q8_0-rocm.log")
    assert [row(r) for r in runs] == [("pp512", 512, 18271.27, 142.69), ("tg128", 128, 346.34, 3.38)]
    assert [r["version"] for r in runs] == [None, None]
    assert runs[1]["extra"]["backend"] == "ROCm" and runs[1]["extra"]["ngl"] == "100"


def test_markdown_combined_pp_tg_test():
    runs = parse("llama-bench__cpu-tiny-llama-md-pp-tg-pg.log")
    assert [row(r) for r in runs] == [("pp32", 32, 6657.46, 1835.43), ("tg8", 8, 498.15, 33.97),
                                      ("pp32+tg8", (32, 8), 2106.70, 7.42)]
    assert runs[2]["prompt_tps"] is None and runs[2]["eval_tps"] is None
    assert {r["version"] for r in runs} == {"0c1e57098 (1)"}


def test_markdown_n_cpu_moe_column_goes_to_moe_experts_cpu():
    runs = parse("llama-bench__cpu-tiny-lfm2moe-n-cpu-moe-2.log")
    assert [row(r) for r in runs] == [("pp16", 16, 2739.49, 0.00), ("tg4", 4, 151.06, 0.00)]
    assert [r["moe_experts_cpu"] for r in runs] == [
        {"exps_tensors_cpu": None, "exps_tensors_other": None, "cpu_model_mib": None, "n_cpu_moe": 2}] * 2


def test_csv_maps_columns_by_header():
    runs = parse("llama-bench__cpu-tiny-llama-o-csv.log")
    assert [row(r) for r in runs] == [("pp32", 32, 7009.281714, 66.895679), ("tg8", 8, 122.434180, 4.490199)]
    assert (runs[0]["prompt_eval_ms"], runs[0]["extra"]["stddev_ms"]) == (4.565583, 0.043573)  # avg_ns 4565583
    assert (runs[1]["eval_ms"], runs[1]["extra"]["stddev_ms"]) == (65.385202, 2.397989)
    assert {r["version"] for r in runs} == {"0c1e57098 (1)"}
    assert runs[0]["extra"] == {"model": "llama ?B all F32", "backend": "CPU", "ngl": "-1", "gpu_info": "",
                                "test_time": "2026-11-30T00:55:54Z", "tensor_buft_overrides": "none", "test": "pp32",
                                "tps_stddev": 66.895679, "stddev_ms": 0.043573}
    assert all(r["moe_experts_cpu"] is None for r in runs)  # n_cpu_moe 0


def test_json_array_of_pretty_printed_objects():
    runs = parse("llama-bench__cpu-tiny-llama-o-json.log")
    assert [row(r) for r in runs] == [("pp32", 32, 8035.463121, 186.491188), ("tg8", 8, 361.668008, 6.050064)]
    assert (runs[0]["prompt_eval_ms"], runs[1]["eval_ms"]) == (3.983419, 22.122829)
    assert {r["version"] for r in runs} == {"0c1e57098 (1)"}


def test_jsonl_one_object_per_line():
    runs = parse("llama-bench__cpu-tiny-llama-o-jsonl.log")
    assert [row(r) for r in runs] == [("pp32", 32, 7439.679310, 210.861676), ("tg8", 8, 309.691368, 67.873321)]
    assert (runs[0]["prompt_eval_ms"], runs[1]["eval_ms"]) == (4.302989, 26.467835)


def test_named_framework_gives_the_same_rows():
    name = "llama-bench__cpu-tiny-llama-o-csv.log"
    assert parse(name, "llama-bench") == parse(name)


def test_rows_pasted_without_their_header_show_their_own_columns():
    # ikawrakow/ik_llama.cpp issue #263 (2025-03, held-out round 93): llama-bench rows pasted without the header;
    # the model, size and params first and the test and its rate last say what they are; a grep's name before
    # them (round 56's "lcp q8_0 | …") moves the columns by one
    from wrapper.derive.frameworks import parse_lines

    row = ("| deepseek2 671B Q8_0            | 307.20 GiB |   672.05 B | CUDA       |  63 |    4096 |     1024 |  1 |"
           "   2 |    64 |    1 |         tg256 |     17.83 ± 0.03 |")
    (rep,) = parse_lines([row])
    assert rep["framework"] == "llama-bench" and rep["eval_tps"] == 17.83 and rep["extra"]["tps_stddev"] == 0.03
    assert rep["extra"]["model_size_mib"] == 307.20 * 1024 and "" not in rep["extra"]
    grep = "lcp q8_0 | qwen3 4B Q8_0                  |   3.98 GiB |     4.02 B | CPU        |      16 |    tg128 @ d128 |         30.70 ± 0.01 |"
    (rep,) = parse_lines([grep])
    assert rep["eval_tps"] == 30.70 and rep["extra"]["depth_tokens"] == 128


def test_a_plus_sign_in_place_of_the_plus_minus():
    # llama-bench over RPC on an Arc A770 (held-out round 160): the paste turned "±" into "+"
    lines = ["| model                          |       size |     params | backend    | ngl | fa |            test |                  t/s |",
             "| ------------------------------ | ---------: | ---------: | ---------- | --: | -: | --------------: | -------------------: |",
             "| llama 7B Q4_0                  |   3.56 GiB |     6.74 B | RPC,Vulkan | 100 |  0 |           pp512 |        903.49 + 3.16 |",
             "| llama 7B Q4_0                  |   3.56 GiB |     6.74 B | RPC,Vulkan | 100 |  0 |           tg128 |         50.90 + 0.06 |"]
    runs = parse_lines(lines)
    assert [row(r) for r in runs] == [("pp512", 512, 903.49, 3.16), ("tg128", 128, 50.9, 0.06)]
