"""What one forward pass costs on this machine: CPU threads per side (:func:`side_threads`, :func:`use_threads`)
and the verification cost curve (:func:`verify_cost`, docs/DESIGN.md §5.7, §5.12): verifying k drafts is one
target forward over k + 1 tokens, about one step on a GPU, growing with k on a CPU.
"""

from __future__ import annotations

import copy
import inspect
import statistics
import threading
import time
from dataclasses import dataclass
from typing import Any

import torch

#: The threads torch uses at import (every core unless OMP_NUM_THREADS says otherwise).
MACHINE_THREADS = torch.get_num_threads()
#: The clock per-round costs are read with (seconds). Tuning scripts on a busy machine may swap in
#: time.thread_time with one torch thread, so that other processes do not distort the measurements.
CLOCK = time.perf_counter
_threads_lock = threading.Lock()
_verify_cache: dict[tuple, "VerifyCost"] = {}
_verify_lock = threading.Lock()


def side_threads(device: str, concurrent: bool) -> int | None:
    """Threads for one side of a race: half the cores each in a concurrent CPU race (so neither side slows the
    other down when it finishes first), all of them otherwise (None on a GPU, where CPU threads do not decide)."""
    if str(device).startswith("cuda"):
        return None
    return max(1, MACHINE_THREADS // 2) if concurrent else MACHINE_THREADS


def use_threads(n: int | None) -> None:
    """Run this thread's torch operations on `n` threads, leaving other threads' settings (and the default
    new threads start with) as they were. ``torch.set_num_threads`` sets both the caller's count and the
    process default, so the default is put back from a short-lived helper thread."""
    if not n:
        return
    with _threads_lock:
        torch.set_num_threads(n)
        helper = threading.Thread(target=torch.set_num_threads, args=(MACHINE_THREADS,), name="threads-restore")
        helper.start()
        helper.join()


@dataclass(frozen=True)
class VerifyCost:
    """step_seconds: one target forward of one token with the prompt in the KV cache; slope: the extra share of
    that step each additional verified token costs ((t(k+1 tokens) / t(1 token) - 1) / k; about 0 on a GPU)."""

    step_seconds: float
    slope: float
    tokens: int

    def seconds(self, k: int) -> float:
        """Predicted seconds of a verification pass over k drafts (k + 1 tokens)."""
        return self.step_seconds * (1.0 + self.slope * k)


def sync(device: str) -> None:
    """Wait for the device's queued work (a no-op on the CPU), so a clock read after it sees the work done."""
    if str(device).startswith("cuda"):
        torch.cuda.synchronize()


@torch.inference_mode()
def verification_samples(model: Any, input_ids: torch.Tensor, ids: torch.Tensor,
                         repeats: int) -> tuple[list[float], list[float]]:
    """Time verification passes: prefill `input_ids` (not timed), then `repeats` times a one-token and an m-token
    forward of `ids` (m = its length), each over a fresh copy of the prompt's KV cache, after one warm-up of each.

    Returns (seconds of each one-token pass, each repetition's slope (t(m) / t(1) - 1) / (m - 1)). The one timer
    behind both the race's verification curve and the planner's slope (docs/DESIGN.md §5)."""
    params = inspect.signature(model.forward).parameters
    cache_kwarg = "cache" if "cache" in params else "past_key_values"
    out = model(input_ids=input_ids.to(model.device), use_cache=True)
    cache0 = out.get("cache") if out.get("cache") is not None else out.get("past_key_values")
    ids, device = ids.to(model.device), str(model.device)

    def once(n: int) -> float:
        cache = copy.deepcopy(cache0)
        sync(device)
        start = CLOCK()
        model(input_ids=ids[:, :n], use_cache=True, **{cache_kwarg: cache})
        sync(device)
        return CLOCK() - start

    m = ids.shape[1]
    once(1), once(m)
    ones, slopes = [], []
    for _ in range(repeats):
        one, many = once(1), once(m)
        ones.append(one)
        slopes.append((many / one - 1.0) / (m - 1))
    return ones, slopes


def verify_cost(model: Any, input_ids: torch.Tensor, threads: int | None, k: int = 8, repeats: int = 3,
                key: str = "") -> VerifyCost:
    """The verification curve of `model` at this prompt length and thread count (measured once, then cached).

    Runs in a helper thread that uses `threads` (so the measurement matches the side that will verify).
    key: names the model in the cache (its spec); prompt lengths are bucketed by 128 tokens.
    """
    cache_key = (key or id(model), str(model.device), threads, input_ids.shape[1] // 128)
    with _verify_lock:
        if cache_key in _verify_cache:
            return _verify_cache[cache_key]
    box: dict[str, Any] = {}

    def run() -> None:
        use_threads(threads)
        try:
            ones, slopes = verification_samples(model, input_ids.to(model.device), input_ids[:, -1:].repeat(1, k + 1),
                                                repeats)
            box["cost"] = VerifyCost(statistics.median(ones), max(0.0, statistics.median(slopes)), k)
        except BaseException as exc:  # noqa: BLE001 - handed back below
            box["error"] = exc

    helper = threading.Thread(target=run, name="verify-cost")
    helper.start()
    helper.join()
    if "error" in box:
        raise box["error"]
    with _verify_lock:
        _verify_cache[cache_key] = box["cost"]
    return box["cost"]
