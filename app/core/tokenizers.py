"""Tokenizer copies for threads: fast tokenizers are not thread-safe, so each user borrows an exclusive copy from a
:class:`TokenizerPool`, copies are made once and reused, and the original is only read (docs/DESIGN.md §7).
"""

from __future__ import annotations

import copy
import threading
from contextlib import contextmanager
from typing import Any, Iterator


class TokenizerPool:
    """Exclusive, reusable copies of one tokenizer."""

    def __init__(self, original: Any):
        self.original = original
        self._free: list[Any] = []
        self._lock = threading.Lock()
        self.copies_made = 0

    def acquire(self) -> Any:
        """A copy no other thread is using; give it back with :meth:`release`."""
        with self._lock:
            if self._free:
                return self._free.pop()
            self.copies_made += 1
        return copy.deepcopy(self.original)

    def release(self, tokenizer: Any) -> None:
        with self._lock:
            self._free.append(tokenizer)

    @contextmanager
    def borrow(self) -> Iterator[Any]:
        tok = self.acquire()
        try:
            yield tok
        finally:
            self.release(tok)
