"""The exceptions the library raises to its callers; the CLI maps them to exit statuses (2 / 127 / 3).

Kept free of imports so that ``except wrapper.UsageError`` costs nothing to set up.
"""


class UsageError(ValueError):
    """Bad input (an option, a file, a path): the one-line message names it and the fix. CLI exit status 2."""


class StartError(Exception):
    """The command could not be started (not found, not executable). CLI exit status 127."""


class GpuBusy(Exception):
    """``require_idle_gpu`` and other processes hold GPU memory. CLI exit status 3.

    ``processes``: ``[{"device", "pid", "name", "vram_mib"}]`` as ``sampling.busy_gpu_processes`` gives them.
    """

    def __init__(self, message: str, processes: list) -> None:
        super().__init__(message)
        self.processes = processes
