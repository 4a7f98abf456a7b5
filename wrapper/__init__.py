"""phasewrap: split an LLM run into load, time to first token and decode.

    import wrapper as phasewrap
    records = phasewrap.run(["llama-completion", "-m", "model.gguf", "-p", "Hello", "-n", "64", "-no-cnv"])

The names in ``__all__`` are loaded on first use (``__getattr__``), so ``import wrapper`` costs next to nothing.
``wrapper.analyze``, ``compare``, ``diagnose``, ``plot`` and ``report`` are the library functions, although
modules of those names exist too: reach a module's contents with ``from wrapper.plot import timeline``.
"""
import sys
import types

__version__ = "0.1.0"

__all__ = ["run", "analyze", "compare", "diagnose", "plot", "report", "read_records", "RunRecords",
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


class _Package(types.ModuleType):
    """Importing a submodule sets it as an attribute of its package; for the API's names, the function stays."""

    def __setattr__(self, name: str, value) -> None:
        if name in __all__ and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
