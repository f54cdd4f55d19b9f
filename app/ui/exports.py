"""The app-owned temporary folders that downloads (planner exports, benchmark results, traces and replay pages)
are written to: one per kind, created once per process; never a path a user (or a share link's visitor) chose."""

from __future__ import annotations

import functools
import re
import tempfile
import time
import uuid
from pathlib import Path


@functools.lru_cache(maxsize=None)
def export_dir(kind: str) -> Path:
    """The folder for `kind` ("plans", "bench", "replays"), created on first use."""
    return Path(tempfile.mkdtemp(prefix=f"arena-{kind}-"))


def unique_stem(kind: str, name: str) -> Path:
    """A fresh path without suffix in :func:`export_dir`: `name` made filename-safe, a timestamp and a random tag."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)[:60] or kind
    return export_dir(kind) / f"{safe}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
