"""sha256 of short texts without importing ``hashlib`` on every run.

``hashlib`` loads OpenSSL's binding (~3.5 ms of each run's start-up); the interpreter's own sha256 (``_sha2``
since Python 3.12, ``_sha256`` before) gives the same digest for the few bytes of an argument list or a cache
key. A file of megabytes is hashed through ``hashlib`` (OpenSSL is faster there), imported where that is done.
"""
from __future__ import annotations

try:
    from _sha2 import sha256 as _sha256
except ImportError:
    try:
        from _sha256 import sha256 as _sha256
    except ImportError:  # an interpreter without the builtin modules
        from hashlib import sha256 as _sha256


def sha256_hex(data: bytes) -> str:
    """The hex sha256 of ``data``."""
    return _sha256(data).hexdigest()
