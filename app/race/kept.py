"""Kept plain runs for the fair race (docs/DESIGN.md §1, the fair race).

A plain run depends only on the target, the encoded prompt and the decoding settings, not on the assisted method,
so the fair race keeps its recent plain runs and races a new assisted side against one (§1 lists the key).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from .protocol import Token


@dataclass(frozen=True)
class KeptRun:
    """A finished plain run: its tokens (texts decoded in context), their times in seconds from the start of its
    generate(), its wall time and time to first token, when it was recorded (seconds since the epoch) and the share of the CPU it
    got (app/race/_sides.py ``CpuShare``; None: not measured)."""

    token_ids: tuple[int, ...]
    tokens: tuple[Token, ...]
    token_times: tuple[float, ...]
    seconds: float
    ttft: float | None
    recorded_at: float
    cpu_share: float | None = None


def kept_key(setup: Any, seed: int | None, threads: int) -> tuple | None:
    """What determines `setup`'s plain run on this machine (see the module docstring); None when it is random."""
    p = setup.preset
    if p.do_sample and seed is None:
        return None
    sampling = (p.temperature, p.top_p, seed) if p.do_sample else ()
    return (p.target, p.tokenizer, p.dtype, p.quantization, p.device_map, str(setup.device), threads,
            tuple(setup.input_ids[0].tolist()), p.max_new_tokens, p.do_sample, sampling)


class KeptRuns:
    """The most recent `size` kept runs, least recently used dropped first; safe across threads."""

    def __init__(self, size: int = 16):
        self.size = size
        self._runs: OrderedDict[tuple, KeptRun] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple | None) -> KeptRun | None:
        if key is None:
            return None
        with self._lock:
            run = self._runs.get(key)
            if run is not None:
                self._runs.move_to_end(key)
            return run

    def put(self, key: tuple | None, run: KeptRun) -> None:
        if key is None:
            return
        with self._lock:
            self._runs[key] = run
            self._runs.move_to_end(key)
            while len(self._runs) > self.size:
                self._runs.popitem(last=False)

    def drop(self, key: tuple | None, run: KeptRun) -> None:
        """Forget `run` under `key` (a kept run found stale), unless another race has kept a newer one there."""
        with self._lock:
            if key is not None and self._runs.get(key) is run:
                del self._runs[key]

    def clear(self) -> None:
        with self._lock:
            self._runs.clear()


def kept_from(record: Any, cpu_share: float | None = None) -> KeptRun:
    """A KeptRun of a finished side's record (token ids, tokens, times, seconds, time to first token) and the share of
    the CPU it got."""
    return KeptRun(tuple(record.token_ids), tuple(record.tokens), tuple(record.token_times), record.seconds,
                   record.ttft, time.time(), cpu_share)


#: The page's kept runs (one process, shared by every visitor: a plain run reveals nothing the prompt did not).
KEPT_RUNS = KeptRuns()
