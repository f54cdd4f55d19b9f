"""What a benchmark asks for (:class:`BenchPlan`), built and checked once for the Benchmark tab and ``python -m app
bench``: one set of bounds (:data:`BENCH_NUMBERS`), presets through the request builder, the races within the limits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from ..core.errors import ArenaError
from ..core.knobs import FORM, Knob, Origin
from ..core.presets import Preset
from ..core.requests import Limits, build_preset, check_new_tokens
from ..core.words import msg
from .suite import SuitePrompt, select
from .sweep import Regret, Sweep, plan_variants

#: A benchmark's counts, named as the command line's flags, labelled as the page's fields.
BENCH_NUMBERS = {k.name: k for k in (
    Knob("limit", "int", "Prompts per category", "at most N prompts per category", 1, 100_000),
    Knob("repeats", "int", "Repeats", "races per prompt", 1, 100),
)}


@dataclass
class BenchPlan:
    """What to run. presets: with their overrides applied; repeats: races per prompt (>= 1); warm_up: one short
    race per preset before timing; max_new_tokens: set on every preset when given; sweep or regret: the variants
    of each preset (app.bench.sweep)."""

    presets: Sequence[Preset]
    prompts: Sequence[SuitePrompt]
    repeats: int = 1
    max_new_tokens: int | None = None
    sweep: Sweep | None = None
    regret: Regret | None = None
    warm_up: bool = True
    suite_name: str = "builtin"
    split: str = "all"
    extra: dict[str, Any] = field(default_factory=dict)


def bench_plan(preset_ids: Iterable[str], suite: list[SuitePrompt], categories: Iterable[str] | None, split: Any,
               limit: Any, repeats: Any, max_new_tokens: Any, limits: Limits, origin: Origin = FORM,
               **rest: Any) -> BenchPlan:
    """The plan a request asks for under `limits`: its presets through the request builder, the prompts of
    `categories` (None: all; empty: an error) and `split` from `suite`, at most `limits.bench_races` races.
    rest: BenchPlan's sweep, regret, warm_up, suite_name."""
    ids = [i.strip() for i in preset_ids if i and i.strip()]
    if not ids:
        raise ArenaError(msg("Choose at least one preset to benchmark (see `python -m app presets`)."))
    if categories is not None and not list(categories):
        raise ArenaError(msg("Choose at least one category."))
    tokens = check_new_tokens(max_new_tokens, limits, origin)
    split = str(split or "all")
    prompts = select(suite, list(categories or []), split, BENCH_NUMBERS["limit"].check(limit, origin))
    plan = BenchPlan([build_preset(i, {}, limits, origin) for i in ids], prompts,
                     BENCH_NUMBERS["repeats"].require(repeats, origin), tokens, split=split, **rest)
    races = sum(len(plan_variants(p, plan.sweep, plan.regret)) for p in plan.presets) * len(prompts) * plan.repeats
    if limits.bench_races is not None and races > limits.bench_races:
        raise ArenaError(msg("That is {races} races; this server runs at most {bench_races} at once: fewer prompts or "
                             "repeats, or `python -m app bench` for a long run.", races=races, bench_races=limits.bench_races))
    return plan
