"""phasewrap: split an LLM run into load, time to first token and decode.

    import wrapper as phasewrap
    records = phasewrap.run(["llama-completion", "-m", "model.gguf", "-p", "Hello", "-n", "64", "-no-cnv"])

The names in ``__all__`` are loaded on first use (``__getattr__``), so ``import wrapper`` costs next to nothing.
The package's folders are its layers, data flowing from each to the next: ``model`` (events, the record's
phase and metric tables, profiles) → ``measure`` (launch, samplers, requests, the machine) → ``derive`` (markers,
phases, load steps, the record, framework parsers) → ``sources`` (a live run, replays, the one input reader) →
``method`` (statistics, compare, diagnose, fleet) → ``present`` (text, exporters, plots, the HTML report).
"""
__version__ = "0.1.0"

__all__ = ["run", "analyze", "compare", "diagnose", "plan", "merge", "by_host", "diagnose_by_host", "env", "plot",
           "report", "read_records", "file_dates", "RunRecords", "check", "baselines",
           "UsageError", "StartError", "GpuBusy", "__version__"]

_FROM = {"UsageError": "errors", "StartError": "errors", "GpuBusy": "errors"}


def __getattr__(name: str):
    if name in __all__:
        import importlib

        value = getattr(importlib.import_module(f".{_FROM.get(name, 'api')}", __name__), name)
        globals()[name] = value  # later look-ups don't come here
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))

