"""The two sides of one race, private to app/race/lifecycle.py ``RaceRun`` (docs/DESIGN.md §1, §7): the worker
threads (:class:`Workers`: baseline and assisted generate(), which push typed events and always end with a
``DoneEvent``; concurrent mode starts both sides at once, a show; sequential mode warms up, checks a kept plain run
(docs/DESIGN.md §5.16), then times the sides one after the other; a stop ends both after their current forward pass)
and the reader (:class:`Reader`: the events decoded, on the thread that runs the race, into one record per side,
copied into the snapshots followers read)."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from ..core.errors import ArenaError
from ..core.requests import WARMUP_TOKENS
from ..core.words import msg
from .costs import MACHINE_THREADS, side_threads, use_threads
from .drafting import calibrate, policy_factory
from .kept import KeptRun
from .hooks import bind_tracer
from .prepare import RaceSetup, generate_call, uad_tokenizers
from .protocol import (DoneEvent, ErrorEvent, Event, RaceSnapshot, Round, RoundEvent, Side, SideSnapshot, Status,
                       Token, TokenEvent)
from .tracer import Detokenizer, StopOnEvent, TraceStreamer
from .trust import CPU_SHARE, PROBE_TOKENS, Conditions, KeptCheck, check_kept, failed_check, too_old

log = logging.getLogger(__name__)


# ----- the working side: worker threads that generate and send events ---------------------------------------------
def describe_error(exc: BaseException, setup: RaceSetup | None = None) -> tuple[str, bool]:
    """(one-line message for the user, whether the failure is an expected one that needs no traceback)."""
    known = setup.method.explain(exc) if setup is not None else None
    if known:
        return known, True
    if isinstance(exc, ArenaError):
        return str(exc), True
    if isinstance(exc, torch.cuda.OutOfMemoryError):
        return msg("Out of GPU memory during generation: use fewer new tokens, a smaller model or 4-bit quantization."), False
    first = (str(exc).strip().splitlines() or [""])[0][:300]
    return msg("Generation failed ({type}): {first}", type=type(exc).__name__, first=first), False


#: The process's CPU seconds (all threads; time.process_time, which resource.getrusage also gives): what a side's share
#: of the CPU is measured with (tests inject load by replacing it).
cpu_clock: Callable[[], float] = time.process_time


class CpuShare:
    """Measures the share of the CPU a stretch of work got: the process's CPU seconds over wall seconds x `threads`
    (1.0: every thread it asked for ran all the time; other work on the machine lowers it)."""

    def __init__(self, threads: int):
        self.threads = max(1, threads)
        self.cpu, self.wall = cpu_clock(), time.perf_counter()

    def share(self) -> float | None:
        wall = time.perf_counter() - self.wall
        return (cpu_clock() - self.cpu) / (wall * self.threads) if wall > 0 else None


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
        self.streamers: dict[Side, TraceStreamer] = {}
        self.kept: KeptRun | None = None
        self.kept_check: KeptCheck | None = None  # the check of a kept run found for this race (None: none found)
        self.cpu_shares: dict[str, float | None] = {}  # each side's measured share of the CPU (docs/DESIGN.md §5.16)
        self.stale: KeptRun | None = None  # a kept run the check after the race found stale: drop it

    def _drafts(self, assisted: bool) -> tuple[Any, bool]:
        """(a fresh policy for the assisted side, whether this side runs transformers' assisted generation): a
        policy that knows drafting cannot pay here decodes plainly (docs/DESIGN.md §5.12)."""
        policy = self._policies() if assisted and self._policies else None
        return policy, assisted and not (policy is not None and policy.plain)

    def _threads(self) -> int:
        """The torch threads a side runs on (all of the machine's in a sequential CPU race)."""
        return self.threads_per_side or torch.get_num_threads()

    def _run_side(self, side: Side, after: Callable[[], None] | None = None) -> None:
        """Run one side; `after` (the check of a kept run) runs once the side has ended, before its Done event, so
        the race's result includes it."""
        assisted = side == Side.ASSISTED
        policy, drafting = self._drafts(assisted)
        self.policy = policy if assisted else self.policy
        streamer = TraceStreamer(side, assisted, self.emit, undrafted=assisted and not drafting)
        self.streamers[side] = streamer
        failed = False
        try:
            use_threads(self.threads_per_side)
            if self.seed is not None:
                torch.manual_seed(self.seed)
            meter = CpuShare(self._threads())
            self._generate(policy, drafting, streamer)
            self.cpu_shares[side] = meter.share()
        except BaseException as exc:  # reported to the reader; the worker never dies silently
            failed = True
            message, expected = describe_error(exc, self.setup)
            if not expected:
                log.exception("%s generation failed", side)
            self.emit(ErrorEvent(side, message))
            if isinstance(exc, torch.cuda.OutOfMemoryError) and torch.cuda.is_available():
                torch.cuda.empty_cache()
        finally:
            done = DoneEvent(side, time.perf_counter() - streamer.start, self.stop_event.is_set())
            if after is not None and not (failed or done.stopped):
                after()
            self.emit(done)

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
        """Warm up both sides (8 tokens each); a race of a kept plain run warms up only the assisted side: plain is
        checked after the race, on a target the assisted side has just warmed (docs/DESIGN.md §5.16)."""
        use_threads(MACHINE_THREADS if not self.threads_per_side else self.threads_per_side)
        for assisted in (False, True) if self.kept is None else (True,):
            if self.stop_event.is_set():
                return
            self._generate(*self._drafts(assisted), max_new_tokens=WARMUP_TOKENS)

    def _check_kept(self, kept: KeptRun) -> None:
        """After the assisted side: time a few plain steps now and compare them with the kept run's
        (docs/DESIGN.md §5.16). A kept run that is not true any more makes this race no measurement and is dropped,
        so the next race times plain again. A failure of the probe counts as a failed check, not as the race's."""
        clock, meter = StepClock(), CpuShare(self._threads())
        try:
            use_threads(self.threads_per_side)
            self._generate(None, False, clock, max_new_tokens=PROBE_TOKENS + 1)
            self.cpu_shares["probe"] = meter.share()
            self.kept_check = check_kept(kept.token_times, clock.times, time.time() - kept.recorded_at)
        except BaseException as exc:  # noqa: BLE001 - the check failed, the race did not
            self.kept_check = failed_check(describe_error(exc, self.setup)[0], time.time() - kept.recorded_at)
        if not self.kept_check.reused:
            self.stale = kept
            log.info("kept plain run dropped: %s", self.kept_check.reason)

    def conditions(self) -> Conditions | None:
        """The two sides' measured shares of the CPU (docs/DESIGN.md §5.16): a kept run's share when it was recorded,
        else plain's now; judged on a CPU only (on a GPU the share of a waiting thread says little). None in a
        race of both at once (one process time for both sides)."""
        if not self.sequential:
            return None
        plain = self.kept.cpu_share if self.kept is not None else self.cpu_shares.get("baseline")
        if plain is None and self.kept is not None:
            plain = self.cpu_shares.get("probe")
        return Conditions(CPU_SHARE, plain, self.cpu_shares.get("assisted"),
                          judged=str(self.setup.device).startswith("cpu"))

    def _run_sequential(self) -> None:
        try:
            self._warm_up()
        except BaseException as exc:
            message, expected = describe_error(exc, self.setup)
            if not expected:  # an expected failure is one line for the user, not a traceback (docs/DESIGN.md §4)
                log.exception("warm-up failed")
            for side in Side:
                self.emit(ErrorEvent(side, message))
                self.emit(DoneEvent(side, 0.0, self.stop_event.is_set()))
            return
        kept = self.kept
        if kept is not None:
            self._replay_kept(kept)
        else:
            self._run_side(Side.PLAIN)
        self._run_side(Side.ASSISTED, after=(lambda: self._check_kept(kept)) if kept is not None else None)

    def _replay_kept(self, kept: KeptRun) -> None:
        """The kept plain run as the baseline side's events (the reader decodes them as it did the first time)."""
        for i, (token_id, t) in enumerate(zip(kept.token_ids, kept.token_times)):
            self.emit(TokenEvent(Side.PLAIN, i, token_id, Status.TARGET, t))
        self.emit(DoneEvent(Side.PLAIN, kept.seconds, False))

    def start(self, kept: KeptRun | None = None) -> list[threading.Thread]:
        """Calibrate, then start the worker thread(s) and return them; `kept`: a kept plain run a sequential race may
        race."""
        self.verify_cost = calibrate(self.setup, self.threads_per_side)  # measured once per model and thread count
        self._policies = policy_factory(self.setup, self.verify_cost, self.threads_per_side)
        self.kept = kept if self.sequential else None
        if self.kept is not None and too_old(time.time() - self.kept.recorded_at):
            self.kept_check, self.kept = too_old(time.time() - self.kept.recorded_at), None
        if self.sequential:
            threads = [threading.Thread(target=self._run_sequential, name="race-sequential", daemon=True)]
        else:
            threads = [threading.Thread(target=self._run_side, args=(s,), name=f"race-{s}", daemon=True) for s in Side]
        for t in threads:
            t.start()
        return threads


# ----- the reading side: events decoded into one record per side, copied into snapshots ---------------------------
@dataclass
class SideRecord:
    """What the reader has seen of one side (texts decoded on the reader's thread)."""

    token_ids: list[int] = field(default_factory=list)
    tokens: list[Token] = field(default_factory=list)
    token_times: list[float] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)
    seconds: float = 0.0
    ttft: float | None = None
    error: str | None = None
    done: bool = False
    stopped: bool = False


class Reader:
    """Decodes one race's events into :class:`SideRecord` s. Fast tokenizers are not thread-safe, so the reader takes
    its own tokenizer from the setup's pool and gives it back with :meth:`release` once nothing will decode any more."""

    def __init__(self, setup: RaceSetup):
        self.setup = setup
        self.records = {side.value: SideRecord() for side in Side}
        self.tokenizer = tok = setup.tokenizers.acquire()
        self._released = False
        context = setup.input_ids[0].tolist()
        self._detok = {side: Detokenizer(tok, context) for side in Side}
        self._special_ids = frozenset(getattr(tok, "all_special_ids", ()) or ())

    @property
    def done(self) -> bool:
        """Whether both sides have ended."""
        return all(r.done for r in self.records.values())

    def record(self, event: Event) -> SideRecord:
        """Apply `event` to its side's record (returned)."""
        rec = self.records[event.side]
        if isinstance(event, TokenEvent):
            text = self._detok[event.side].push(event.token_id)
            rec.token_ids.append(event.token_id)
            rec.tokens.append(Token(event.token_id, text, event.status, event.p_target, event.p_draft,
                                    event.token_id in self._special_ids))
            rec.token_times.append(event.t)
            if rec.ttft is None:
                rec.ttft = event.t
        elif isinstance(event, RoundEvent):
            rejected = self.tokenizer.decode(list(event.rejected_ids), skip_special_tokens=False,
                                             clean_up_tokenization_spaces=False)
            rec.rounds.append(Round(event.drafted, event.accepted, rejected, event.draft_seconds, event.verify_seconds,
                                    event.rejected_p_target, event.rejected_p_draft))
        elif isinstance(event, ErrorEvent):
            rec.error = event.message
        elif isinstance(event, DoneEvent):
            tail = self._detok[event.side].flush()
            if tail and rec.tokens:
                rec.tokens[-1].text += tail
            rec.seconds, rec.done, rec.stopped = event.seconds, True, event.stopped
        return rec

    def side(self, side: Side) -> dict[str, Any]:
        """One side's fields of a SideResult (texts decoded in context)."""
        rec = self.records[side]
        return {"text": self._detok[side].text(rec.token_ids), "token_ids": list(rec.token_ids),
                "seconds": rec.seconds, "ttft_seconds": rec.ttft, "token_times": list(rec.token_times),
                "token_texts": [t.text for t in rec.tokens]}

    def snapshot(self, sequential: bool, streamers: dict[Side, Any], kept_at: float | None) -> RaceSnapshot:
        """What the race has produced so far, copied (safe to read while the reader thread appends). A side has
        started once its streamer exists; its elapsed time runs from its generate()'s start to its final time."""
        sides = {}
        for side, rec in self.records.items():
            n = min(len(rec.tokens), len(rec.token_times))  # the reader appends a token, then its time
            streamer = streamers.get(side)
            elapsed = rec.seconds if rec.done else None if streamer is None else time.perf_counter() - streamer.start
            sides[side] = SideSnapshot(tuple(rec.tokens[:n]), tuple(rec.rounds), tuple(rec.token_times[:n]), rec.ttft,
                                       rec.seconds, rec.error, rec.done, rec.stopped, streamer is not None, elapsed)
        return RaceSnapshot(sequential, sides, kept_at)

    def release(self) -> None:
        """Give the reader's tokenizer back to the pool (once; only after both sides ended)."""
        if not self._released and self.done:
            self._released = True
            self.setup.tokenizers.release(self.tokenizer)
