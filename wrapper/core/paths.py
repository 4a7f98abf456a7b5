"""Where phasewrap keeps what it caches between runs (hashes, compiled modules): one place, read by every layer."""
from __future__ import annotations

import os


def cache_dir() -> str:
    """Where phasewrap keeps its caches: ``$PHASEWRAP_CACHE`` or ``~/.cache/phasewrap``."""
    return os.environ.get("PHASEWRAP_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "phasewrap")
