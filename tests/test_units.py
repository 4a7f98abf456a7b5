"""The one number grammar (units.py) and the line feeder's robustness: locales, ANSI codes, odd values, \\r."""
import pytest

from wrapper.derive import frameworks
from wrapper.derive.frameworks import units, warn_rules


@pytest.mark.parametrize("text, value", [
    ("1,234.5", 1234.5), ("1.234,5", 1234.5), ("285,92", 285.92), ("0,5", 0.5), ("396,928", 396928.0),
    ("1\u202f234,5", 1234.5), ("1 234,56", 1234.56), ("1'234.5", 1234.5), ("12", 12.0), ("-3.25", -3.25),
    ("nan", None), ("-inf", None), ("", None), ("1,2,3", None), ("1.#INF00", None), ("-nan(ind)", None),
])
def test_number_whatever_the_locale(text, value):
    assert units.number(text) == value


def test_a_known_decimal_comma_locale_decides_the_ambiguous_cases():
    assert units.number("1,234") == 1234.0
    assert units.number("1,234", decimal_comma=True) == 1.234
    assert units.integer("1.024", decimal_comma=True) == 1024
    assert units.integer("12,5") is None


@pytest.mark.parametrize("text, ms", [
    ("285,92 ms", 285.92), ("1.5 s", 1500.0), ("2 seconds", 2000.0), ("850µs", 0.85), ("850 us", 0.85),
    ("1m2.3s", 62300.0), ("2m27.98s", 147980.0), ("18.016616627s", 18016.616627), ("3 min", 180000.0),
    ("0", 0.0), ("12 parsecs", None), ("fast", None),
])
def test_durations_to_ms(text, ms):
    assert units.duration_ms(text) == ms


def test_sizes_to_mib():
    assert units.size_mib("11.9 GiB") == 12185.6
    assert units.size_mib("936,0 MiB") == 936.0
    assert units.size_mib("1,048,576 KiB") == 1024.0
    assert units.size_mib("12 apples") is None


def _one(lines):
    [report] = frameworks.parse_lines(lines)
    return report


def test_decimal_comma_perf_block_keeps_every_figure_and_its_token_counts():
    r = _one(["llama_print_timings:        load time =   285,92 ms\n",
              "llama_print_timings: prompt eval time =  1234,50 ms /    12 tokens (  102,88 ms per token,     9,72 tokens per second)\n",
              "llama_print_timings:        eval time =  5000,00 ms /   100 runs   (   50,00 ms per token,    20,00 tokens per second)\n"])
    assert (r["load_ms"], r["prompt_eval_ms"], r["prompt_tokens"], r["prompt_tps"]) == (285.92, 1234.5, 12, 9.72)
    assert (r["eval_ms"], r["eval_tokens"], r["eval_tps"]) == (5000.0, 100, 20.0)


def test_an_odd_value_loses_itself_not_its_line_or_block():
    r = _one(["llama_print_timings: prompt eval time =    10.00 ms /     5 tokens (    2.00 ms per token,   500.00 tokens per second)\n",
              "llama_print_timings:        eval time =  1.#INF00 ms /   128 runs   (  -nan(ind) ms per token,     1.07 tokens per second)\n",
              "llama_print_timings:       total time =   200.00 ms\n"])
    assert r["eval_ms"] is None and r["eval_tokens"] == 128 and r["eval_tps"] == 1.07
    assert (r["prompt_eval_ms"], r["total_ms"]) == (10.0, 200.0)


def test_ansi_colours_and_text_glued_in_front_of_a_perf_line():
    r = _one(["\x1b[33mllama_perf_context_print:        load time =     574.28 ms\x1b[0m\n",
              "and the answer is llama_perf_context_print: prompt eval time =       9.32 ms /     7 tokens "
              "(    1.33 ms per token,   751.40 tokens per second)\n"])
    assert (r["load_ms"], r["prompt_eval_ms"], r["prompt_tokens"]) == (574.28, 9.32, 7)


def test_carriage_return_progress_redraws_then_a_log_line():
    r = _one(["Loading  10%\rLoading  50%\rLoading 100%\rllama_perf_context_print:        load time =     12.00 ms\n"])
    assert r["load_ms"] == 12.0


def test_perf_line_of_an_unknown_kind_is_reported_as_unparsed():
    r = _one(["llama_perf_context_print:        load time =     574.28 ms\n",
              "llama_perf_context_print:     reserve time =      3.10 ms\n"])
    assert r["load_ms"] == 574.28
    assert r["unparsed"] == {"count": 1, "lines": ["llama_perf_context_print:     reserve time =      3.10 ms"]}


def test_unparsed_is_null_when_every_figure_line_was_read():
    assert _one(["llama_perf_context_print:        load time =     574.28 ms\n"])["unparsed"] is None


@pytest.mark.parametrize("line, kind", [
    ("done_getting_tensors: tensor 'token_embd.weight' (q6_K) (and 0 others) cannot be used with preferred buffer "
     "type CUDA_Host, using CPU instead", "cpu_fallback"),
    ("llm_load_tensors: tensor 'blk.0.ffn_down.weight' (iq1_s) cannot be used with preferred buffer type Vulkan0, "
     "using CPU instead", "cpu_fallback"),
    ("0.00.022.417 W llm_load_tensors: tensor 'token_embd.weight' (f16) (and 124 others) cannot be used with "
     "preferred buffer type AMX, using CPU instead", None),
    ("done_getting_tensors: tensor 'token_embd.weight' (f32) (and 64 others) cannot be used with preferred buffer "
     "type CPU_REPACK, using CPU instead", None),
])
def test_preferred_buffer_type_fallback(line, kind):
    assert warn_rules.classify(line) == kind


def test_llama_bench_row_with_an_odd_rate_keeps_its_test_and_counts():
    first, second = frameworks.parse_lines(["| model | size | params | backend | ngl | test | t/s |\n",
                                            "| llama 7B | 3 GiB | 7 B | CUDA | 99 | pp512 | nan ± nan |\n",
                                            "| llama 7B | 3 GiB | 7 B | CUDA | 99 | tg128 | 12.50 ± 0.10 |\n"])
    assert (first["prompt_tokens"], first["prompt_tps"], first["extra"]["test"]) == (512, None, "pp512")
    assert first["unparsed"]["count"] == 1 and "nan ± nan" in first["unparsed"]["lines"][0]
    assert (second["eval_tokens"], second["eval_tps"], second["unparsed"]) == (128, 12.5, None)


@pytest.mark.parametrize("text, ms", [("7m 51s", 471000.0), ("1 min 19 seconds", 79000.0),
                                      ("2 hours, 3 minutes", 7380000.0), ("1h 2m 3.5s", 3723500.0),
                                      ("1.2s 1.3s", None), ("3s 2m", None), ("5 min", None)])
def test_spoken_durations_larger_parts_first(text, ms):
    assert units.spoken_duration_ms(text) == ms
