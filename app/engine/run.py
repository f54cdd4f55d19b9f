"""An engine race, a :class:`~app.race.protocol.Run` like a transformers race (docs/DESIGN.md §4.7, §8):
:class:`EngineRun` prepares (checks the pair before any generation), runs (plain, then assisted, streamed), gives
followers a :class:`~app.race.protocol.RaceSnapshot` while it streams, stops (the open connection closed, so the engine
stops generating) and closes in the caller's ``finally``, so the page draws both races the same way.
:func:`run_engine` is the whole lifecycle in one call; the command line, the benchmark and the tests all race an
engine through it (one stream path).
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
from contextlib import closing
from dataclasses import dataclass, replace
from typing import Any

from ..core.errors import ArenaError, StoppedError
from ..core.requests import WARMUP_TOKENS
from ..core.words import msg
from ..race.divergence import describe
from ..race.protocol import RaceSnapshot, Round, Side, SideSnapshot, Token
from ..race.result import RaceResult
from ..race.trust import PLAIN_STEP, PROBE_TOKENS, Conditions, steps
from . import rounds
from .engines import ENGINES, PairInfo
from .http import Endpoint
from .llamacpp import EngineSide, flatten
from .request import EngineRequest
from .result import EngineRace, build_result, check_plain
from .target import EngineTarget

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class EngineSetup:
    """What :meth:`EngineRun.prepare` found. device: the label a race shows where it ran ("llama.cpp server");
    model: the served model's name; engine / version: the engine's name and its build (None: not reported);
    speculative_type: as the engine names it (None until the assisted side has run, when llama.cpp names it only in
    a request's settings; :meth:`EngineRun.run` fills it in); prompt_text: what both requests send (the chat template
    applied for llama.cpp); prompt_tokens: the prompt's length as the engine counted it before generating (None: it
    is checked on the first chunk instead); target: the operator's engine."""

    device: str
    model: str
    engine: str
    version: str | None
    speculative_type: str | None
    prompt_text: str
    prompt_tokens: int | None
    target: EngineTarget


class _Side:
    """One side's progress (guarded by the run's lock; its stream's chunks by the stream's own). final: the tokens and
    rounds of the result once known; seconds: the final time (request sent to last chunk, or to the stop)."""

    def __init__(self) -> None:
        self.stream = EngineSide()
        self.final: tuple[tuple[Token, ...], tuple[Round, ...]] | None = None
        self.seconds, self.error, self.done, self.stopped = 0.0, None, False, False

    def end(self, error: str | None = None, stopped: bool = False) -> None:
        """Mark the side ended (an error, a stop, or never reached); keeps the time it ran."""
        if not self.done:
            started = self.stream.started_at
            self.seconds = time.perf_counter() - started if started is not None else 0.0
            self.error, self.done, self.stopped = error, True, stopped


