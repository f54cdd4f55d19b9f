"""The draft planner: Theorem 3.8, the best gamma, the seed's alpha x c table, verdict and advice.

Leviathan et al. (2022), Theorem 3.8: with acceptance rate alpha (per draft token, i.i.d.) and
cost ratio c (one draft step / one target step), drafting gamma tokens a round gives

    speedup(gamma) = (1 - alpha^(gamma+1)) / ((1 - alpha) (gamma c + 1))

(at alpha = 1 the numerator's limit (1 - alpha^(gamma+1)) / (1 - alpha) is gamma + 1). Gamma is
searched over 1..20 as in the seed article; ties go to the smaller gamma. Speedup > 1 is possible
iff alpha > c (Corollary 3.9; gamma = 1 gives (1 + alpha) / (1 + c)).

:func:`plan_from_numbers` is the seed's calculator; :func:`plan_for_preset` measures alpha and c
first (see measure.py), checks the prediction with real runs, and adds memory, cost and advice.
Both return one JSON-ready dict, the Planner tab's whole input; :func:`speedup_svg` and
:func:`curve_frame` draw its curve.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .cost import DEFAULT_GPUS, HOURS_PER_MONTH, GpuPrice, cost_summary
from .errors import ArenaError

GAMMAS = tuple(range(1, 21))
SEED_ALPHAS = (0.5, 0.6, 0.7, 0.8, 0.9)
SEED_CS = (0.02, 0.05, 0.1, 0.2)


def check_alpha_c(alpha: float, c: float) -> None:
    """ArenaError unless 0 <= alpha <= 1 and c >= 0 (both finite numbers)."""
    if not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or not 0.0 <= alpha <= 1.0:
        raise ArenaError(f"alpha must be an acceptance rate between 0 and 1; got {alpha}.")
    if not isinstance(c, (int, float)) or not math.isfinite(c) or c < 0:
        raise ArenaError(f"c must be a cost ratio >= 0 (draft step time / target step time); got {c}.")


def tokens_per_round(alpha: float, gamma: int) -> float:
    """Expected tokens per target pass: (1 - alpha^(gamma+1)) / (1 - alpha); gamma + 1 at alpha = 1."""
    return float(gamma + 1) if alpha >= 1.0 else (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)


def predicted_speedup(alpha: float, c: float, gamma: int) -> float:
    """Theorem 3.8 speedup (x) for acceptance `alpha`, cost ratio `c`, `gamma` drafts a round."""
    check_alpha_c(alpha, c)
    if gamma < 1:
        raise ArenaError(f"gamma (drafts per round) must be at least 1; got {gamma}.")
    return tokens_per_round(alpha, gamma) / (gamma * c + 1.0)


def speedup_curve(alpha: float, c: float, gammas: Sequence[int] = GAMMAS) -> list[dict[str, float]]:
    """[{gamma, speedup, tokens_per_round}] for every gamma."""
    return [{"gamma": g, "speedup": predicted_speedup(alpha, c, g), "tokens_per_round": tokens_per_round(alpha, g)}
            for g in gammas]


def best_gamma(alpha: float, c: float, gammas: Sequence[int] = GAMMAS) -> tuple[int, float]:
    """(gamma, speedup) with the highest predicted speedup; the smallest gamma among (near-)ties."""
    best = (gammas[0], predicted_speedup(alpha, c, gammas[0]))
    for g in gammas[1:]:
        s = predicted_speedup(alpha, c, g)
        if s > best[1] * (1 + 1e-12):
            best = (g, s)
    return best


def gamma_table(alphas: Sequence[float], cs: Sequence[float], mark: tuple[float, float] | None = None) -> dict:
    """The seed's table: best gamma and speedup for every (alpha, c); `mark` flags the measured cell."""
    rows = []
    for a in alphas:
        row = []
        for c in cs:
            g, s = best_gamma(a, c)
            row.append({"alpha": a, "c": c, "best_gamma": g, "speedup": round(s, 4),
                        "measured": mark is not None and math.isclose(a, mark[0]) and math.isclose(c, mark[1])})
        rows.append(row)
    return {"alphas": list(alphas), "cs": list(cs), "cells": rows}


