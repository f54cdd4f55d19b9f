"""The regret report: how close the cost-aware schedule comes to the best constant draft length, per prompt and per
category (``--regret``, docs/DESIGN.md §4.4). Pure: rows in, plain dicts out.
"""

from __future__ import annotations

import statistics
from typing import Any, Iterable, Sequence


def _median(values: Iterable[float | None]) -> float | None:
    xs = [v for v in values if v is not None]
    return round(statistics.median(xs), 4) if xs else None


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 4) if a is not None and b else None


def best_length(by_length: dict[int, float]) -> tuple[int | None, float | None]:
    """(length, speedup) of the fastest constant length; a tie goes to the shortest length (it drafts least)."""
    if not by_length:
        return None, None
    length = max(sorted(by_length), key=lambda k: by_length[k])  # max keeps the first of equal keys
    return length, by_length[length]


def prompt_speeds(rows: Sequence[dict[str, Any]], presets: Iterable[str]) -> dict[tuple, dict[int | None, float]]:
    """(preset, category, prompt id) -> {length or None (shipped): median speedup over its repeats}, first-seen
    order; rows of other presets, and races that are not a measurement (app/race/verdict.py), are left out."""
    wanted, races = set(presets), {}
    for row in rows:
        if row["preset"] in wanted and row.get("verdict") != "unmeasured":  # not a measurement: left out
            key = (row["preset"], row["category"], row["prompt_id"])
            races.setdefault(key, {}).setdefault(row["sweep_value"], []).append(row["speedup"])
    return {key: {value: _median(speeds) for value, speeds in by.items()} for key, by in races.items()}


def prompt_entry(key: tuple, speeds: dict[int | None, float], layout: dict[str, Any]) -> dict[str, Any]:
    """One prompt's regret: best constant length, shipped, transformers' default and the two ratios; complete
    when the shipped schedule and every planned length finished (a stopped run leaves some prompts partial)."""
    by_length = {k: v for k, v in speeds.items() if k is not None}
    length, best = best_length(by_length)
    shipped, default = speeds.get(None), by_length.get(layout["default_length"])
    return {"preset": key[0], "category": key[1], "prompt_id": key[2], "shipped": shipped,
            "best_length": length, "best": best, "default_length": layout["default_length"], "default": default,
            "share_of_best": _ratio(shipped, best), "vs_default": _ratio(shipped, default),
            "complete": shipped is not None and set(layout["lengths"]) <= set(by_length),
            "by_length": {str(k): by_length[k] for k in sorted(by_length)}}


def category_entry(preset: str, category: str, prompts: list[dict[str, Any]], layout: dict[str, Any]) -> dict[str, Any]:
    """A category's regret over its complete prompts (each a prompt_entry): per length the median of the prompts'
    speedups, the length with the best median, the shipped median as a share of it and over the default's, and
    the median and lowest of the per-prompt shares."""
    done = [p for p in prompts if p["complete"]]
    medians = {k: _median(p["by_length"][str(k)] for p in done) for k in layout["lengths"]} if done else {}
    length, best = best_length({k: v for k, v in medians.items() if v is not None})
    shipped, default = _median(p["shipped"] for p in done), medians.get(layout["default_length"])
    shares = [p["share_of_best"] for p in done if p["share_of_best"] is not None]
    return {"preset": preset, "category": category, "prompts": len(done), "incomplete": len(prompts) - len(done),
            "shipped": shipped, "best_length": length, "best": best, "default_length": layout["default_length"],
            "default": default, "share_of_best": _ratio(shipped, best), "vs_default": _ratio(shipped, default),
            "share_median": _median(shares), "share_min": min(shares) if shares else None,
            "by_length": {str(k): v for k, v in sorted(medians.items())}}


def regret_report(rows: Sequence[dict[str, Any]], layouts: dict[str, dict[str, Any]]) -> dict[str, list]:
    """{"categories": [...], "prompts": [...]} from the rows of a regret sweep. layouts: preset id -> what was
    raced (app.bench.sweep.regret_layout: ``lengths``, ``default_length``). A prompt's numbers are medians over
    its repeats; a category's are medians over its complete prompts (those with every variant)."""
    prompts = [prompt_entry(key, speeds, layouts[key[0]]) for key, speeds in prompt_speeds(rows, layouts).items()]
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for p in prompts:
        groups.setdefault((p["preset"], p["category"]), []).append(p)
    categories = [category_entry(preset, cat, ps, layouts[preset]) for (preset, cat), ps in groups.items()]
    return {"categories": categories, "prompts": prompts}
