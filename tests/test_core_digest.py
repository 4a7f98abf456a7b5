"""core/digest.py: the interpreter's own sha256 gives hashlib's digest (and keeps hashlib off the run path)."""
import hashlib
import subprocess
import sys

from wrapper.core.digest import sha256_hex


def test_the_digest_is_hashlibs():
    for data in (b"", b"abc", "ünïcode".encode(), bytes(range(256)) * 300):
        assert sha256_hex(data) == hashlib.sha256(data).hexdigest()


def test_a_run_does_not_import_hashlib():
    code = ("import sys; sys.argv = ['phasewrap', 'run', '-q', '--format', 'none', '--', 'true']\n"
            "from wrapper import cli\ntry:\n    cli.main()\nexcept SystemExit:\n    pass\n"
            "print('hashlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == "False"
