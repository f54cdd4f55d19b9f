"""A hub model's weights before from_pretrained (docs/DESIGN.md §4.5, §6): the size cap checked from the hub's file
metadata before a byte of weights moves, then each weight file downloaded into huggingface_hub's cache with progress
(bytes done of total, rate, time left, per file) on the loader's progress channel, and Stop (a threading.Event)
ending the download. from_pretrained then finds the weights in the cache and fetches only the small files."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from .errors import ArenaError
from .hub import check_size, hub_error, hub_reachable, repo_info, transient, weight_files
from .words import msg

Progress = Callable[[str], None]

#: How every download progress message starts (a terminal shows these without --verbose).
DOWNLOADING = "Downloading "
#: Seconds between two progress messages of one file (the first and the last are always sent).
PROGRESS_EVERY_S = 1.0


class DownloadStopped(ArenaError):
    """Stop was pressed (or the race was stopped) while weights were downloading."""


@dataclass(frozen=True)
class HubPlan:
    """How from_pretrained may read a hub model: `kwargs` (local_files_only when nothing may download) and, when the
    hub failed in a way a cached copy survives, the `cause` to report should the cache not hold it either."""

    kwargs: dict[str, Any]
    cause: BaseException | None = None


def size_text(n: float) -> str:
    """Bytes as text in decimal units: '512 B', '3.4 MB', '18.0 GB'."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} B"


def progress_text(name: str, index: int, count: int, done: int, total: int | None, seconds: float) -> str:
    """One progress line: file (repo id/file name), its place among the repository's weight files, bytes done of
    total, rate and time left ('about 12 s left')."""
    rate = done / seconds if seconds > 0 else 0.0
    got, speed = size_text(done), size_text(rate)
    if not total:
        return msg("Downloading {name} ({index} of {count}): {got}, {speed}/s", name=name, index=index, count=count, got=got,
                   speed=speed)
    size = size_text(total)
    if rate <= 0 or done >= total:
        return msg("Downloading {name} ({index} of {count}): {got} of {size}, {speed}/s", name=name, index=index, count=count,
                   got=got, size=size, speed=speed)
    secs = (total - done) / rate  # each line whole, so the page can translate it (docs/DESIGN.md §4.10)
    if secs >= 90:
        return msg("Downloading {name} ({index} of {count}): {got} of {size}, {speed}/s, about {secs} min left", name=name,
                   index=index, count=count, got=got, size=size, speed=speed, secs=f"{secs / 60:.0f}")
    return msg("Downloading {name} ({index} of {count}): {got} of {size}, {speed}/s, about {secs} s left", name=name,
               index=index, count=count, got=got, size=size, speed=speed, secs=max(1, round(secs)))


class _Bar:
    """A tqdm stand-in huggingface_hub's http_get drives (``update(n)`` per chunk); reports through `progress` and
    raises :class:`DownloadStopped` from inside the download loop when `stop` is set (huggingface_hub then deletes
    its temporary file; completed files stay in the cache)."""

    def __init__(self, label: tuple[str, int, int], progress: Progress | None, stop: threading.Event | None,
                 total: int | None = None, initial: int = 0, **_: Any):
        self.label, self.progress, self.stop = label, progress, stop
        self.total, self.n, self.start, self.last = total, initial, time.monotonic(), 0.0

    def __enter__(self) -> "_Bar":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def update(self, n: int = 1) -> None:
        self.n += n
        if self.stop is not None and self.stop.is_set():
            raise DownloadStopped(msg("Stopped while downloading {label}: the files already downloaded stay in the local "
                                      "cache; the next load fetches only the rest.", label=self.label[0]))
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY_S or (self.total and self.n >= self.total):
            self.last = now
            self.report(now)

    def report(self, now: float) -> None:
        if self.progress:
            self.progress(progress_text(*self.label, self.n, self.total, now - self.start))

    def close(self) -> None:
        pass

    def set_description(self, *_: Any, **__: Any) -> None:
        pass


def _fetch(repo_id: str, revision: str | None, files: list[tuple[str, int]], progress: Progress | None,
           stop: threading.Event | None) -> None:
    """Download each of `files` into the cache (a file already there is not fetched again)."""
    from huggingface_hub import hf_hub_download

    for i, (name, _) in enumerate(files, 1):
        if stop is not None and stop.is_set():
            raise DownloadStopped(msg("Stopped before downloading {name} of '{repo_id}'.", name=name, repo_id=repo_id))

        def bar(**kwargs: Any) -> _Bar:
            return _Bar((f"{repo_id}/{name}", i, len(files)), progress, stop, **kwargs)

        hf_hub_download(repo_id, name, revision=revision, tqdm_class=bar)  # type: ignore[arg-type]


def _ask(repo_id: str, revision: str | None) -> tuple[Any, HubPlan | None]:
    """(the hub's ModelInfo, None) when the hub answers; (None, a cache-only plan) when it cannot be reached or fails
    in a way a cached copy survives (a server error, a timeout, a dropped connection: asking again through
    from_pretrained would retry with back-off for tens of seconds). ArenaError when the hub refuses."""
    if not hub_reachable():
        return None, HubPlan({"local_files_only": True})
    try:
        return repo_info(repo_id, revision), None
    except Exception as exc:  # huggingface_hub's errors, httpx's network errors
        if transient(exc):
            return None, HubPlan({"local_files_only": True}, exc)
        raise hub_error(repo_id, exc, revision) from None


def plan_file_read(repo_id: str, revision: str | None) -> HubPlan:
    """The :class:`HubPlan` for a read of small files (a tokenizer): nothing to cap, but the same answers as a
    model load when the hub refuses, and the local cache when it fails."""
    _, plan = _ask(repo_id, revision)
    return plan or HubPlan({})


def prepare_hub_load(repo_id: str, revision: str | None, max_bytes: int | None, progress: Progress | None = None,
                     stop: threading.Event | None = None) -> HubPlan:
    """Check the size cap and download the weights of `repo_id` at `revision` with progress, when downloads can
    happen; the :class:`HubPlan` for from_pretrained. ArenaError (one line, :func:`hub_error`) when the hub refuses.

    When the hub cannot be reached, or fails in a way a cached copy survives (a server error, a timeout, a dropped
    connection), the plan reads the local cache only: no download can happen, so no size is needed.
    """
    info, plan = _ask(repo_id, revision)
    if plan is not None:
        return plan
    files = weight_files(info)
    check_size(repo_id, files, max_bytes)
    try:
        _fetch(repo_id, revision, files, progress, stop)
    except ArenaError:
        raise
    except Exception as exc:
        raise hub_error(repo_id, exc, revision) from None
    return HubPlan({})
