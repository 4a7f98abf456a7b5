"""Samplers that read GPU and CPU beside the child, and parsers for the same tools' recorded output."""
from .anchor import Anchor
from .factory import Sampler, UnavailableSampler, make_samplers
from .dmon import DmonSampler, parse_dmon
from .nvml import NvmlSampler, busy_gpu_processes
from .pidstat import PidstatSampler, parse_pidstat
from .proc import ProcSampler
from .query_gpu import parse_query_gpu

__all__ = [
    "Anchor", "Sampler", "UnavailableSampler", "make_samplers", "DmonSampler", "parse_dmon", "NvmlSampler",
    "busy_gpu_processes", "PidstatSampler", "parse_pidstat", "ProcSampler", "parse_query_gpu",
]