def table_around(alpha: float, c: float) -> dict:
    """A 5 x 5 table centred on the measured (alpha, c): alpha +-0.05/0.1, c x0.5..x2."""
    alphas = sorted({round(min(1.0, max(0.0, alpha + d)), 4) for d in (-0.1, -0.05, 0.0, 0.05, 0.1)})
    cs = sorted({round(c * f, 5) for f in (0.5, 0.75, 1.0, 1.5, 2.0)}) if c > 0 else [0.0, 0.01, 0.02, 0.05, 0.1]
    return gamma_table(alphas, cs, mark=(round(alpha, 4), round(c, 5)))


def verdict(alpha: float, c: float, gammas: Sequence[int] = GAMMAS) -> dict[str, Any]:
    """The "alpha must exceed c" check and which gammas would be slower than plain generate(), in plain words."""
    g, s = best_gamma(alpha, c, gammas)
    slower = [x for x in gammas if predicted_speedup(alpha, c, x) < 1.0]
    if alpha > c:
        text = (f"alpha {alpha:.2f} exceeds c {c:.3f}, so drafting can pay off: gamma {g} predicts {s:.2f}x.")
        if slower:
            first, last = slower[0], slower[-1]
            text += (f" Keep gamma below {first}: from there on it is slower than plain generate() "
                     f"({predicted_speedup(alpha, c, first):.2f}x at gamma {first}"
                     + (f", {predicted_speedup(alpha, c, last):.2f}x at gamma {last})." if last != first else ")."))
    else:
        text = (f"alpha {alpha:.2f} does not exceed c {c:.3f}, so no gamma makes assisted generation faster "
                f"(gamma 1 gives {(1 + alpha) / (1 + c):.2f}x): turn it off, or find a cheaper or better-matching drafter.")
    return {"alpha_exceeds_c": alpha > c, "worth_it": s > 1.0, "slower_than_plain_gammas": slower, "text": text}


@dataclass
class PlanOptions:
    """Settings of one plan. dtype/context/gpu_memory_gb: the memory check; gpus/hours_per_month: cost;
    max_new_tokens (None: the preset's), repeats x steps: the c timing; check: race the prediction."""

    dtype: str = "bfloat16"
    context_tokens: int = 4096
    gpu_memory_gb: float = 24.0
    gpus: tuple[GpuPrice, ...] = DEFAULT_GPUS
    hours_per_month: float = HOURS_PER_MONTH
    max_new_tokens: int | None = None
    repeats: int = 5
    steps: int = 8
    check: bool = True


def plan_from_numbers(alpha: float, c: float, options: PlanOptions = PlanOptions(),
                      speedup_for_cost: float | None = None) -> dict[str, Any]:
    """The calculator: curve, best gamma, table around (alpha, c), verdict, cost at the predicted speedup."""
    check_alpha_c(alpha, c)
    g, s = best_gamma(alpha, c)
    curve = speedup_curve(alpha, c)
    speedups = {"predicted": s}
    if speedup_for_cost:
        speedups["given"] = speedup_for_cost
    return {
        "mode": "calculator", "alpha": round(alpha, 4), "c": round(c, 5), "best_gamma": g,
        "predicted_speedup": round(s, 4),
        "speedup_by_gamma": {str(p["gamma"]): round(p["speedup"], 4) for p in curve},
        "curve": [{k: round(v, 4) if isinstance(v, float) else v for k, v in p.items()} for p in curve],
        "verdict": verdict(alpha, c), "table": table_around(alpha, c),
        "cost": cost_summary(speedups, options.gpus, options.hours_per_month),
        "measured_points": [], "notes": [], "advice": advice({"alpha": alpha, "c": c}),
    }

# ----- advice -----------------------------------------------------------------------------------------
def vocabulary_check(target_tok: Any, drafter_tok: Any) -> dict[str, Any]:
    """Whether two tokenizers have identical vocabularies (token -> id), as the seed's assert checks."""
    tv, dv = target_tok.get_vocab(), drafter_tok.get_vocab()
    return {"identical": tv == dv, "target_size": len(tv), "drafter_size": len(dv),
            "shared_strings": len(tv.keys() & dv.keys())}


