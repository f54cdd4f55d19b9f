"""The working side of a race (docs/DESIGN.md §1, §7): baseline and assisted generate() in worker threads that push
typed events and always end with a :class:`~app.race.tracer.DoneEvent`. Concurrent mode starts both sides at once (a
show); sequential mode warms up, checks a kept plain run (docs/DESIGN.md §5.16), then times the sides one after the
other. A stop ends both after their current forward pass."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

import torch

from ..core.errors import ArenaError
from ..core.requests import WARMUP_TOKENS
from .costs import MACHINE_THREADS, side_threads, use_threads
from .drafting import calibrate, policy_factory
from .ghosts import KeptRun
from .hooks import bind_tracer
from .prepare import RaceSetup, generate_call, uad_tokenizers
from .reader import SIDES
from .tracer import DoneEvent, ErrorEvent, Event, StopOnEvent, TokenEvent, TraceStreamer
from .trust import PROBE_TOKENS, KeptCheck, check_kept

log = logging.getLogger(__name__)


def describe_error(exc: BaseException, setup: RaceSetup | None = None) -> tuple[str, bool]:
    """(one-line message for the user, whether the failure is an expected one that needs no traceback)."""
    known = setup.method.explain(exc) if setup is not None else None
    if known:
        return known, True
    if isinstance(exc, ArenaError):
        return str(exc), True
    if isinstance(exc, torch.cuda.OutOfMemoryError):
        return "Out of GPU memory during generation: use fewer new tokens, a smaller model or 4-bit quantization.", False
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return f"Generation failed ({type(exc).__name__}): {first}", False


class StepClock:
    """A streamer for a plain generate() that only notes when each new token arrived (seconds from ``start``, which
    the caller sets right before generate()); the first ``put`` is the prompt."""

    def __init__(self) -> None:
        self.start, self.times, self._prompt = time.perf_counter(), [], True

    def put(self, value: Any) -> None:
        if self._prompt:
            self._prompt = False
            return
        self.times.append(time.perf_counter() - self.start)

    def end(self) -> None:
        pass


class Workers:
    """The worker thread(s) of one race and what they decide: the threads per side, the verify cost calibrated once,
    a fresh cost-aware policy per generate() call (``policy``: the assisted side's), and in a sequential race
    whether a kept plain run (``kept``) is still true (``kept_check``). `emit` takes every event they produce."""

    def __init__(self, setup: RaceSetup, sequential: bool, seed: int | None, stop: threading.Event,
                 emit: Callable[[Event], None]):
        self.setup, self.sequential, self.seed, self.stop_event, self.emit = setup, sequential, seed, stop, emit
        self.threads_per_side = side_threads(setup.device, concurrent=not sequential)
        self._policies = self.policy = self.verify_cost = None
        self.threads: list[threading.Thread] = []
        self.streamers: dict[str, TraceStreamer] = {}
        self.kept: KeptRun | None = None
        self.kept_check: KeptCheck | None = None  # the check of a kept run found for this race (None: none found)

    def _drafts(self, assisted: bool) -> tuple[Any, bool]:
        """(a fresh policy for the assisted side, whether this side runs transformers' assisted generation): a
        policy that knows drafting cannot pay here decodes plainly (docs/DESIGN.md §5.12)."""
        policy = self._policies() if assisted and self._policies else None
        return policy, assisted and not (policy is not None and policy.plain)

    def _run_side(self, side: str) -> None:
        assisted = side == "assisted"
        policy, drafting = self._drafts(assisted)
        self.policy = policy if assisted else self.policy
        streamer = TraceStreamer(side, assisted, self.emit, undrafted=assisted and not drafting)
        self.streamers[side] = streamer
        try:
            use_threads(self.threads_per_side)
            if self.seed is not None:
                torch.manual_seed(self.seed)
            self._generate(policy, drafting, streamer)
        except BaseException as exc:  # reported to the reader; the worker never dies silently
            message, expected = describe_error(exc, self.setup)
            if not expected:
                log.exception("%s generation failed", side)
            self.emit(ErrorEvent(side, message))
            if isinstance(exc, torch.cuda.OutOfMemoryError) and torch.cuda.is_available():
                torch.cuda.empty_cache()
        finally:
            self.emit(DoneEvent(side, time.perf_counter() - streamer.start, self.stop_event.is_set()))

    def _generate(self, policy: Any, drafting: bool, streamer: TraceStreamer | None = None, **limits: Any) -> None:
        """One generate() call that the race's stop event ends; a drafting call is traced to `streamer` and its
        rounds' lengths chosen by `policy`. The streamer's clock starts right before generate()."""
        with uad_tokenizers(self.setup, drafting) as toks:
            model, kwargs = generate_call(self.setup, drafting, tokenizers=toks, **limits)
            kwargs.update(streamer=streamer, stopping_criteria=[StopOnEvent(self.stop_event)])
            with bind_tracer(streamer if drafting else None, policy if drafting else None), torch.inference_mode():
                if streamer is not None:
                    streamer.start = time.perf_counter()
                model.generate(**kwargs)

    def _warm_up(self) -> None:
        use_threads(MACHINE_THREADS if not self.threads_per_side else self.threads_per_side)
        for assisted in (False, True):
            if self.stop_event.is_set():
                return
            self._generate(*self._drafts(assisted), max_new_tokens=WARMUP_TOKENS)
            if not assisted and self.kept is not None:
                self._check_kept(self.kept)

    def _check_kept(self, kept: KeptRun) -> None:
        """Time a few plain steps now and keep `kept` only if its steps took the same (docs/DESIGN.md §5.16)."""
        clock = StepClock()
        self._generate(None, False, clock, max_new_tokens=PROBE_TOKENS + 1)
        self.kept_check = check_kept(kept.token_times, clock.times, time.time() - kept.recorded_at)
        if not self.kept_check.reused:
            log.info("kept plain run not reused: %s", self.kept_check.reason)
            self.kept = None

    def _run_sequential(self) -> None:
        try:
            self._warm_up()
        except BaseException as exc:
            message, expected = describe_error(exc, self.setup)
            if not expected:  # an expected failure is one line for the user, not a traceback (docs/DESIGN.md §4)
                log.exception("warm-up failed")
            for side in SIDES:
                self.emit(ErrorEvent(side, message))
                self.emit(DoneEvent(side, 0.0, self.stop_event.is_set()))
            return
        if self.kept is not None:
            self._replay_kept(self.kept)
        else:
            self._run_side("baseline")
        self._run_side("assisted")

    def _replay_kept(self, kept: KeptRun) -> None:
        """The kept plain run as the baseline side's events (the reader decodes them as it did the first time)."""
        for i, (token_id, t) in enumerate(zip(kept.token_ids, kept.token_times)):
            self.emit(TokenEvent("baseline", i, token_id, "target", t))
        self.emit(DoneEvent("baseline", kept.seconds, False))

    def start(self, kept: KeptRun | None = None) -> None:
        """Calibrate, then start the worker thread(s); `kept`: a kept plain run a sequential race may race."""
        self.verify_cost = calibrate(self.setup, self.threads_per_side)  # measured once per model and thread count
        self._policies = policy_factory(self.setup, self.verify_cost, self.threads_per_side)
        self.kept = kept if self.sequential else None
        if self.sequential:
            self.threads = [threading.Thread(target=self._run_sequential, name="race-sequential", daemon=True)]
        else:
            self.threads = [threading.Thread(target=self._run_side, args=(s,), name=f"race-{s}", daemon=True)
                            for s in SIDES]
        for t in self.threads:
            t.start()

    def alive(self) -> bool:
        """Whether a worker thread is still running."""
        return any(t.is_alive() for t in self.threads)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the workers; True when all have ended."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for t in self.threads:
            t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not self.alive()
