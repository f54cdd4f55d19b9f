"""Where a race or a benchmark ran: the one capture of the machine's names and library versions, read one way for
traces (app/replay/tracefile.py) and benchmark results (app/bench/results.py)."""

from __future__ import annotations

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