def advice(facts: dict[str, Any]) -> list[str]:
    """The seed's situation-to-choice guidance applied to measured facts (plan dict keys; any may be missing)."""
    out: list[str] = []
    method, a, c = facts.get("method"), facts.get("alpha"), facts.get("c")
    vocab, mem, lookup = facts.get("vocabulary"), facts.get("memory") or {}, facts.get("lookup") or {}
    if vocab:
        if vocab["identical"]:
            out.append(f"Vocabularies identical ({vocab['target_size']} tokens): the plain drafter path works.")
        else:
            out.append(f"Vocabularies differ ({vocab['target_size']} vs {vocab['drafter_size']} tokens, "
                       f"{vocab['shared_strings']} strings shared): this pair needs uad, which adds re-tokenization "
                       "to c; a same-vocabulary drafter (or one distilled on the target's outputs) avoids it.")
    ratio = mem.get("param_ratio")
    if ratio:
        size = f"the drafter is 1/{1 / ratio:.0f} of the target's parameters"
        if ratio <= 1 / 50:
            out.append(f"{size}: the seed's first row - use it, gamma 6-10 from the table or the dynamic default.")
        elif ratio <= 1 / 10:
            out.append(f"{size}: small enough (at least 10x smaller); c decides, see below.")
        elif ratio <= 1 / 5:
            out.append(f"{size} (1/5-1/10 row): keep it only if c stays low; fixed gamma <= 3 or the dynamic default.")
        else:
            out.append(f"{size}: too large - the paper's best drafters were about 100x smaller; pick a smaller one.")
        if c is not None and c > 1.5 * ratio:
            out.append(f"c ({c:.3f}) is {c / ratio:.1f}x the parameter ratio ({ratio:.3f}), as the seed warns: "
                       "fixed per-layer costs do not shrink with size.")
        t, d = mem.get("target") or {}, mem.get("drafter") or {}
        if d and d.get("layers", 0) >= t.get("layers", 1):
            out.append(f"The drafter has {d['layers']} layers, the target {t['layers']}: a deep, narrow drafter "
                       "runs slower than its size suggests.")
    if facts.get("exit_layer") and mem.get("target"):
        n = mem["target"]["layers"]
        out.append(f"Early exit at layer {facts['exit_layer']} of {n} costs about {facts['exit_layer'] / n:.2f} of a full "
                   "step; only a shallow exit of a model trained for it (LayerSkip checkpoints) keeps c low and alpha high.")
    hw = facts.get("hardware_adjusted")
    if hw and hw["verify_slope"]["value"] > 0.02:
        out.append(f"Here verifying costs {hw['verify_slope']['value']:.2f} of a step per extra token (a GPU is near 0): "
                   f"effective c {hw['c_effective']:.3f}, best gamma {hw['best_gamma']} ({hw['predicted_speedup']:.2f}x).")
    if lookup.get("value") is not None and method != "prompt-lookup":
        if lookup["value"] >= 0.3:
            out.append(f"The target's output copies the prompt (prompt lookup would match {lookup['value']:.0%} of its "
                       "tokens): for summaries, translation and code edits try prompt-lookup first, "
                       "prompt_lookup_num_tokens about 5 - no second model, c close to 0.")
    if method == "prompt-lookup" and a is not None and a < 0.2:
        out.append(f"Only {a:.0%} of the output is found in the prompt: prompt lookup cannot help these prompts; "
                   "use a drafter.")
    if facts.get("do_sample") and facts.get("temperature", 1.0) >= 0.7:
        out.append("Sampling at a high temperature: the seed expects small gains for creative/chat traffic; keep "
                   "gamma small (2-3) and re-measure at the serving temperature (these numbers are greedy).")
    if mem and not mem.get("fits", True):
        out.append(f"Target + drafter need {mem['total_gb']:.2f} GB with {mem['context_tokens']} cached tokens, more "
                   f"than {mem['gpu_memory_gb']:g} GB: use a smaller drafter or n-gram prompt lookup.")
    if a is not None and c is not None and not a > c:
        out.append("alpha does not exceed c: leave assisted decoding off for this pair on this hardware.")
    if facts.get("recommendation"):
        out.append(facts["recommendation"])
    else:
        out.append("Race the table's fixed gamma against the dynamic default on real prompts and keep the faster.")
    return out


# ----- measured plan ----------------------------------------------------------------------------------
def _recommend(runs: list[dict], default: dict) -> str:
    """Which setting to use, from the measured runs (`default` wins near-ties: nothing to tune)."""
    ranked = sorted(runs, key=lambda r: -r["measured_speedup"])
    listed = ", ".join(f"{r['label']} {r['measured_speedup']:.2f}x" for r in runs)
    if ranked[0]["measured_speedup"] < 1.0:
        return f"Use neither: plain generate() was faster ({listed})."
    if ranked[0] is not default and default["measured_speedup"] >= 0.95 * ranked[0]["measured_speedup"]:
        return f"About the same ({listed}): keep the {default['label']}, nothing to tune."
    return f"Use the {ranked[0]['label']} ({listed})."


