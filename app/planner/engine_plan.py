"""The planner on a serving engine (docs/DESIGN.md §4.7, §5.17): the prompts raced through the engine one after
the other (plain, then with its speculation, as the engine race does), alpha per token from the engine's own rounds,
c from the engine's own step times, Theorem 3.8's prediction from them beside the speedups measured.

The engine's configuration is fixed at its launch (its drafter, its draft length), so there is nothing to race
against it: the plan says what the measured alpha and c predict at every draft length, and how the engine's own
speculation did.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Sequence

from ..core.errors import ArenaError, StoppedError
from ..core.theory import predicted_speedup
from ..core.words import msg
from ..engine.request import EngineRequest
from ..engine.result import EngineRace
from ..engine.rounds import TOTALS
from ..engine.run import run_engine
from .advice import advice
from .cost import cost_summary
from .measure import Progress, observed_alpha
from ..race.verdict import pooled
from .plan import PAYS, PlanOptions, final_verdict, plan_from_numbers, projection_note
from .types import EngineCost, EngineMeasurement, EngineSpeedup, MeasuredPoint, Plan

#: Where a side's decode time comes from: the engine's own timings (llama.cpp), else the arena's clock.
ENGINE_TIMES = msg("the engine's own timings (predicted_ms / predicted_n)")
ARENA_TIMES = msg("the arena's clock (first token to last)")


@dataclass
class Decode:
    """One side's decode phase: `ms` milliseconds over `tokens` tokens, and where the time comes from."""

    ms: float
    tokens: int
    source: str


def decode_time(reported: dict[str, Any], token_times: Sequence[float]) -> Decode:
    """A side's decode phase: the engine's predicted_ms over predicted_n when it reports them (llama.cpp; prompt
    processing left out), else the arena's clock from the first token to the last over the tokens after the first."""
    ms, n = reported.get("predicted_ms"), reported.get("predicted_n")
    if isinstance(ms, (int, float)) and isinstance(n, int) and ms > 0 and n > 0:
        return Decode(float(ms), n, ENGINE_TIMES)
    return Decode(1e3 * (token_times[-1] - token_times[0]) if len(token_times) > 1 else 0.0,
                  max(len(token_times) - 1, 0), ARENA_TIMES)


@dataclass
class PromptCost:
    """What one prompt's two sides give c (docs/DESIGN.md §5.17): plain's decode, the assisted side's decode, its
    drafting steps, the tokens they drafted and kept (accepted + 1 each), and the tokens made without a draft."""

    plain: Decode
    assisted: Decode
    steps: int
    drafted: int
    step_tokens: int

    @property
    def undrafted(self) -> int:
        """Assisted tokens no drafting step made (one plain step each), at least 0."""
        return max(self.assisted.tokens - self.step_tokens, 0)


def prompt_cost(race: EngineRace) -> PromptCost:
    """The figures c needs from one engine race."""
    reported, result = race.engine["reported"], race.result
    drafting = [r for r in result.assisted.rounds if r.drafted > 0]
    return PromptCost(decode_time(reported["baseline"], result.baseline.token_times),
                      decode_time(reported["assisted"], result.assisted.token_times), len(drafting),
                      sum(r.drafted for r in drafting), sum(r.accepted + 1 for r in drafting))


def engine_c(costs: Sequence[PromptCost]) -> tuple[float, float, float, float]:
    """(c, plain ms a token, ms a verify step, mean drafted) pooled over `costs` (docs/DESIGN.md §5.17):

        t_plain = plain ms / plain tokens
        t_step  = (assisted ms - undrafted tokens x t_plain) / drafting steps
        c       = (t_step / t_plain - 1) / mean drafted,   at least 0

    so a drafting step costs 1 + mean drafted x c plain steps, as Theorem 3.8 counts it."""
    plain_ms, plain_n = sum(x.plain.ms for x in costs), sum(x.plain.tokens for x in costs)
    steps, drafted = sum(x.steps for x in costs), sum(x.drafted for x in costs)
    if not plain_n or not plain_ms or not steps:
        raise ArenaError(msg("The engine's timings give no decode time to measure c on: race longer outputs."))
    t_plain = plain_ms / plain_n
    t_step = (sum(x.assisted.ms for x in costs) - sum(x.undrafted for x in costs) * t_plain) / steps
    mean = drafted / steps
    return max(0.0, (t_step / t_plain - 1) / mean), t_plain, t_step, mean


