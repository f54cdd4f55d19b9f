"""Benchmark figures (docs/DESIGN.md §4.4): one *row* per race (a plain dict with the keys :data:`ROW_KEYS`, so it
goes straight into a DataFrame, a CSV line and the JSON file), *cells* of (preset, sweep value, category), overall.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Iterable, Sequence

from ..core.theory import predicted_speedup
from ..race.stats import accepted_histogram, acceptance_by_position, position_counts, position_shares

#: Knobs whose value is the draft length gamma of Theorem 3.8 (docs/DESIGN.md §5.2).
DRAFT_LENGTH_KNOBS = ("num_assistant_tokens", "prompt_lookup_num_tokens")

ROW_KEYS = ("preset", "method", "category", "prompt_id", "split", "repeat", "sweep_knob", "sweep_value",
            "baseline_tokens_per_second", "assisted_tokens_per_second", "speedup", "baseline_new_tokens",
            "assisted_new_tokens", "baseline_seconds", "assisted_seconds", "acceptance_rate", "alpha",
            "mean_accepted_length", "rounds", "undrafted_rounds", "acceptance_by_position", "drafted_by_position",
            "accepted_by_position", "accepted_histogram", "identical", "first_divergence", "cost_ratio",
            "verify_slope", "gamma", "predicted_speedup", "wall_seconds", "verdict", "verdict_reason")


def prediction(why: Any, knob: str | None, value: int | None) -> float | None:
    """Theorem 3.8 at the run's per-token alpha and c + verify slope (docs/DESIGN.md §5.7); gamma = the swept
    value for a draft-length knob, else the run's mean draft length. None when the run drafted nothing."""
    if why is None or why.alpha is None or why.cost_ratio is None:
        return None
    gamma = value if knob in DRAFT_LENGTH_KNOBS and value else round(why.gamma or 0)
    if gamma < 1:
        return None
    return predicted_speedup(min(1.0, max(0.0, why.alpha)), why.cost_ratio + (why.verify_slope or 0.0), gamma)


def _r(x: float | None, places: int = 4) -> float | None:
    return None if x is None else round(float(x), places)


def make_row(result: Any, preset: Any, prompt: Any, repeat: int, sweep: tuple[str, int] | None = None,
             wall_seconds: float = 0.0) -> dict[str, Any]:
    """One row from a finished race (an app.race.result.RaceResult) of `preset` on `prompt` (a SuitePrompt)."""
    a, b, why = result.assisted, result.baseline, result.why
    drafted, accepted = position_counts(a.rounds)  # the race's own counts (app/race/stats.py)
    knob, value = sweep if sweep else (None, None)
    return {"preset": preset.id, "method": result.method, "category": prompt.category, "prompt_id": prompt.id,
            "split": prompt.split, "repeat": repeat, "sweep_knob": knob, "sweep_value": value,
            "baseline_tokens_per_second": b.tokens_per_second, "assisted_tokens_per_second": a.tokens_per_second,
            "speedup": result.speedup, "baseline_new_tokens": b.new_tokens, "assisted_new_tokens": a.new_tokens,
            "baseline_seconds": _r(b.seconds), "assisted_seconds": _r(a.seconds),
            "acceptance_rate": _r(a.acceptance_rate), "alpha": _r(why.alpha if why else None),
            "mean_accepted_length": _r(a.mean_accepted_length), "rounds": len(a.rounds),
            "undrafted_rounds": sum(1 for r in a.rounds if not r.drafted),
            "acceptance_by_position": [round(x, 4) for x in acceptance_by_position(a.rounds)],
            "drafted_by_position": drafted, "accepted_by_position": accepted,
            "accepted_histogram": accepted_histogram(a.rounds), "identical": result.identical,
            "first_divergence": result.first_divergence, "cost_ratio": _r(why.cost_ratio if why else None, 5),
            "verify_slope": _r(why.verify_slope if why else None, 5), "gamma": _r(why.gamma if why else None, 3),
            "predicted_speedup": _r(prediction(why, knob, value)), "wall_seconds": _r(wall_seconds, 3),
            "verdict": result.verdict.kind, "verdict_reason": result.verdict.reason}


def measured(row: dict[str, Any]) -> bool:
    """Whether a row's race is a measurement (its one verdict, app/race/verdict.py; a row of an older file, which has
    none, counts as one)."""
    return row.get("verdict") != "unmeasured"