def _check(preset: Any, prompts: Sequence[str], kind: str, plan: dict, c_eff: float, probe: dict | None,
           progress: Callable[[str], None] | None) -> dict[str, Any]:
    """Race the best constant gamma and the default setting (and the hardware-adjusted best gamma when it
    differs); predicted vs measured for each."""
    from . import measure

    a = plan["alpha"]

    def constant_run(g: int, label: str) -> dict:
        knobs = measure.constant_knobs(kind, g)
        run = probe if probe and probe["knobs"] == knobs else measure.race_prompts(preset, prompts, knobs, c_eff, progress)
        run.update(label=label, gamma=g, predicted_speedup=round(predicted_speedup(a, plan["c"], g), 4))
        return run

    constant = constant_run(plan["best_gamma"], f"constant gamma {plan['best_gamma']}")
    label, knobs = measure.default_knobs(kind, preset)
    other = measure.race_prompts(preset, prompts, knobs, c_eff, progress)
    og = preset.prompt_lookup_num_tokens if kind == "lookup" else None
    other.update(label=label, gamma=og, predicted_speedup=round(predicted_speedup(a, plan["c"], og), 4) if og else None)
    g_adj = plan["hardware_adjusted"]["best_gamma"]
    adjusted = None if g_adj in (plan["best_gamma"], og) else constant_run(g_adj, f"constant gamma {g_adj} (hardware-adjusted)")
    runs = [r for r in (constant, other, adjusted) if r is not None]
    for run in runs:
        run["predicted_adjusted"] = round(predicted_speedup(a, c_eff, run["gamma"]), 4) if run["gamma"] else None
    return {"constant": constant, "default": other, "adjusted": adjusted, "recommendation": _recommend(runs, other)}


def _measure(preset: Any, prompts: list[str], kind: str, options: PlanOptions, progress: Any) -> dict[str, Any]:
    """Everything measured before predicting: setups, seed-style alpha, lookup alpha, c, verify slope, UAD probe."""
    from . import measure

    setups = measure.prepare_all(preset, prompts, progress)
    if progress:
        progress("Generating the target's greedy text and measuring alpha and c")
    refs = [measure.reference_tokens(s) for s in setups]
    c = measure.measure_c(setups[0], refs[0], options.repeats, options.steps)
    verify = measure.verify_slope(setups[0], refs[0], repeats=options.repeats)
    m = {"setups": setups, "seed": measure.seed_alpha(setups, refs), "lookup": measure.lookup_alpha(setups, refs),
         "c": c, "verify": verify, "c_eff": c["value"] + verify["value"], "probe": None}
    m["alpha"], m["source"] = m["seed"]["value"], "seed-style greedy agreement"
    if kind == "uad" and options.check:
        g0 = preset.num_assistant_tokens or 5
        m["probe"] = measure.race_prompts(preset, prompts, measure.constant_knobs(kind, g0), m["c_eff"], progress)
        m["alpha"], m["source"] = m["probe"]["observed"]["value"], f"observed in constant gamma {g0} runs (tokenizers differ)"
    if m["alpha"] is None:
        raise ArenaError("The target generated no tokens to measure alpha on: use longer outputs or other prompts.")
    return m


