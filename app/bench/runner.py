"""The benchmark runner: presets x prompts x repeats, every race sequential after a warm-up (docs/DESIGN.md §1, §4.4).

:class:`Bench` runs the jobs one after another in the calling thread. ``race_fn`` (default :class:`PresetRacer`:
prepare + sequential Race) and ``clock`` are injectable, so the tests run on fakes and a fake clock.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from ..core.errors import ArenaError
from ..core.knobs import REQUEST
from ..core.presets import Preset
from ..core.requests import WARMUP_TOKENS, Limits, RaceRequest, apply_overrides, race_tokens
from ..core.words import msg
from ..race.methods import get_method
from .request import BENCH_NUMBERS, BenchPlan
from .stats import make_row
from .suite import SuitePrompt
from .sweep import length_knob, plan_variants

#: (preset, prompt text, stop event) -> a finished app.race.result.RaceResult.
RaceFn = Callable[[Preset, str, threading.Event], Any]


class PresetRacer:
    """The default race_fn: prepare (models from `cache`, default the process-wide one) and a sequential Race,
    which warms both sides up before timing; the bench's stop event stops it. Records each preset's weight dtype."""

    def __init__(self, limits: Limits, seed: int | None = None, load_progress: Callable | None = None,
                 cache: Any = None):
        self.limits, self.seed, self.load_progress, self.cache = limits, seed, load_progress, cache
        self.dtypes: dict[str, str] = {}

    def __call__(self, preset: Preset, prompt: str, stop: threading.Event) -> Any:
        from ..race.lifecycle import RaceRun

        run = RaceRun(RaceRequest(preset, prompt, self.seed, self.limits), sequential=True, stop=stop,
                      cache=self.cache, progress=self.load_progress)
        try:
            setup = run.prepare()
            self.dtypes[preset.id] = str(setup.target.model.dtype).replace("torch.", "")
            return run.run()
        finally:
            run.close("the benchmark ended early")


@dataclass(frozen=True)
class Job:
    """One race: a preset (with the sweep value applied), a prompt, the repeat number (from 1), the swept knob
    and its value (None: the preset as planned; in a regret sweep, the cost-aware schedule)."""

    preset: Preset
    prompt: SuitePrompt
    repeat: int
    sweep_value: int | None = None
    sweep_knob: str | None = None


@dataclass
class BenchProgress:
    """What a progress callback gets. phase: "warm-up" | "run" | "done" | "stopped"; done/total: races
    finished / planned; elapsed and eta in seconds of the bench's clock (eta None until a race finished)."""

    phase: str
    done: int
    total: int
    preset: str = ""
    category: str = ""
    prompt_id: str = ""
    repeat: int = 0
    sweep_value: int | None = None
    elapsed: float = 0.0
    eta: float | None = None

    @property
    def fraction(self) -> float:
        return self.done / self.total if self.total else 1.0


def check_plan(plan: BenchPlan) -> list[tuple[Preset, list[tuple[int | None, Preset]]]]:
    """Each preset (max_new_tokens applied) with its sweep variants; ArenaError for a bad plan, before any load."""
    if not plan.presets:
        raise ArenaError(msg("Choose at least one preset to benchmark."))
    if not plan.prompts:
        raise ArenaError(msg("The benchmark has no prompts: check the suite, categories and split."))
    BENCH_NUMBERS["repeats"].require(plan.repeats, REQUEST)
    ids = [p.id for p in plan.presets]
    if len(set(ids)) != len(ids):
        raise ArenaError(msg("A preset is listed twice: {ids}", ids=', '.join(ids)))
    out = []
    for preset in plan.presets:
        if plan.max_new_tokens is not None:
            preset = apply_overrides(preset, {"max_new_tokens": plan.max_new_tokens})
        get_method(preset.method).check_preset(preset)
        out.append((preset, plan_variants(preset, plan.sweep, plan.regret)))
    return out


def plan_jobs(plan: BenchPlan, checked: list[tuple[Preset, list[tuple[int | None, Preset]]]]) -> list[Job]:
    """Every race in order: per preset, per variant, per repeat, per prompt; a regret sweep interleaves instead
    (per preset, per repeat, per prompt, every variant), so the variants of a prompt race close in time."""
    repeats = range(1, plan.repeats + 1)
    out = []
    for preset, vs in checked:
        knob = plan.sweep.knob if plan.sweep else length_knob(preset) if plan.regret else None
        if plan.regret is None:
            order = [(value, variant, r, p) for value, variant in vs for r in repeats for p in plan.prompts]
        else:
            order = [(value, variant, r, p) for r in repeats for p in plan.prompts for value, variant in vs]
        out += [Job(variant, p, r, value, knob if value is not None else None) for value, variant, r, p in order]
    return out