class EngineRun:
    """One engine race of `request` from the pair check to a closed connection (a ``Run[RaceResult]``,
    app/race/protocol.py). race: the finished race with the engine's own figures, once :meth:`run` returned.

    stop: the event that ends the race (default its own); setting it closes the open request's connection at once.
    reap_seconds / label: how long :meth:`close` waits for :meth:`run` to return, and how its log line names the race.
    :meth:`run` streams in the calling thread (the page calls it from a worker thread and reads :meth:`snapshot` from
    another); the only threads it starts are the HTTP client's stop watchers, one per request, ended with it.
    """

    sequential = True
    progress = None  # the pair check sends no loading messages

    def __init__(self, request: EngineRequest, *, stop: threading.Event | None = None, reap_seconds: float = 5.0,
                 label: str = "engine race"):
        self.request = request
        self.stop_event = stop if stop is not None else threading.Event()
        self._own_stop = stop is None
        self.reap_seconds, self.label = reap_seconds, label
        self.engine = ENGINES[request.target.engine]
        self.setup: EngineSetup | None = None
        self.race: EngineRace | None = None
        self._info: PairInfo | None = None
        self._sides: dict[str, _Side] | None = None
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()
        self._prompt_checked = False

    # ----- lifecycle ------------------------------------------------------------------------------------------------
    def prepare(self) -> EngineSetup:
        """Check the pair, build the prompt text and count it (once); ArenaError (one line) before any generation."""
        if self.setup is None:
            r, engine = self.request, self.engine
            info = engine.check_pair(r.target, r.timeouts)
            text = engine.prompt_text(r.target, r.prompt, r.chat_template, r.timeouts)
            n_prompt = engine.count_prompt(r.target, text, r.timeouts)
            if n_prompt is not None:
                r.limits.check_prompt_tokens(n_prompt)
                self._prompt_checked = True
            self._info = info
            self.setup = EngineSetup(f"{engine.name} server", info.model, engine.name, info.version,
                                     info.speculative_type, text, n_prompt, r.target)
        return self.setup

    def run(self) -> RaceResult:
        """Prepare if needed, stream plain then assisted, and return the race's result (:attr:`race` holds it with the
        engine's own figures; a stopped race's result is marked stopped). ArenaError (one line) for every fault of
        docs/DESIGN.md §4.7; the failing side's snapshot carries it."""
        self._idle.clear()
        try:
            setup = self.prepare()
            with self._lock:
                self._sides = {side.value: _Side() for side in Side}
            assisted_endpoint, plain_endpoint = self.request.target.endpoints()
            for name, endpoint in (("baseline", plain_endpoint), ("assisted", assisted_endpoint)):
                self._warm_up(name, endpoint, setup.prompt_text)
            plain = self._stream("baseline", plain_endpoint, setup.prompt_text)
            self._checked("baseline", check_plain, plain)
            with self._lock:  # the plain side is final as it streamed: every token "target"
                self._sides["baseline"].done, self._sides["baseline"].seconds = True, plain.seconds
            assisted = self._stream("assisted", assisted_endpoint, setup.prompt_text)
            self._checked("assisted", self.engine.check_assisted, assisted, assisted_endpoint,
                          self.request.timeouts)
            self.race = self._finish(plain, assisted, self._probe(plain, plain_endpoint, setup.prompt_text))
            return self.race.result
        except StoppedError:
            self.race = self._stopped()
            return self.race.result
        finally:
            self._idle.set()

    def snapshot(self) -> RaceSnapshot | None:
        """Both sides so far (copies; safe to call from any thread while :meth:`run` streams); None before the run
        starts streaming."""
        with self._lock:
            sides = self._sides
            if sides is None:
                return None
            return RaceSnapshot(True, {name: self._side_snapshot(name, side) for name, side in sides.items()})

    def stop(self) -> None:
        """End the race now: the open request's connection is closed (the engine stops generating)."""
        self.stop_event.set()

    def running(self) -> bool:
        """Whether :meth:`run` is still streaming."""
        return not self._idle.is_set()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for :meth:`run` to return; True when it has (or never started)."""
        return self._idle.wait(timeout)

    def close(self, why: str) -> None:
        """Every driver's ``finally``: a run still streaming is stopped and waited for (at most `reap_seconds`), and
        the outcome logged; before the run, its own stop event is set (a caller's event is the caller's to set)."""
        if not self.running():
            if self._own_stop:
                self.stop_event.set()
            return
        self.stop_event.set()
        start = time.perf_counter()
        ended = self.join(self.reap_seconds)
        log.info("%s stopped (%s): its request %s after %.2f s", self.label, why,
                 "ended" if ended else "STILL RUNNING", time.perf_counter() - start)

    def json(self) -> dict[str, Any]:
        """The finished race's JSON object: docs/DESIGN.md §4.1 plus ``engine`` (app/engine/result.py)."""
        if self.race is None:
            raise RuntimeError("the race has not finished")
        return self.race.to_dict()

    def facts(self) -> dict[str, Any]:
        """The engine that races, for the hardware panel (no model is loaded here)."""
        setup = self.setup
        return {"device": setup.device, "gpu": None, "models": [],
                "engine": {"name": setup.engine, "version": setup.version, "model": setup.model,
                           "speculative_type": setup.speculative_type}}

    # ----- streaming ------------------------------------------------------------------------------------------------
    def _stream(self, name: str, endpoint: Endpoint, text: str) -> EngineSide:
        """Stream one side to its end; the engine's prompt count is checked on the first chunk that carries it
        (unless it was counted before generating)."""
        side, r = self._sides[name], self.request
        try:
            if self.stop_event.is_set():
                raise StoppedError(msg("{name}: stopped", name=endpoint.name))
            with closing(self.engine.stream(endpoint, r.target, text, r.max_new_tokens, side.stream, r.timeouts,
                                            self.stop_event)) as stream:
                self._drain(stream)
        except StoppedError:
            self._end_all(stopped=True)
            raise
        except ArenaError as exc:
            self._end_all(failed=(name, str(exc)))
            raise
        return side.stream

    def _quiet(self, endpoint: Endpoint, text: str, tokens: int) -> EngineSide:
        """A request of at most `tokens` that no pane shows (a warm-up, or the plain probe after the assisted side);
        a stop ends the whole race as it would the race's own requests."""
        side, r = EngineSide(), self.request
        try:
            if self.stop_event.is_set():
                raise StoppedError(msg("{name}: stopped", name=endpoint.name))
            with closing(self.engine.stream(endpoint, r.target, text, min(tokens, r.max_new_tokens), side, r.timeouts,
                                            self.stop_event)) as stream:
                self._drain(stream)
        except StoppedError:
            self._end_all(stopped=True)
            raise
        return side

    def _drain(self, stream: Any) -> None:
        """Read a stream to its end; the engine's prompt count is checked on the first chunk that carries it (unless it
        was counted before generating): a prompt over the limit closes the connection there."""
        for chunk in stream:
            if chunk.prompt_tokens is not None and not self._prompt_checked:
                self.request.limits.check_prompt_tokens(chunk.prompt_tokens)
                self._prompt_checked = True

    def _warm_up(self, name: str, endpoint: Endpoint, text: str) -> None:
        """Warm one side up (docs/DESIGN.md §5.16: the engine keeps itself warm only after a first request). Best
        effort: a fault here is logged, and the race's own request of that side meets it and says so on its side."""
        try:
            self._quiet(endpoint, text, WARMUP_TOKENS)
        except StoppedError:
            raise
        except ArenaError as exc:
            log.info("%s: warm-up of the %s side failed (its race request will say why): %s", self.label, name, exc)

    def _probe(self, plain: EngineSide, endpoint: Endpoint, text: str) -> Conditions:
        """After the assisted side: a short plain request, whose decode step against plain's during the race shows a
        load that came or went between the sides (docs/DESIGN.md §5.16). A probe that fails leaves the race
        unchecked, so not a measurement (the conditions carry why)."""
        try:
            probe = self._quiet(endpoint, text, PROBE_TOKENS + 1)
        except StoppedError:
            raise
        except ArenaError as exc:
            return Conditions(PLAIN_STEP, own_step_ms(plain) or arena_step_ms(plain, PROBE_TOKENS), None,
                              failure=str(exc))
        return plain_conditions(plain, probe)

    def _checked(self, name: str, check: Any, *args: Any) -> None:
        """Run a check of one streamed side; its ArenaError becomes that side's error."""
        try:
            check(*args)
        except ArenaError as exc:
            self._end_all(failed=(name, str(exc)))
            raise

    def _end_all(self, stopped: bool = False, failed: tuple[str, str] | None = None) -> None:
        """End every side still open: `failed` (side, message) carries the error; the rest end as stopped (a stop, or
        never reached because the race ended)."""
        with self._lock:
            for name, side in self._sides.items():
                if failed is not None and name == failed[0]:
                    side.end(error=failed[1])
                else:
                    side.end(stopped=True)

    def _engine_info(self, assisted: EngineSide) -> dict[str, Any]:
        setup = self.setup
        spec = self.engine.speculative_type(assisted, self._info)
        self.setup = replace(setup, speculative_type=spec)
        return {"name": setup.engine, "version": setup.version, "speculative_type": spec}

    def _finish(self, plain: EngineSide, assisted: EngineSide, conditions: Conditions | None = None) -> EngineRace:
        """The result of two finished streams; the sides' final tokens and rounds become the result's; `conditions`:
        plain's step during the race against the probe after the assisted side."""
        race = build_result(plain, assisted, self.setup.model, self.request.max_new_tokens,
                            self._engine_info(assisted), assisted.report, conditions=conditions)
        race.result.divergence = self._divergence(race.result)
        self._publish(race)
        return race

    def _top_two(self, endpoint: Endpoint, prefix: list[int]) -> list[tuple[int, str, float]] | None:
        """The engine's top two after the prompt and `prefix`, or None when it cannot say: an explanation after a
        finished race never turns the race into a failure (a server without ``n_probs`` is logged, not fatal)."""
        try:
            return self.engine.top_two(endpoint, self.setup.prompt_text, prefix, self.request.timeouts)
        except ArenaError as exc:
            log.info("%s: no top two from %s for the divergence (%s)", self.label, endpoint.shown, exc)
            return None

    def _divergence(self, result: RaceResult) -> dict[str, Any] | None:
        """Where the greedy texts of the two servers first differ: the served target's top two there, asked of both
        servers (app/race/divergence.py); None when they agree, one ended early, or the engine cannot say."""
        at = result.first_divergence
        if at is None or result.prefix_only:
            return None
        prefix, r = result.baseline.token_ids[:at], self.request
        assisted_endpoint, plain_endpoint = r.target.endpoints()
        tops = {name: self._top_two(endpoint, prefix) for name, endpoint in (("plain", plain_endpoint),
                                                                            ("assisted", assisted_endpoint))}
        if tops["plain"] is None:
            return None

        def token(i: int, text: str) -> dict[str, Any]:
            p = next((p for tid, _, p in tops["plain"] if tid == i), None)
            return {"id": i, "text": text, "p": None if p is None else round(p, 5)}

        plain_tok = token(result.baseline.token_ids[at], result.baseline.token_texts[at])
        assisted_tok = token(result.assisted.token_ids[at], result.assisted.token_texts[at])
        out = describe(at, plain_tok, assisted_tok, [token(i, t) for i, t, _ in tops["plain"]],
                       "the plain server's n_probs")
        out["engine_top_two"] = {name: [{"id": i, "text": t, "p": round(p, 5)} for i, t, p in top]
                                 for name, top in tops.items() if top is not None}
        return out

    def _stopped(self) -> EngineRace:
        """The race so far, marked stopped: the plain side's tokens, and the assisted side's where their statuses are
        known (llama.cpp's counters; an engine that reports them only at the end keeps none)."""
        sides = self._sides  # set before any stream, and every side already ended (_stream)
        plain, assisted = sides["baseline"].stream, sides["assisted"].stream
        for name, stream in (("baseline", plain), ("assisted", assisted)):
            stream.seconds = stream.seconds or sides[name].seconds
        if self.engine.live_statuses:
            counters = [c for c in flatten(assisted.chunks).counters if c is not None]
            last = counters[-1] if counters else (0, 0)
            assisted.timings = {"draft_n": last[0], "draft_n_accepted": last[1], **assisted.timings}
        else:
            assisted = EngineSide(seconds=assisted.seconds)
        race = build_result(plain, assisted, self.setup.model, self.request.max_new_tokens,
                            self._engine_info(assisted), assisted.report, stopped=True)
        self._publish(race, keep_pending=not self.engine.live_statuses)
        return race

    def _publish(self, race: EngineRace, keep_pending: bool = False) -> None:
        """Give the sides the result's tokens and rounds (the final snapshot equals the result); `keep_pending`: the
        assisted side keeps what it showed (statuses never reported: a stopped vLLM or SGLang race)."""
        a = race.result.assisted
        with self._lock:
            for side in self._sides.values():
                if not side.done:
                    side.done, side.seconds = True, side.stream.seconds
            if not keep_pending:
                self._sides["assisted"].final = (tuple(a.tokens), tuple(a.rounds))

    # ----- snapshots ------------------------------------------------------------------------------------------------
    def _side_snapshot(self, name: str, side: _Side) -> SideSnapshot:
        """One side as a follower sees it (called under the run's lock): tokens with their statuses (the result's once
        known; llama.cpp's per-step counters as they arrive; "pending" where the engine reports them at the end;
        "target" on the plain side), rounds completed so far, the arena's times."""
        flat = flatten(side.stream.chunks_so_far())
        tokens, round_list = side.final if side.final is not None else self._live(name, flat)
        times = tuple(flat.times[:len(tokens)])
        started = side.stream.started_at
        elapsed = side.seconds if side.done else None if started is None else time.perf_counter() - started
        return SideSnapshot(tuple(tokens), tuple(round_list), times, times[0] if times else None,
                            side.seconds if side.done else 0.0, side.error, side.done, side.stopped, started is not None,
                            elapsed)

    def _live(self, name: str, flat: Any) -> tuple[list[Token], list[Round]]:
        if name == "baseline":
            return rounds.build(flat.ids, flat.texts, [])[0], []
        live = rounds.build_live(flat.ids, flat.texts, flat.counters) if self.engine.live_statuses else None
        return live if live is not None else (rounds.pending(flat.ids, flat.texts), [])