def plan_for_preset(preset: Any, prompts: Sequence[str] | None = None, options: PlanOptions = PlanOptions(),
                    progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Measure alpha (seed style and observed) and c on `prompts` (default: the preset's examples), predict,
    check with sequential races, and add memory, vocabulary, cost and advice. Greedy throughout."""
    from . import measure
    from .memory import memory_for_specs

    kind = measure.method_kind(preset.method)
    prompts = list(prompts or preset.example_prompts)
    sampling = (preset.do_sample, preset.temperature)
    changes: dict[str, Any] = {"do_sample": False}
    if options.max_new_tokens:
        changes["max_new_tokens"] = options.max_new_tokens
    preset = preset.with_overrides(**changes)
    m = _measure(preset, prompts, kind, options, progress)
    plan = plan_from_numbers(m["alpha"], m["c"]["value"], options)
    g_adj, s_adj = best_gamma(m["alpha"], m["c_eff"])
    plan.update(mode="measured", preset=preset.id, method=preset.method, target=preset.target,
                assistant=preset.assistant, alpha_source=m["source"], c_source=m["c"]["what"],
                device=m["setups"][0].device, notes=_notes(kind, m["setups"][0].device))
    plan["hardware_adjusted"] = {
        "verify_slope": m["verify"], "c_effective": round(m["c_eff"], 5), "best_gamma": g_adj,
        "predicted_speedup": round(s_adj, 4),
        "curve": [{"gamma": p["gamma"], "speedup": round(p["speedup"], 4)} for p in speedup_curve(m["alpha"], m["c_eff"])]}
    plan["measurement"] = {"prompts": len(prompts), "max_new_tokens": preset.max_new_tokens, "greedy": True,
                           "alpha_seed": m["seed"], "alpha_observed": m["probe"]["observed"] if m["probe"] else None,
                           "c": m["c"], "prompt_lookup": m["lookup"]}
    plan["check"] = None
    if options.check:
        check = plan["check"] = _check(preset, prompts, kind, plan, m["c_eff"], m["probe"], progress)
        plan["measurement"]["alpha_observed"] = check["constant"]["observed"]
        plan["measured_points"] = [
            {"gamma": run["gamma"] or round(run["observed"]["mean_drafted"], 2), "speedup": round(run["measured_speedup"], 4),
             "label": f"measured, {run['label']}"} for run in (check["constant"], check["default"], check["adjusted"]) if run]
        plan["cost"] = cost_summary({"predicted": plan["predicted_speedup"],
                                     **{p["label"]: p["speedup"] for p in plan["measured_points"]}},
                                    options.gpus, options.hours_per_month)
    note = "" if preset.assistant else "no second model: drafts come from the target itself (or the prompt)"
    try:
        plan["memory"] = memory_for_specs(preset.target, preset.assistant, options.dtype, options.context_tokens,
                                          options.gpu_memory_gb, note)
    except ArenaError as exc:
        plan["memory"] = {"error": str(exc)}
    plan["vocabulary"] = None
    if preset.assistant:
        with measure.borrowed_tokenizers(m["setups"][0]) as (tok, atok):
            plan["vocabulary"] = vocabulary_check(tok, atok)
    plan["advice"] = advice({**plan, "lookup": m["lookup"], "do_sample": sampling[0], "temperature": sampling[1],
                             "exit_layer": preset.assistant_early_exit,
                             "memory": plan["memory"] if "error" not in plan["memory"] else None,
                             "recommendation": plan["check"]["recommendation"] if plan["check"] else None})
    return plan


def _notes(kind: str, device: str) -> list[str]:
    notes = ["Measured greedily (temperature 0), as the seed's code does; re-check at the serving temperature."]
    if kind == "uad":
        notes.append("Tokenizers differ, so seed-style alpha is counted in drafter tokens; the prediction uses alpha "
                     "observed in a constant-gamma run, and c includes the re-tokenization cost per drafted token.")
    if kind == "lookup":
        notes.append("Prompt lookup copies runs from the prompt, so acceptance is bursty, not i.i.d. as Theorem 3.8 "
                     "assumes; with c close to 0 the formula favours long drafts.")
    if not str(device).startswith("cuda"):
        notes.append("On a CPU, verifying gamma+1 tokens costs more than one decode step (compute-bound), which "
                     "Theorem 3.8 ignores: predictions run high here (see hardware_adjusted).")
    notes.append("c is the model step ratio; transformers' fixed per-round work (the drafter's own generate() call, "
                 "candidate bookkeeping) is not in it and shows up only in the measured speedups.")
    return notes


# ----- exports ----------------------------------------------------------------------------------------
def curve_frame(plan: dict) -> Any:
    """pandas DataFrame (gamma, speedup, series) of the predicted curve and measured points, for gr.LinePlot."""
    import pandas as pd

    rows = [{"gamma": p["gamma"], "speedup": p["speedup"], "series": "predicted (Theorem 3.8)"} for p in plan["curve"]]
    adjusted = (plan.get("hardware_adjusted") or {}).get("curve") or []
    rows += [{"gamma": p["gamma"], "speedup": p["speedup"], "series": "adjusted for this hardware"} for p in adjusted]
    rows += [{"gamma": p["gamma"], "speedup": p["speedup"], "series": p["label"]} for p in plan.get("measured_points", [])]
    return pd.DataFrame(rows, columns=["gamma", "speedup", "series"])


def speedup_svg(plan: dict, width: int = 560, height: int = 300) -> str:
    """Inline SVG: predicted speedup against gamma, plain generate() at 1x, best gamma and measured points."""
    from html import escape

    left, right, top, bottom = 48, 16, 16, 40
    pw, ph = width - left - right, height - top - bottom
    points = plan.get("measured_points", [])
    ymax = max([p["speedup"] for p in plan["curve"]] + [p["speedup"] for p in points] + [1.0]) * 1.15
    gmax = max(p["gamma"] for p in plan["curve"])
    x = lambda g: left + (g - 1) / max(gmax - 1, 1) * pw  # noqa: E731
    y = lambda s: top + ph - s / ymax * ph  # noqa: E731
    step = 0.5 if ymax <= 4 else 1.0
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" '
             f'font-size="11" role="img" aria-label="predicted speedup against gamma">',
             f'<rect x="{left}" y="{top}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>']
    for i in range(int(ymax / step) + 1):
        v = i * step
        parts.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#eee"/>'
                     f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}x</text>')
    for g in sorted({1, 5, 10, 15, gmax}):
        parts.append(f'<text x="{x(g):.1f}" y="{top + ph + 16}" text-anchor="middle">{g}</text>')
    parts.append(f'<text x="{left + pw / 2}" y="{height - 6}" text-anchor="middle">gamma (draft tokens per round)</text>')
    parts.append(f'<line x1="{left}" x2="{left + pw}" y1="{y(1):.1f}" y2="{y(1):.1f}" stroke="#888" stroke-dasharray="4 3"/>'
                 f'<text x="{left + pw - 4}" y="{y(1) - 4:.1f}" text-anchor="end" fill="#666">plain generate()</text>')
    adjusted = (plan.get("hardware_adjusted") or {}).get("curve")
    if adjusted:
        line = " ".join(f"{x(p['gamma']):.1f},{y(p['speedup']):.1f}" for p in adjusted)
        parts.append(f'<polyline points="{line}" fill="none" stroke="#ff7f0e" stroke-width="1.5" stroke-dasharray="6 3">'
                     '<title>adjusted for this hardware (c + verification slope)</title></polyline>')
    line = " ".join(f"{x(p['gamma']):.1f},{y(p['speedup']):.1f}" for p in plan["curve"])
    parts.append(f'<polyline points="{line}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
    g, s = plan["best_gamma"], plan["predicted_speedup"]
    # keep the label inside the plot at either end of the gamma axis
    anchor = "start" if g <= 3 else "end" if g >= 18 else "middle"
    parts.append(f'<circle cx="{x(g):.1f}" cy="{y(s):.1f}" r="5" fill="#1f77b4"><title>best gamma {g}: {s:.2f}x '
                 f'predicted</title></circle><text x="{x(g):.1f}" y="{y(s) - 9:.1f}" text-anchor="{anchor}">'
                 f'best gamma {g}: {s:.2f}x</text>')
    for p, colour in zip(points, ("#d62728", "#2ca02c", "#9467bd")):
        px, py = x(min(max(p["gamma"], 1), gmax)), y(p["speedup"])
        parts.append(f'<rect x="{px - 5:.1f}" y="{py - 5:.1f}" width="10" height="10" fill="{colour}"><title>'
                     f'{escape(p["label"])}: {p["speedup"]:.2f}x</title></rect>'
                     f'<text x="{px + 8:.1f}" y="{py + 4:.1f}" fill="{colour}">{p["speedup"]:.2f}x</text>')
    parts.append("</svg>")
    return "".join(parts)


def flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """[(dotted.key, scalar)] for nested dicts/lists (list items indexed from 0)."""
    if isinstance(value, dict):
        return [kv for k, v in value.items() for kv in flatten(v, f"{prefix}.{k}" if prefix else str(k))]
    if isinstance(value, (list, tuple)):
        return [kv for i, v in enumerate(value) for kv in flatten(v, f"{prefix}.{i}")]
    return [(prefix, value)]


def plan_to_csv(plan: dict) -> str:
    """The whole plan as CSV rows `key,value` (dotted keys; e.g. speedup_by_gamma.8)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["key", "value"])
    writer.writerows(flatten(plan))
    return buf.getvalue()
