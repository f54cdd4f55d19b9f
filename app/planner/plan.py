"""The draft planner: a :class:`~app.planner.types.Plan` (the Planner tab's whole input, the ``plan --json`` object)
from numbers or measurements.

:func:`plan_from_numbers` is the calculator (alpha and c given); :func:`calculator_plan` adds memory
from configs when models are named; :func:`plan_for_preset` measures alpha and c first
(the method's kind, kinds.py), checks the prediction with real races (check.py), and adds memory, cost and
advice; an engine's plan is engine_plan.py's. The formulas are in theory.py; docs/DESIGN.md §5 has their sources.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from ..core.errors import ArenaError
from ..core.presets import get_preset
from ..core.requests import Limits, race_tokens
from ..core.theory import best_gamma, predicted_speedup, speedup_curve, table_around, verdict
from ..race.prepare import RaceSetup
from ..race.stats import EVEN_BAND
from .advice import advice, vocabulary_check
from .check import CheckRun, race_prompts
from .cost import DEFAULT_GPUS, HOURS_PER_MONTH, GpuPrice, cost_summary
from .kinds import DraftKind, draft_kind
from .measure import (AgreementAlpha, LookupAgreement, Progress, borrowed_tokenizers, lookup_alpha, prepare_all,
                      reference_tokens)
from ..core.machine import peak_memory_bytes
from ..core.words import join, msg
from .memory import (DEFAULT_CONTEXT_TOKENS, DEFAULT_DTYPE, DEFAULT_GPU_MEMORY_GB, MeasuredMemory, PairMemory,
                     memory_or_reason)
from .timing import VERIFY_K, StepRatio, VerifySlope, timed_verify_slope
from .types import (Check, CurvePoint, FinalVerdict, GammaTable, HardwareAdjusted, MeasuredPoint, Measurement, Plan,
                    TheoryVerdict)


@dataclass
class PlanOptions:
    """Settings of one plan. dtype/context/gpu_memory_gb: the memory check; gpus/hours_per_month: cost;
    max_new_tokens (None: the preset's), repeats x steps: the c timing; check: race the prediction;
    limits: the request's (the server's, or Limits.operator() on the command line): caps, local folders, work budget."""

    dtype: str = DEFAULT_DTYPE
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    gpu_memory_gb: float = DEFAULT_GPU_MEMORY_GB
    gpus: tuple[GpuPrice, ...] = DEFAULT_GPUS
    hours_per_month: float = HOURS_PER_MONTH
    max_new_tokens: int | None = None
    repeats: int = 9
    steps: int = 8
    check: bool = True
    limits: Limits = Limits()


@dataclass
class Measured:
    """Everything measured before predicting. alpha: the value the prediction uses (alpha_source says which)."""

    setups: list[RaceSetup]
    agreement: AgreementAlpha
    lookup: LookupAgreement
    c: StepRatio
    verify: VerifySlope
    alpha: float | None = None
    alpha_source: str = ""
    probe: CheckRun | None = field(default=None)

    @property
    def c_effective(self) -> float:
        """c plus the verification slope: the cost ratio this hardware really pays per drafted token."""
        return self.c.value + self.verify.value


def curve_points(alpha: float, c: float, tokens: bool = True) -> list[CurvePoint]:
    """Theorem 3.8's curve over gamma 1..20, rounded as the JSON shows it; tokens: with tokens per round."""
    return [CurvePoint(p["gamma"], round(p["speedup"], 4), round(p["tokens_per_round"], 4) if tokens else None)
            for p in speedup_curve(alpha, c)]


def plan_from_numbers(alpha: float, c: float, options: PlanOptions = PlanOptions(),
                      speedup_for_cost: float | None = None, c_spread: tuple[float, float] | None = None) -> Plan:
    """The calculator: curve, best gamma, table around (alpha, c), verdict (c_spread: c's measured low..high, when
    measured), cost at the predicted speedup."""
    g, s = best_gamma(alpha, c)
    curve = curve_points(alpha, c)
    theory = TheoryVerdict(**verdict(alpha, c, c_spread=c_spread))
    plan = Plan(mode="calculator", alpha=round(alpha, 4), c=round(c, 5), best_gamma=g, predicted_speedup=round(s, 4),
                speedup_by_gamma={str(p.gamma): p.speedup for p in curve}, curve=curve, verdict=theory,
                table=GammaTable.of(table_around(alpha, c)),
                cost=cost_summary({msg("predicted"): s, msg("given"): speedup_for_cost}, options.gpus,
                                  options.hours_per_month),
                final=final_verdict(theory))
    plan.advice = advice(plan)
    return plan


