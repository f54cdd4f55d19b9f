"""How much a visitor may upload and how much of it the server keeps (docs/DESIGN.md §4.5). The cap on one upload
request (app/ui/uploads.py ``UploadCap``) bounds a request, not a visitor: distinct content defeats gradio's
content-hash folders, and its cache is swept of old files only every hour. So the :class:`UploadLedger` counts

- each visitor's upload bytes over a sliding window (:attr:`UploadLimits.per_visitor` per :attr:`UploadLimits.window`
  seconds), and
- the bytes of every upload still on disk plus those in flight (:attr:`UploadLimits.cache`),

and refuses an upload over either before a byte of it is read; an upload no event used within
:attr:`UploadLimits.unused` seconds is removed (the page's upload boxes start an event the moment a file arrives, so
only a file a raw client sent and never used waits that long). No gradio here: the middleware and the page wire it.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

#: Seconds a visitor's uploads count against their budget.
UPLOAD_WINDOW = 600.0
#: Seconds an upload that no event used stays on disk.
UNUSED_SECONDS = 600.0
#: The least a stored file counts for in the cache's total (bytes): a file takes at least a block of disk, however
#: small (a raw client can send a thousand empty files in one request).
MIN_FILE_BYTES = 4096
#: The refusals' keys in the tables of words (app/core/words/*/limits.json).
OVER_BUDGET, CACHE_FULL = "limits.upload_budget", "limits.upload_cache_full"


@dataclass(frozen=True)
class UploadLimits:
    """per_visitor: bytes one visitor may upload within `window` seconds; cache: bytes of uploads kept at once (each
    None: no limit); unused: seconds an upload no event used is kept."""

    per_visitor: int | None = None
    cache: int | None = None
    window: float = UPLOAD_WINDOW
    unused: float = UNUSED_SECONDS


@dataclass
class Ticket:
    """An admitted upload in flight: its visitor, the bytes reserved for it, and its entry in the visitor's window
    ([when, bytes], the bytes replaced by those that came when it ends)."""

    visitor: str
    reserved: int
    entry: list


@dataclass
class _Stored:
    bytes: int  # what the file counts for in the cache's total
    when: float
    used: bool = False


class UploadLedger:
    """Upload budgets of one page (see the module docstring). Thread-safe; `clock` gives seconds (monotonic), and
    `forget(path)` is called for each file removed (the page drops it from gradio's set of uploaded files)."""

    def __init__(self, limits: UploadLimits, clock: Callable[[], float] = time.monotonic,
                 forget: Callable[[str], None] | None = None):
        self.limits, self.clock, self.forget = limits, clock, forget or (lambda path: None)
        self.lock = threading.Lock()
        self.sent: dict[str, list[list]] = {}  # visitor -> [[when, bytes], ...] within the window
        self.stored: dict[str, _Stored] = {}  # path of a stored upload -> what it counts for
        self.held = 0  # bytes of the stored uploads (each at least MIN_FILE_BYTES) plus those reserved in flight
        self.last_sweep = -float("inf")

    def admit(self, visitor: str, length: int) -> Ticket | str:
        """Reserve `length` bytes (an upload request's body, or the most it may carry) for `visitor`: a Ticket, or the
        key of the refusal (:data:`OVER_BUDGET`, :data:`CACHE_FULL`) when the upload would pass a limit."""
        with self.lock:
            now = self.clock()
            recent = [e for e in self.sent.get(visitor, []) if now - e[0] < self.limits.window]
            self.sent[visitor] = recent
            if self.limits.per_visitor is not None and sum(e[1] for e in recent) + length > self.limits.per_visitor:
                return OVER_BUDGET
            if self.limits.cache is not None and self.held + length > self.limits.cache:
                self._drop_missing()  # files gradio's own sweep removed no longer count
                if self.held + length > self.limits.cache:
                    return CACHE_FULL
            entry = [now, length]
            recent.append(entry)
            self.held += length
            return Ticket(visitor, length, entry)

    def settle(self, ticket: Ticket, seen: int, paths: list[str]) -> None:
        """The upload of `ticket` ended: `seen` bytes of it came in (they count against its visitor), and gradio
        stored the files `paths` (none when it failed or was refused)."""
        with self.lock:
            self.held -= ticket.reserved
            ticket.entry[1] = seen
            now = self.clock()
            for path in paths:
                old = self.stored.pop(path, None)  # the same file uploaded again replaces itself on disk
                self.held -= old.bytes if old else 0
                self.stored[path] = _Stored(max(_size(path), MIN_FILE_BYTES), now, bool(old and old.used))
                self.held += self.stored[path].bytes
        self.sweep()

    def used(self, path: str) -> None:
        """An event received the upload `path` (a value any client may send: only looked up, never opened)."""
        with self.lock:
            stored = self.stored.get(path)
            if stored is not None:
                stored.used = True

    def sweep(self) -> int:
        """Remove the uploads no event used within `limits.unused` seconds (at most every tenth of that, and every
        minute); returns how many were removed."""
        with self.lock:
            now = self.clock()
            if now - self.last_sweep < min(60.0, self.limits.unused / 10):
                return 0
            self.last_sweep = now
            stale = [p for p, s in self.stored.items() if not s.used and now - s.when >= self.limits.unused]
            for path in stale:
                self.held -= self.stored.pop(path).bytes
        for path in stale:
            _remove(path)
            self.forget(path)
        return len(stale)

    def _drop_missing(self) -> None:
        """Forget the stored uploads no longer on disk (gradio's hourly sweep removed them). Under the lock."""
        for path in [p for p in self.stored if not os.path.exists(p)]:
            self.held -= self.stored.pop(path).bytes


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _remove(path: str) -> None:
    """Delete an upload and its folder (gradio keeps each upload in a folder named by its content's hash) once empty."""
    try:
        os.remove(path)
        Path(path).parent.rmdir()
    except OSError:  # already gone, or the folder still holds another upload of the same content
        pass
