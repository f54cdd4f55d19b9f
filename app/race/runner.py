"""The race: baseline and assisted generate() in worker threads, streaming typed events (docs/DESIGN.md §1, §7).

Concurrent mode starts both sides at once (a show); sequential mode warms up, then times the sides one after the
other. Every worker ends with a :class:`~app.race.tracer.DoneEvent`; a stop ends both after their current forward pass.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Iterator

import torch

from ..core.errors import ArenaError
from ..core.requests import WARMUP_TOKENS
from .costs import MACHINE_THREADS, side_threads, use_threads
from .drafting import calibrate, policy_factory
from .ghosts import GhostCache, KeptRun, ghost_key, kept_from
from .trust import PROBE_TOKENS, KeptCheck, check_kept
from .hooks import bind_tracer
from .prepare import RaceSetup, generate_call, uad_tokenizers
from .result import AssistedResult, RaceResult, Round, SideResult, Token
from .why import explain
from .tracer import Detokenizer, DoneEvent, ErrorEvent, Event, RoundEvent, StopOnEvent, TokenEvent, TraceStreamer

log = logging.getLogger(__name__)

SIDES = ("baseline", "assisted")


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


@dataclass(frozen=True)
class SideSnapshot:
    """One side as a follower sees it: tokens, rounds and token times so far, time to first token, final seconds
    (once done), its error, whether it ended (and was stopped), whether its generate() has begun and the seconds since then."""

    tokens: tuple[Token, ...] = ()
    rounds: tuple[Round, ...] = ()
    token_times: tuple[float, ...] = ()
    ttft: float | None = None
    seconds: float = 0.0
    error: str | None = None
    done: bool = False
    stopped: bool = False
    started: bool = False
    elapsed: float | None = None


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


@dataclass(frozen=True)
class RaceSnapshot:
    """Both sides of a race at one moment (:meth:`Race.snapshot`)."""

    sequential: bool
    sides: dict[str, SideSnapshot]
    baseline_kept_at: float | None = None


class Race:
    """One race between plain and assisted generation of `setup` (docs/DESIGN.md §1, §7).

    sequential: warm up, then time baseline and assisted one after the other. seed: torch seed set before each side
    when sampling. stop: the event that ends both sides after their current forward pass (a caller's, else the
    race's own). Threads per side: costs.side_threads. A cost-aware schedule gets a fresh policy per generate() call.
    Followers read :meth:`snapshot`, never the records the reader thread appends to. ghosts: where a sequential race
    keeps its plain run; with a kept run for the same key only the assisted side warms up and runs, and the baseline
    is the kept run (``kept``).
    """

    def __init__(self, setup: RaceSetup, sequential: bool = False, seed: int | None = None,
                 stop: threading.Event | None = None, ghosts: GhostCache | None = None):
        self.setup = setup
        self.ghosts, self.kept, self._ghost_key = ghosts, None, None
        self.kept_check: KeptCheck | None = None  # the check of a kept run found for this race (None: none found)
        self.sequential, self.seed = sequential, seed
        self.threads_per_side = side_threads(setup.device, concurrent=not sequential)
        self._policies = self.policy = self.verify_cost = None
        self.stop_event = stop if stop is not None else threading.Event()
        self.events_queue: queue.Queue[Event] = queue.Queue()
        self.threads: list[threading.Thread] = []
        self.streamers: dict[str, TraceStreamer] = {}
        self.records = {side: SideRecord() for side in SIDES}
        tok = setup.tokenizers.acquire()  # fast tokenizers are not thread-safe: one per reader
        self._reader_tokenizer_released = False
        context = setup.input_ids[0].tolist()
        self._detok = {side: Detokenizer(tok, context) for side in SIDES}
        self._tokenizer = tok
        self._special_ids = frozenset(getattr(tok, "all_special_ids", ()) or ())

    # ----- workers -------------------------------------------------------------------
    def _drafts(self, assisted: bool) -> tuple[Any, bool]:
        """(a fresh policy for the assisted side, whether this side runs transformers' assisted generation): a
        policy that knows drafting cannot pay here decodes plainly (docs/DESIGN.md §5.12)."""
        policy = self._policies() if assisted and self._policies else None
        return policy, assisted and not (policy is not None and policy.plain)

    def _run_side(self, side: str) -> None:
        assisted = side == "assisted"
        policy, drafting = self._drafts(assisted)
        self.policy = policy if assisted else self.policy
        streamer = TraceStreamer(side, assisted, self.events_queue.put, undrafted=assisted and not drafting)
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
            self.events_queue.put(ErrorEvent(side, message))
            if isinstance(exc, torch.cuda.OutOfMemoryError) and torch.cuda.is_available():
                torch.cuda.empty_cache()
        finally:
            self.events_queue.put(DoneEvent(side, time.perf_counter() - streamer.start, self.stop_event.is_set()))

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
                self.events_queue.put(ErrorEvent(side, message))
                self.events_queue.put(DoneEvent(side, 0.0, self.stop_event.is_set()))
            return
        if self.kept is not None:
            self._replay_kept(self.kept)
        else:
            self._run_side("baseline")
        self._run_side("assisted")

    def _replay_kept(self, kept: KeptRun) -> None:
        """The kept plain run as the baseline side's events (the reader decodes them as it did the first time)."""
        for i, (token_id, t) in enumerate(zip(kept.token_ids, kept.token_times)):
            self.events_queue.put(TokenEvent("baseline", i, token_id, "target", t))
        self.events_queue.put(DoneEvent("baseline", kept.seconds, False))

    def start(self) -> None:
        """Start the worker thread(s); idempotent."""
        if self.threads:
            return
        self.verify_cost = calibrate(self.setup, self.threads_per_side)  # measured once per model and thread count
        self._policies = policy_factory(self.setup, self.verify_cost, self.threads_per_side)
        if self.sequential and self.ghosts is not None:
            self._ghost_key = ghost_key(self.setup, self.seed, self.threads_per_side or MACHINE_THREADS)
            self.kept = self.ghosts.get(self._ghost_key)
        if self.sequential:
            self.threads = [threading.Thread(target=self._run_sequential, name="race-sequential", daemon=True)]
        else:
            self.threads = [threading.Thread(target=self._run_side, args=(s,), name=f"race-{s}", daemon=True)
                            for s in SIDES]
        for t in self.threads:
            t.start()

    def stop(self) -> None:
        """Ask both sides to end after their current forward pass."""
        self.stop_event.set()

    @property
    def kept_at(self) -> float | None:
        """When the kept plain run this race used was recorded (seconds since the epoch); None: plain ran now."""
        return self.kept.recorded_at if self.kept is not None else None

    @property
    def done(self) -> bool:
        """Whether the reader has seen both sides end."""
        return all(r.done for r in self.records.values())

    def alive(self) -> bool:
        """Whether a worker thread is still running."""
        return any(t.is_alive() for t in self.threads)

    def snapshot(self) -> "RaceSnapshot":
        """What the race has produced so far, copied (safe to read while the reader thread appends). A side has
        started once its streamer exists; its elapsed time runs from its generate()'s start to its final time."""
        sides = {}
        for side, rec in self.records.items():
            n = min(len(rec.tokens), len(rec.token_times))  # the reader appends a token, then its time
            streamer = self.streamers.get(side)
            elapsed = rec.seconds if rec.done else None if streamer is None else time.perf_counter() - streamer.start
            sides[side] = SideSnapshot(tuple(rec.tokens[:n]), tuple(rec.rounds), tuple(rec.token_times[:n]), rec.ttft,
                                       rec.seconds, rec.error, rec.done, rec.stopped, streamer is not None, elapsed)
        return RaceSnapshot(self.sequential, sides, self.kept_at)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the workers; True when all have ended."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for t in self.threads:
            t.join(None if deadline is None else max(0.0, deadline - time.monotonic()))
        return not self.alive()

    # ----- reader ------------------------------------------------------------------------
    def _record(self, event: Event) -> None:
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
            rejected = self._tokenizer.decode(list(event.rejected_ids), skip_special_tokens=False,
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
            if event.side == "baseline" and self.kept is None and self._ghost_key and not (rec.error or rec.stopped):
                self.ghosts.put(self._ghost_key, kept_from(rec))

    def events(self, poll: float = 0.1, timeout: float | None = None) -> Iterator[Event]:
        """Start (if needed) and yield every event until both sides are done.

        timeout: give up (stop the race) when no event arrives for this many seconds.
        """
        self.start()
        try:
            yield from self._drain(poll, timeout)
        finally:  # the reader's tokenizer goes back to the pool once nothing will decode any more
            if not self._reader_tokenizer_released and self.done:
                self._reader_tokenizer_released = True
                self.setup.tokenizers.release(self._tokenizer)

    def _drain(self, poll: float, timeout: float | None) -> Iterator[Event]:
        last = time.monotonic()
        while not all(r.done for r in self.records.values()):
            try:
                event = self.events_queue.get(timeout=poll)
            except queue.Empty:
                if timeout is not None and time.monotonic() - last > timeout:
                    self.stop()
                    raise ArenaError(f"No progress for {timeout:.0f} s: the race was stopped.")
                if not any(t.is_alive() for t in self.threads) and self.events_queue.empty():
                    for side, rec in self.records.items():  # cannot happen: workers always send Done
                        if not rec.done:
                            rec.error, rec.done = rec.error or "worker ended without a result", True
                continue
            last = time.monotonic()
            self._record(event)
            yield event

    def run(self) -> RaceResult:
        """Run to the end without streaming; returns :meth:`result`."""
        for _ in self.events():
            pass
        return self.result()

    # ----- result --------------------------------------------------------------------------
    def _side(self, side: str) -> dict[str, Any]:
        rec = self.records[side]
        return {"text": self._detok[side].text(rec.token_ids), "token_ids": list(rec.token_ids),
                "seconds": rec.seconds, "ttft_seconds": rec.ttft, "token_times": list(rec.token_times),
                "token_texts": [t.text for t in rec.tokens]}

    def _assisted(self) -> AssistedResult:
        rec, args, policy = self.records["assisted"], self.setup.args, self.policy
        schedule = args.draft_policy or args.drafter_config.get("num_assistant_tokens_schedule")
        # rounds the cost-aware schedule drafted nothing in (every round of a side that decoded plainly)
        skipped = 0 if policy is None else len(rec.rounds) if policy.plain else policy.rounds_skipped
        return AssistedResult(**self._side("assisted"), tokens=[dataclasses.replace(t) for t in rec.tokens],
                              rounds=[dataclasses.replace(r) for r in rec.rounds], draft_policy=schedule,
                              skipped_rounds=skipped)

    def result(self) -> RaceResult:
        """The race so far as a :class:`RaceResult` (its ``to_dict()`` is the JSON contract), with its explanation."""
        p = self.setup.preset
        result = RaceResult(
            preset=p.id, method=p.method, target=p.target, assistant=p.assistant,
            mode="sequential" if self.sequential else "concurrent", do_sample=p.do_sample, device=self.setup.device,
            baseline=SideResult(**self._side("baseline")), assisted=self._assisted(),
            errors={s: r.error for s, r in self.records.items() if r.error},
            stopped=any(r.stopped for r in self.records.values()), knobs=p.knobs(), threads=self.threads_per_side,
            dtype=getattr(getattr(self.setup, "target", None), "dtype", None),
            baseline_kept_at=self.kept_at,
            baseline_check=self.kept_check.to_dict() if self.kept_check is not None else None)
        result.why = explain(result, result.knobs, self.verify_cost)
        return result
