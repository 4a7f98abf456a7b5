"""phasewrap: split an LLM run into load, time to first token and decode."""

__version__ = "0.1.0"
