"""The app-owned temporary folders downloads are written to, one per kind, pruned on every write (docs/DESIGN.md
§4.5); never a path a user chose."""

from __future__ import annotations

import functools
import re
import shutil
import tempfile
import time
import uuid
from pathlib import Path

#: Entries (files, or a benchmark's folder) kept per kind, newest first.
KEEP_ENTRIES = 200
#: Age after which an entry is removed (seconds): long enough to download what a page shows.
MAX_AGE_SECONDS = 6 * 3600


@functools.lru_cache(maxsize=None)
def export_dir(kind: str) -> Path:
    """The folder for `kind` ("plans", "bench", "replays"), created on first use."""
    return Path(tempfile.mkdtemp(prefix=f"arena-{kind}-"))


def prune(folder: Path, keep: int = KEEP_ENTRIES, max_age: float = MAX_AGE_SECONDS) -> int:
    """Remove entries of `folder` older than `max_age` seconds and the oldest beyond `keep`; returns how many went."""
    entries = sorted(folder.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True)
    now, removed = time.time(), 0
    for rank, entry in enumerate(entries):
        try:
            if rank >= keep or now - entry.stat().st_mtime > max_age:
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
                removed += 1
        except OSError:  # removed meanwhile by another request
            continue
    return removed


def unique_stem(kind: str, name: str) -> Path:
    """A fresh path without suffix in :func:`export_dir` (pruned first): `name` made filename-safe, a timestamp and a
    random tag."""
    folder = export_dir(kind)
    prune(folder)
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name)[:60] or kind
    return folder / f"{safe}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