def calculator_plan(alpha: float, c: float, options: PlanOptions, speedup: float | None = None,
                    preset_id: str | None = None, target: str | None = None, assistant: str | None = None,
                    method: str | None = None, allow_local: bool = False) -> Plan:
    """The calculator for (alpha, c), plus memory from configs when models are named (nothing loaded).

    speedup: also price this measured speedup; preset_id: take the models (and method) from this
    preset where `target`/`assistant` are not given.
    """
    plan = plan_from_numbers(alpha, c, options, speedup)
    if preset_id:
        preset = get_preset(preset_id)
        target, assistant = target or preset.target, assistant or preset.assistant
        plan.preset, plan.method = preset.id, method or preset.method
    if target:
        plan.target, plan.assistant = target, assistant
        plan.memory = memory_or_reason(target, assistant, options.dtype, options.context_tokens,
                                       options.gpu_memory_gb, allow_local=allow_local)
        plan.advice = advice(plan)
    return plan


# ----- measured plan ----------------------------------------------------------------------------------
#: A measured setting's verdict kind (app/race/verdict.py) -> whether drafting paid, in the plan's words.
PAYS = {"win": "yes", "loss": "no", "level": "level"}


def _recommend(runs: list[CheckRun], default: CheckRun) -> tuple[str, str]:
    """(which setting to use, from the measured runs; "yes" / "no" / "level": whether drafting paid, each setting's
    one verdict saying so; "unmeasured" when no setting's races were a measurement), `default` winning near-ties
    (nothing to tune). A setting whose races were not a measurement is named as such and never recommended."""
    good = [r for r in runs if r.measured]
    if not good:
        return msg("No setting's races were a measurement: {reason}.", reason=runs[0].verdict.reason), "unmeasured"
    text, said = _best_of(good, default)
    return join((text, *(msg("The {label} races were not a measurement: {reason}.", label=r.label, reason=r.verdict.reason)
                         for r in runs if not r.measured))), said


def _best_of(good: list[CheckRun], default: CheckRun) -> tuple[str, str]:
    """_recommend among the settings whose races were a measurement."""
    listed = join((join((r.label, f"{r.measured_speedup:.2f}x")) for r in good), ", ")
    best = sorted(good, key=lambda r: -r.measured_speedup)[0]
    said = PAYS[best.verdict.kind] if best.verdict is not None else pays(best.measured_speedup)
    if said == "no":
        return msg("Use neither: plain generate() was faster ({listed}).", listed=listed), "no"
    if said == "level":
        return msg("Level with plain generate() ({listed}): drafting does not pay here.", listed=listed), "level"
    if best is not default and default.measured and default.measured_speedup >= 0.95 * best.measured_speedup:
        return msg("About the same ({listed}): keep the {label}, nothing to tune.", listed=listed, label=default.label), "yes"
    return msg("Use the {label} ({listed}).", label=best.label, listed=listed), "yes"


def pays(speedup: float) -> str:
    """Whether a measured speedup (x) says drafting pays, at the narrowest noise band (only where no race verdict
    exists): "yes", "no", or "level"."""
    return "no" if speedup < 1 - EVEN_BAND else "level" if speedup <= 1 + EVEN_BAND else "yes"


def final_verdict(theory: TheoryVerdict, measured: tuple[str, str] | None = None) -> FinalVerdict:
    """The plan's one verdict (docs/DESIGN.md §5.16): the measured one when the plan raced (`measured`: whether it
    paid and the sentence saying so), else the prediction's. pays: "yes", "no", "level" or "close" (the timings cannot
    tell); source: "measured" or "predicted". Races that were not a measurement ("unmeasured") decide nothing: the
    prediction's verdict stands, and the sentence says why the races did not count."""
    if measured and measured[0] != "unmeasured":
        return FinalVerdict(measured[0], "measured", measured[1], theory.text)
    said = "close" if theory.close else "yes" if theory.alpha_exceeds_c and theory.worth_it else "no"
    text = theory.text if not measured else join((theory.text, measured[1]))
    return FinalVerdict(said, "predicted", text, theory.text)