def left_out(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows that are not a measurement: left out of every median and geomean, and listed with their reasons."""
    return [r for r in rows if not measured(r)]


def _median(values: Iterable[float | None]) -> float | None:
    xs = [v for v in values if v is not None]
    return statistics.median(xs) if xs else None


def geometric_mean(values: Iterable[float]) -> float | None:
    """exp(mean(log x)) of the positive values; None when there are none."""
    xs = [v for v in values if v is not None and v > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def cells(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One cell per (preset, sweep value, category) in first-seen order: runs, medians, min-max spread, identical
    runs; ``best`` marks the highest median speedup of a category (per sweep value), ``loss`` a median below 1x whose
    races were mostly judged a loss (:func:`_is_loss`). Speedup figures
    come from the races that are a measurement only (``measured_runs``; ``left_out`` the others, whose figures say
    nothing): a cell with none has no speedup (None)."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["preset"], row["sweep_value"], row["category"]), []).append(row)
    out = []
    for (preset, value, category), rs in groups.items():
        good = [r for r in rs if measured(r)]
        speedups = [r["speedup"] for r in good]
        middle = statistics.median(speedups) if speedups else None
        out.append({"preset": preset, "method": rs[0]["method"], "sweep_value": value, "category": category,
                    "runs": len(rs), "measured_runs": len(good), "left_out": len(rs) - len(good),
                    "prompts": len({r["prompt_id"] for r in rs}),
                    "speedup_median": _r(middle), "speedup_min": min(speedups, default=None),
                    "speedup_max": max(speedups, default=None),
                    "acceptance_median": _r(_median(r["acceptance_rate"] for r in rs)),
                    "alpha_median": _r(_median(r["alpha"] for r in rs)),
                    "mean_accepted_length_median": _r(_median(r["mean_accepted_length"] for r in rs)),
                    "baseline_tps_median": _r(_median(r["baseline_tokens_per_second"] for r in good), 3),
                    "assisted_tps_median": _r(_median(r["assisted_tokens_per_second"] for r in good), 3),
                    "predicted_median": _r(_median(r["predicted_speedup"] for r in rs)),
                    "identical_runs": sum(bool(r["identical"]) for r in rs),
                    "loss": _is_loss(middle, good), "best": False})
    _mark_best(out)
    return out


def _is_loss(middle: float | None, good: Sequence[dict[str, Any]]) -> bool:
    """A cell reads as a loss when its median is below 1x and most of its measured races were judged a loss by their
    own verdict (app/race/verdict.py), so a 1.00x whose races were all level is never marked slower; rows of older
    files without a verdict fall back to the median alone."""
    if middle is None or middle >= 1.0:
        return False
    kinds = [r.get("verdict") for r in good]
    if any(k is None for k in kinds):
        return True
    return sum(k == "loss" for k in kinds) * 2 > len(kinds)


def _mark_best(cell_list: list[dict[str, Any]]) -> None:
    by_column: dict[tuple, list[dict[str, Any]]] = {}
    for c in cell_list:
        by_column.setdefault((c["sweep_value"], c["category"]), []).append(c)
    for column in by_column.values():
        column = [c for c in column if c["speedup_median"] is not None]
        if len(column) > 1:
            max(column, key=lambda c: c["speedup_median"])["best"] = True


def overall(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (preset, sweep value): geometric mean of its category medians (each category weighs the same; the races
    that are not a measurement left out, ``left_out`` of them, and a category with none measured left out of the
    geomean, named in ``categories_left_out``), pooled acceptance by position, the accepted-length histogram, runs and
    identical runs."""
    by: dict[tuple, list[dict[str, Any]]] = {}
    for row in rows:
        by.setdefault((row["preset"], row["sweep_value"]), []).append(row)
    medians: dict[tuple, list[float]] = {}
    empty: dict[tuple, list[str]] = {}
    for c in cells(rows):
        if c["speedup_median"] is None:
            empty.setdefault((c["preset"], c["sweep_value"]), []).append(c["category"])
        else:
            medians.setdefault((c["preset"], c["sweep_value"]), []).append(c["speedup_median"])
    out = []
    for (preset, value), rs in by.items():
        drafted, accepted = pooled(rs, "drafted_by_position"), pooled(rs, "accepted_by_position")
        out.append({"preset": preset, "method": rs[0]["method"], "sweep_value": value, "runs": len(rs),
                    "identical_runs": sum(bool(r["identical"]) for r in rs),
                    "speedup_geomean": _r(geometric_mean(medians.get((preset, value), []))),
                    "left_out": sum(not measured(r) for r in rs),
                    "categories_left_out": empty.get((preset, value), []),
                    "acceptance_median": _r(_median(r["acceptance_rate"] for r in rs)),
                    "acceptance_by_position": [round(x, 4) for x in position_shares(drafted, accepted)],
                    "drafted_by_position": drafted, "accepted_histogram": pooled(rs, "accepted_histogram"),
                    "predicted_median": _r(_median(r["predicted_speedup"] for r in rs)),
                    "speedup_median": _r(_median(r["speedup"] for r in rs if measured(r)))})
    return out


def pooled(rows: Iterable[dict[str, Any]], key: str) -> list[int]:
    """The count lists `row[key]` of `rows` (per draft position, or a histogram) summed item by item."""
    total: list[int] = []
    for r in rows:
        total += [0] * (len(r[key]) - len(total))
        for i, x in enumerate(r[key]):
            total[i] += x
    return total