def _speedups(races: Sequence[EngineRace], costs: Sequence[PromptCost], alpha: float, c: float,
              mean_drafted: float) -> EngineSpeedup:
    """Decode (the engine's own clock, prefill left out) and end-to-end (the arena's clock) speedups over all
    prompts, each prompt's decode speedup, and Theorem 3.8's at the engine's own (rounded) mean draft length."""
    def rate(decodes: list[Decode]) -> float:
        return sum(d.tokens for d in decodes) / max(sum(d.ms for d in decodes), 1e-9)

    def end_to_end(side: str) -> float:
        sides = [getattr(r.result, side) for r in races]
        return sum(s.new_tokens for s in sides) / max(sum(s.seconds for s in sides), 1e-9)

    decode = rate([x.assisted for x in costs]) / max(rate([x.plain for x in costs]), 1e-12)
    per_prompt = [round(rate([x.assisted]) / max(rate([x.plain]), 1e-12), 4) for x in costs]
    gamma = max(1, round(mean_drafted))
    return EngineSpeedup(round(decode, 4), round(end_to_end("assisted") / max(end_to_end("baseline"), 1e-12), 4),
                         per_prompt, gamma, round(predicted_speedup(alpha, c, gamma), 4))


def measure_engine(races: Sequence[EngineRace], max_new_tokens: int) -> EngineMeasurement:
    """alpha, c and the measured speedups of finished engine races (one per prompt); ArenaError when the engine
    reported only totals or drafted nothing."""
    source = races[0].status_source
    if any(r.status_source == TOTALS for r in races):
        raise ArenaError(msg("The engine reported only its totals of drafted and accepted tokens, not its steps: alpha per "
                             "token cannot be measured from them."))
    rounds = [x for r in races for x in r.result.assisted.rounds]
    alpha = observed_alpha(rounds)
    if alpha.value is None:
        raise ArenaError(msg("The engine drafted nothing on these prompts, so there is no acceptance to measure: use prompts "
                             "whose answers copy them (code edits, summaries), or a drafter."))
    costs = [prompt_cost(r) for r in races]
    c, t_plain, t_step, mean = engine_c(costs)
    per_prompt = [round(engine_c([x])[0], 5) for x in costs if x.steps]
    what = msg("(verify step - plain step) / (mean drafted x plain step), from {source}", source=costs[0].assisted.source)
    info = races[0].engine
    return EngineMeasurement(info["name"], info.get("version"), info.get("speculative_type") or "", source,
                             len(races), max_new_tokens, True, alpha,
                             EngineCost(round(c, 5), min(per_prompt), max(per_prompt), round(t_plain, 4),
                                        round(t_step, 4), round(mean, 4), sum(x.steps for x in costs), per_prompt,
                                        what),
                             _speedups(races, costs, alpha.value, round(c, 5), mean),
                             all(r.result.identical for r in races))


def race_prompts_on(requests: Sequence[EngineRequest], progress: Progress | None = None,
                    stop: threading.Event | None = None) -> list[EngineRace]:
    """The engine races, one after the other, each through the one engine-race lifecycle (app/engine/run.py); its
    faults are the engine race's own lines, and a set `stop` (the open request closed at once) is StoppedError."""
    races = []
    for i, request in enumerate(requests):
        if progress:
            progress(msg("Racing prompt {i}/{requests} on the engine: plain, then with its speculation", i=i + 1,
                         requests=len(requests)))
        race = run_engine(request, stop=stop, label="engine plan")
        if race.result.stopped:
            raise StoppedError(msg("the engine plan was stopped"))
        races.append(race)
    return races