class Bench:
    """Runs a :class:`BenchPlan`. rows: one dict per finished race (app.bench.stats.make_row; read them from any
    thread, such as the page's or the terminal bar's); stopped: Stop was pressed; progress: called with a
    :class:`BenchProgress` before and after each race."""

    def __init__(self, plan: BenchPlan, race_fn: RaceFn, clock: Callable[[], float] = time.perf_counter,
                 progress: Callable[[BenchProgress], None] | None = None, time_limit: float | None = None):
        """time_limit: seconds of the real clock after which the race in flight is stopped and the bench ends as
        stopped (`timed_out` True); None: no limit."""
        self.plan = plan
        self.race_fn = race_fn
        self.time_limit, self.timed_out = time_limit, False
        self.clock = clock
        self.progress = progress or (lambda p: None)
        self.stop_event = threading.Event()
        self.rows: list[dict[str, Any]] = []
        self.stopped = False
        self.checked = check_plan(plan)
        self.jobs = plan_jobs(plan, self.checked)
        self._started: float | None = None

    @property
    def total(self) -> int:
        return len(self.jobs)

    @property
    def work_tokens(self) -> int:
        """The most tokens the whole bench generates: each preset's warm-up race and every sequential race."""
        warm = sum(race_tokens(self._warm_up_tokens(p), True) for p, _ in self.checked) if self.plan.warm_up else 0
        return warm + sum(race_tokens(job.preset.max_new_tokens, True) for job in self.jobs)

    def stop(self) -> None:
        """End the race in flight after its current forward pass; finished rows are kept."""
        self.stop_event.set()

    def _report(self, phase: str, job: Job | None = None, preset: str = "") -> None:
        elapsed = self.clock() - self._started if self._started is not None else 0.0
        done = len(self.rows)
        eta = elapsed / done * (self.total - done) if done and phase == "run" else None
        where = (job.preset.id, job.prompt.category, job.prompt.id, job.repeat, job.sweep_value) if job else (preset,)
        self.progress(BenchProgress(phase, done, self.total, *where, elapsed=elapsed, eta=eta))

    def _race(self, preset: Preset, prompt: SuitePrompt) -> Any:
        """One race; ArenaError naming the preset and prompt for any failure (an error is never a row)."""
        try:
            result = self.race_fn(preset, prompt.prompt, self.stop_event)
        except ArenaError as exc:
            raise ArenaError(msg("{preset} on prompt {prompt}: {exc}", preset=preset.id, prompt=prompt.id, exc=exc)) from None
        if result.errors and not (result.stopped or self.stop_event.is_set()):
            side, message = next(iter(result.errors.items()))
            raise ArenaError(msg("{preset} on prompt {prompt}: the {side} run failed: {message}", preset=preset.id,
                                 prompt=prompt.id, side=side, message=message))
        return result

    def _warm_up(self, preset: Preset) -> None:
        self._report("warm-up", preset=preset.id)
        self._race(apply_overrides(preset, {"max_new_tokens": self._warm_up_tokens(preset)}), self.plan.prompts[0])

    @staticmethod
    def _warm_up_tokens(preset: Preset) -> int:
        return min(WARMUP_TOKENS, preset.max_new_tokens)

    def _time_up(self) -> None:
        self.timed_out = True
        self.stop()

    def run(self) -> list[dict[str, Any]]:
        """Run every job (warm-up first per preset); returns the rows (partial when stopped)."""
        self._started = self.clock()
        timer = threading.Timer(self.time_limit, self._time_up) if self.time_limit is not None else None
        if timer is not None:
            timer.daemon = True
            timer.start()
        try:
            self._run_jobs()
        finally:
            if timer is not None:
                timer.cancel()
        self.stopped = self.stop_event.is_set()
        self._report("stopped" if self.stopped else "done")
        return list(self.rows)

    def _run_jobs(self) -> None:
        warmed: set[str] = set()
        for job in self.jobs:
            if self.stop_event.is_set():
                break
            if self.plan.warm_up and job.preset.id not in warmed:
                self._warm_up(job.preset)
                warmed.add(job.preset.id)
                if self.stop_event.is_set():
                    break
            self._report("run", job)
            start = self.clock()
            result = self._race(job.preset, job.prompt)
            if result.stopped or self.stop_event.is_set():
                break
            sweep = (job.sweep_knob, job.sweep_value) if job.sweep_knob else None
            self.rows.append(make_row(result, job.preset, job.prompt, job.repeat, sweep, self.clock() - start))
