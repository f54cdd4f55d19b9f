"""Where a race or a benchmark ran: the one capture of the machine's names and library versions, for traces
(:func:`race_environment`, app/replay/tracefile.py) and benchmark results (:func:`bench_environment`,
app/bench/results.py)."""

from __future__ import annotations

import datetime as _dt
import os
import platform
from importlib import metadata
from typing import Any


def package_version(dist: str) -> str | None:
    """The installed version of the distribution `dist`; None when it is not installed."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def cpu_name() -> str:
    """The CPU model ("AMD EPYC 7763 64-Core Processor"), from /proc/cpuinfo on Linux, else the platform."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def device_name(device: str) -> str:
    """The GPU's name for a CUDA device ("cuda" or "cuda:N"), else the CPU model."""
    if str(device).startswith("cuda"):
        import torch

        if torch.cuda.is_available():
            index = int(str(device).split(":", 1)[1]) if ":" in str(device) else 0
            return torch.cuda.get_device_name(index)
    return cpu_name()


def library_versions() -> dict[str, Any]:
    """torch, transformers, gradio (None where not installed) and Python versions."""
    return {"torch": package_version("torch"), "transformers": package_version("transformers"),
            "gradio": package_version("gradio"), "python": platform.python_version()}


def local_device() -> str:
    """This machine's device for a benchmark's record: "cuda" when torch sees a GPU, else "cpu"."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def _where(device: str, dtype: str | None, name: str | None) -> dict[str, Any]:
    """The keys every capture starts with: device, device_name (`name`, else the GPU's or the CPU's), dtype, the
    library versions."""
    return {"device": str(device), "device_name": name or device_name(device), "dtype": dtype, **library_versions()}


def race_environment(device: str, dtype: str | None, threads_per_side: int | None,
                     name: str | None = None) -> dict[str, Any]:
    """Where a race ran, a trace's ``environment`` (docs/DESIGN.md §4.3): device and its name, dtype, library
    versions, torch threads per side (None on a GPU) and the cores. name: the label of the machine the tokens were
    made on when it is not this one (an engine's server); its cores are then unknown (None)."""
    return {**_where(device, dtype, name), "threads_per_side": threads_per_side,
            "cores": os.cpu_count() if name is None else None}


def bench_environment(dtypes: dict[str, str] | None = None) -> dict[str, Any]:
    """Where a benchmark's numbers were measured, its ``environment`` (docs/DESIGN.md §4.4): device and its name, the
    dtype (and dtypes per preset), library versions, platform, CPU, cores, torch threads, the date (UTC)."""
    import torch

    dtypes = dict(dtypes or {})
    where = _where(local_device(), ", ".join(sorted(set(dtypes.values()))) or None, None)
    return {**{k: where.pop(k) for k in ("device", "device_name", "dtype")}, "dtypes": dtypes, **where,
            "platform": platform.platform(terse=True), "cpu": cpu_name(), "cpu_cores": os.cpu_count(),
            "torch_threads": torch.get_num_threads(),
            "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")}


def peak_memory_bytes(device: str = "cpu") -> int | None:
    """The most memory this process has held so far (bytes): on a GPU the device's peak allocation, else the peak
    resident set (ru_maxrss, KiB on Linux); None where neither can be read."""
    if str(device).startswith("cuda"):
        import torch

        return int(torch.cuda.max_memory_allocated()) if torch.cuda.is_available() else None
    try:
        import resource
    except ImportError:  # not on this platform
        return None
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024