def plan_on_engine(requests: Sequence[EngineRequest], options: PlanOptions, progress: Progress | None = None,
                   stop: threading.Event | None = None) -> Plan:
    """Race the checked `requests` (one a prompt: app/planner/request.py ``engine_requests``, which counted the work
    budget before any of them) through the engine and plan from what it measured (docs/DESIGN.md §5.17): mode
    "measured", the engine's section in ``engine``, its measured speedups beside the prediction. options: the cost's
    prices and hours."""
    races = race_prompts_on(requests, progress, stop)
    m = measure_engine(races, requests[0].max_new_tokens)
    plan = plan_from_numbers(m.alpha_observed.value, m.c.value, options, c_spread=(m.c.low, m.c.high))
    first = races[0].result
    plan.mode, plan.preset, plan.method, plan.target, plan.assistant, plan.device = (
        "measured", first.preset, first.method, first.target, None, first.device)
    plan.alpha_source = msg("observed in the engine's own rounds ({source}), per token", source=m.status_source)
    plan.c_source, plan.engine = msg("measured from the engine: {what}", what=m.c.what), m
    gamma = round(m.c.mean_drafted, 2)
    plan.measured_points = [MeasuredPoint(gamma, m.speedup.decode, msg("measured, engine decode")),
                            MeasuredPoint(gamma, m.speedup.end_to_end, msg("measured, arena clock (end to end)"))]
    plan.cost = cost_summary({msg("predicted"): plan.predicted_speedup, **{p.label: p.speedup for p in plan.measured_points}},
                             options.gpus, options.hours_per_month)
    plan.notes = _notes(m)
    verdict = pooled([r.result.verdict for r in races], m.speedup.decode)  # the races' one verdict, pooled
    said = _verdict_text(m, verdict)
    plan.final = final_verdict(plan.verdict, (PAYS.get(verdict.kind, "unmeasured"), said))
    plan.advice = advice(plan, recommendation=said)
    plan.cost.projection = projection_note(plan.device)
    return plan


def _verdict_text(m: EngineMeasurement, verdict: Any) -> str:
    """The measured verdict in words: the engine's decode and end-to-end speedups beside the prediction at its own
    mean draft length; `verdict`: the engine races' one verdict, pooled (app/race/verdict.py), which decides."""
    s = m.speedup
    figures = (msg("decode {decode}x by the engine's clock, {e2e}x end to end by the arena's; Theorem 3.8 predicts "
                   "{predicted}x at gamma {gamma}, its mean draft of {drafted} tokens rounded", decode=f"{s.decode:.2f}",
                   e2e=f"{s.end_to_end:.2f}", predicted=f"{s.predicted:.2f}", gamma=s.predicted_gamma,
                   drafted=f"{m.c.mean_drafted:.1f}"))
    if not verdict.measured:
        return msg("The engine races were not a measurement ({figures}): {reason}.", figures=figures, reason=verdict.reason)
    return {"yes": msg("The engine's speculation pays ({figures}).", figures=figures),
            "level": msg("The engine's speculation is level with plain decoding ({figures}).", figures=figures),
            "no": msg("The engine's speculation is slower than plain decoding ({figures}): turn it off or change its drafter.",
                      figures=figures)}[PAYS[verdict.kind]]


def _notes(m: EngineMeasurement) -> list[str]:
    return [msg("Measured on a serving engine ({name} {spec}), greedily and sequentially: each prompt plain first, then with "
                "the engine's speculation.", name=m.name, spec=m.speculative_type),
            msg("c is measured from the engine's own step times (docs/DESIGN.md \u00a75.17): it holds the drafting, the "
                "verification of the drafts and the engine's per-step work, so it is already the effective c; no separate "
                "hardware adjustment applies."),
            msg("The engine drafts at its own configured length; the curve says what other lengths would give at the measured "
                "alpha and c (set them at the engine's launch, python -m app deploy)."),
            msg("Theorem 3.8 takes each draft token as accepted independently with probability alpha; an n-gram drafter's "
                "acceptances come in runs, so compare the prediction at the engine's length with the measured speedup before "
                "trusting the curve.")]