def own_step_ms(side: EngineSide) -> float | None:
    """One decode step (ms) on the engine's own clock: llama.cpp's ``predicted_ms`` over ``predicted_n`` (None where
    the engine reports no such figures)."""
    ms, n = side.timings.get("predicted_ms"), side.timings.get("predicted_n")
    ok = isinstance(ms, (int, float)) and isinstance(n, int) and ms > 0 and n > 1
    return float(ms) / n if ok else None


def arena_step_ms(side: EngineSide, first: int | None = None) -> float | None:
    """One decode step (ms) on the arena's clock: the median gap between the stream's chunks (its first `first` steps
    only, so a long run compares with a short probe); None for fewer than 3 steps."""
    gaps = steps(flatten(side.chunks).times)[:first]
    return 1e3 * statistics.median(gaps) if len(gaps) >= 3 else None


def plain_conditions(plain: EngineSide, probe: EngineSide) -> Conditions:
    """Plain's decode step during the race (``baseline``) against a plain probe right after the assisted side
    (``assisted``): a load that came or went between the sides shows as a gap (docs/DESIGN.md §5.16). Both on the
    engine's own clock when both report it, else both on the arena's."""
    own = own_step_ms(plain), own_step_ms(probe)
    if None not in own:
        return Conditions(PLAIN_STEP, *own)
    return Conditions(PLAIN_STEP, arena_step_ms(plain, PROBE_TOKENS), arena_step_ms(probe))


def run_engine(request: EngineRequest, **options: Any) -> EngineRace:
    """Prepare, run, stop in ``finally`` and close: the whole lifecycle (options as for :class:`EngineRun`)."""
    run = EngineRun(request, **options)
    try:
        run.run()
        return run.race
    finally:
        run.close("the caller ended early")
