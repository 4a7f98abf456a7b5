"""Serializers (pure: record(s) → text) and the one writer (writer.py) that does their file I/O."""