def _check(preset: Any, prompts: Sequence[str], kind: DraftKind, plan: Plan, m: Measured, limits: Limits,
           progress: Progress | None) -> Check:
    """Race the best constant gamma and the default setting (and the hardware-adjusted best gamma when it
    differs); predicted vs measured for each."""
    a, c_eff = plan.alpha, m.c_effective

    def constant_run(g: int, label: str) -> CheckRun:
        knobs = kind.constant_knobs(g)
        run = (m.probe if m.probe and m.probe.knobs == knobs
               else race_prompts(preset, prompts, knobs, c_eff, limits, progress))
        run.label, run.gamma, run.predicted_speedup = label, g, round(predicted_speedup(a, plan.c, g), 4)
        return run

    constant = constant_run(plan.best_gamma, msg("constant gamma {gamma}", gamma=plan.best_gamma))
    label, knobs, og = kind.default_setting(preset)
    other = race_prompts(preset, prompts, knobs, c_eff, limits, progress)
    other.label, other.gamma = label, og
    other.predicted_speedup = round(predicted_speedup(a, plan.c, og), 4) if og else None
    g_adj = plan.hardware_adjusted.best_gamma
    adjusted = None if g_adj in (plan.best_gamma, og) else constant_run(g_adj, msg("constant gamma {gamma} (hardware-adjusted)",
                                                                                   gamma=g_adj))
    runs = [r for r in (constant, other, adjusted) if r is not None]
    for run in runs:
        run.predicted_adjusted = round(predicted_speedup(a, c_eff, run.gamma), 4) if run.gamma else None
    return Check(constant, other, adjusted, *_recommend(runs, other))


def plan_work_tokens(preset: Any, prompts: int, options: PlanOptions) -> int:
    """The most tokens a measured plan generates, in token-equivalents (the bound of docs/DESIGN.md §4.5)."""
    tokens = options.max_new_tokens or preset.max_new_tokens
    timing = 2 * options.repeats * (options.steps + 2) + 2 * options.repeats * (VERIFY_K + 1)
    settings = (3 + draft_kind(preset.method).observes_alpha) if options.check else 0
    return prompts * 2 * tokens + timing + settings * prompts * race_tokens(tokens, True)


def _measure(preset: Any, prompts: list[str], kind: DraftKind, options: PlanOptions, progress: Progress | None) -> Measured:
    """Everything measured before predicting: setups, alpha by agreement, lookup alpha, c, verify slope, UAD probe."""
    setups = prepare_all(preset, prompts, options.limits, progress)
    if progress:
        progress(msg("Generating the target's greedy text and measuring alpha and c"))
    refs = [reference_tokens(s) for s in setups]
    m = Measured(setups, kind.agreement_alpha(setups, refs), lookup_alpha(setups, refs),
                 kind.measure_c(setups[0], refs[0], options.repeats, options.steps),
                 timed_verify_slope(setups[0], refs[0], repeats=options.repeats))
    m.alpha, m.alpha_source = m.agreement.value, msg("greedy agreement (the drafter-choice article's method)")
    if kind.observes_alpha and options.check:
        g0 = preset.num_assistant_tokens or 5
        m.probe = race_prompts(preset, prompts, kind.constant_knobs(g0), m.c_effective, options.limits, progress)
        m.alpha, m.alpha_source = m.probe.observed.value, msg("observed in constant gamma {gamma} runs (tokenizers differ)",
                                                              gamma=g0)
    if m.alpha is None:
        raise ArenaError(msg("The target generated no tokens to measure alpha on: use longer outputs or other prompts."))
    return m


def _measured_report(plan: Plan, preset: Any, prompts: list[str], kind: DraftKind, m: Measured) -> None:
    """The measured parts of the plan: who, the hardware-adjusted prediction and the measurement itself."""
    g_adj, s_adj = best_gamma(m.alpha, m.c_effective)
    device = m.setups[0].device
    plan.mode, plan.preset, plan.method, plan.target, plan.assistant = ("measured", preset.id, preset.method,
                                                                        preset.target, preset.assistant)
    plan.alpha_source, plan.c_source, plan.device, plan.notes = m.alpha_source, m.c.what, device, _notes(kind, device)
    plan.hardware_adjusted = HardwareAdjusted(m.verify, round(m.c_effective, 5), g_adj, round(s_adj, 4),
                                              curve_points(m.alpha, m.c_effective, tokens=False))
    plan.measurement = Measurement(len(prompts), preset.max_new_tokens, True, m.agreement,
                                   m.probe.observed if m.probe else None, m.c, m.lookup)


