"""Serializers (pure: record(s) → text) and the one appender that does file I/O."""
