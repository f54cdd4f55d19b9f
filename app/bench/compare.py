"""What changed between two results.json files: per cell the median speedup before -> after and the identical
flags, per preset the overall geometric mean, and any difference in the environment (docs/DESIGN.md §4)."""

from __future__ import annotations

from typing import Any

from .results import BenchResult

#: Environment keys whose difference makes two results hard to compare.
ENV_KEYS = ("device", "device_name", "dtype", "cpu_cores", "torch_threads", "torch", "transformers")


def _label(preset: str, value: Any, category: str | None = None) -> str:
    text = preset + (f" [{value}]" if value is not None else "")
    return f"{text} / {category}" if category else text


def _change(before: float | None, after: float | None) -> str:
    if before is None or after is None or before <= 0:
        return "n/a"
    return f"{(after / before - 1):+.0%}"


def _flags(cell: dict[str, Any] | None) -> str:
    return "-" if cell is None else f"{cell['identical_runs']}/{cell['runs']}"


def _speed(cell: dict[str, Any] | None, key: str = "speedup_median") -> str:
    return "-" if cell is None or cell.get(key) is None else f"{cell[key]:.2f}x"


def environment_lines(a: BenchResult, b: BenchResult) -> list[str]:
    """One line per environment key that differs."""
    return [f"  environment {key}: {a.environment.get(key)} -> {b.environment.get(key)}" for key in ENV_KEYS
            if a.environment.get(key) != b.environment.get(key)]


def cell_lines(a: BenchResult, b: BenchResult) -> list[str]:
    before = {(c["preset"], c["sweep_value"], c["category"]): c for c in a.cells}
    after = {(c["preset"], c["sweep_value"], c["category"]): c for c in b.cells}
    keys = list(dict.fromkeys([*before, *after]))
    width = max((len(_label(*k)) for k in keys), default=10)
    out = [f"  {'cell':<{width}}  {'before':>7} -> {'after':<7} {'change':>7}  identical before -> after"]
    for key in keys:
        x, y = before.get(key), after.get(key)
        change = _change(x and x["speedup_median"], y and y["speedup_median"])
        note = ""
        if x is None or y is None:
            note = "  (only after)" if x is None else "  (only before)"
        elif x["loss"] != y["loss"]:
            note = "  (now a loss)" if y["loss"] else "  (no longer a loss)"
        if x is not None and y is not None and y["identical_runs"] < y["runs"] and x["identical_runs"] == x["runs"]:
            note += "  (outputs now differ from plain decoding)"
        out.append(f"  {_label(*key):<{width}}  {_speed(x):>7} -> {_speed(y):<7} {change:>7}  "
                   f"{_flags(x)} -> {_flags(y)}{note}")
    return out


def compare_lines(a: BenchResult, b: BenchResult, name_a: str, name_b: str) -> list[str]:
    """The report as lines of plain text."""
    ea, eb = a.environment, b.environment
    lines = [f"before: {name_a} ({ea.get('date', '?')}, {ea.get('device_name', '?')}, {len(a.rows)} races"
             f"{', stopped' if a.stopped else ''})",
             f"after:  {name_b} ({eb.get('date', '?')}, {eb.get('device_name', '?')}, {len(b.rows)} races"
             f"{', stopped' if b.stopped else ''})"]
    env = environment_lines(a, b)
    if env:
        lines += ["Environments differ, so part of any change may come from the machine:", *env]
    lines += ["Median speedup per cell (preset / category):", *cell_lines(a, b), "Overall (geometric mean of the "
              "category medians):"]
    before = {(o["preset"], o["sweep_value"]): o for o in a.overall}
    after = {(o["preset"], o["sweep_value"]): o for o in b.overall}
    for key in dict.fromkeys([*before, *after]):
        x, y = before.get(key), after.get(key)
        lines.append(f"  {_label(*key)}: {_speed(x, 'speedup_geomean')} -> {_speed(y, 'speedup_geomean')} "
                     f"({_change(x and x['speedup_geomean'], y and y['speedup_geomean'])}), identical "
                     f"{_flags(x)} -> {_flags(y)}")
    return lines