def _checked_report(plan: Plan, check: Check, options: PlanOptions) -> None:
    """The check races' parts of the plan: observed alpha, measured points and the cost of each."""
    plan.check = check
    plan.measurement.alpha_observed = check.constant.observed
    plan.measured_points = [MeasuredPoint(run.gamma or round(run.observed.mean_drafted, 2),
                                          round(run.measured_speedup, 4), msg("measured, {detail}", detail=run.label))
                            for run in check.runs if run.measured]  # no measurement, no point
    plan.cost = cost_summary({msg("predicted"): plan.predicted_speedup, **{p.label: p.speedup for p in plan.measured_points}},
                             options.gpus, options.hours_per_month)


def _memory_and_advice(plan: Plan, preset: Any, m: Measured, options: PlanOptions, sampling: tuple) -> None:
    note = ("" if preset.assistant else msg("no second model: drafts come from the target itself (or the prompt)"))
    plan.memory = memory_or_reason(preset.target, preset.assistant, options.dtype, options.context_tokens,
                                   options.gpu_memory_gb, note, options.limits.allow_local)
    if isinstance(plan.memory, PairMemory) and m.setups:
        target, drafter = m.setups[0].target, m.setups[0].assistant
        peak = peak_memory_bytes(target.device)
        plan.memory = replace(plan.memory, measured=MeasuredMemory(
            target.dtype, round(target.weight_bytes / 1e9, 3),
            round(drafter.weight_bytes / 1e9, 3) if drafter is not None else None,
            round(peak / 1e9, 3) if peak else None))
    if preset.assistant:
        with borrowed_tokenizers(m.setups[0]) as (tok, atok):
            plan.vocabulary = vocabulary_check(tok, atok)
    plan.advice = advice(plan, m.lookup, sampling, preset.assistant_early_exit)


def plan_for_preset(preset: Any, prompts: Sequence[str] | None = None, options: PlanOptions = PlanOptions(),
                    progress: Progress | None = None) -> Plan:
    """Measure alpha (by agreement and observed) and c on `prompts` (default: the preset's examples), predict,
    check with sequential races, and add memory, vocabulary, cost and advice. Greedy throughout."""
    kind = draft_kind(preset.method)
    prompts = list(prompts or preset.example_prompts)
    sampling = (preset.do_sample, preset.temperature)
    tokens = options.max_new_tokens or preset.max_new_tokens
    preset = preset.with_overrides({"do_sample": False, "max_new_tokens": tokens})
    options.limits.check_work(plan_work_tokens(preset, len(prompts), options), "planner measurement",
                              "fewer prompts or new tokens")
    m = _measure(preset, prompts, kind, options, progress)
    plan = plan_from_numbers(m.alpha, m.c.value, options, c_spread=(m.c.low, m.c.high))
    _measured_report(plan, preset, prompts, kind, m)
    if options.check:
        _checked_report(plan, _check(preset, prompts, kind, plan, m, options.limits, progress), options)
    _memory_and_advice(plan, preset, m, options, sampling)
    plan.final = final_verdict(plan.verdict, (plan.check.pays, plan.check.recommendation) if plan.check else None)
    plan.cost.projection = projection_note(plan.device)
    return plan


def projection_note(device: str | None) -> str | None:
    """Why a plan's prices are a projection, or None when it was measured on a GPU: prices are GPU hours, and a
    speedup measured on a CPU says nothing sure about one."""
    if device is None or str(device).startswith("cuda"):
        return None
    return (msg("a projection: measured on {device}, priced as if these GPUs gave the same speedups; measure on the GPU you "
                "will pay for", device=device))


def _notes(kind: DraftKind, device: str) -> list[str]:
    notes = [msg("Measured greedily (temperature 0), as the drafter-choice article's code does; re-check at the serving "
                 "temperature."), *kind.notes]
    if not str(device).startswith("cuda"):
        notes.append(msg("On a CPU, verifying gamma+1 tokens costs more than one decode step (compute-bound), which Theorem "
                         "3.8 ignores: predictions run high here (see hardware_adjusted)."))
    notes.append(msg("c is the model step ratio; transformers' fixed per-round work (the drafter's own generate() call, "
                     "candidate bookkeeping) is not in it and shows up only in the measured speedups."))
    return notes
