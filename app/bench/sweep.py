"""Sweeps: one integer knob over a range of values, each value a variant of every preset, and the regret sweep
of constant draft lengths around the cost-aware schedule (``--sweep`` and ``--regret``, docs/DESIGN.md §4.4). A sweep
puts each value's measured speedup next to Theorem 3.8's prediction, so the planner is checked on the user's prompts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ..core.errors import ArenaError
from ..core.knobs import COST_AWARE, KNOB_TABLE, KNOBS, Origin
from ..core.presets import Preset
from ..core.requests import apply_overrides
from ..core.words import msg
from ..race.methods import METHODS, get_method

#: The most values one sweep may take (each value is a full pass over the suite).
MAX_SWEEP_VALUES = 32
_PATTERN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*(.+?)\s*$")
_ITEM = re.compile(r"^\s*([+-]?\d+)\s*(?:\.\.\s*([+-]?\d+))?\s*$")
#: The constant draft lengths --regret races when given none (those up to each preset's own length, and it).
DEFAULT_REGRET_LENGTHS = (1, 2, 3, 4, 6, 8, 10)
#: transformers' own schedule for a draft length (transformers 5.24: constant, for a drafter and for lookup).
DEFAULT_SCHEDULE = "constant"


@dataclass(frozen=True)
class Sweep:
    """knob: a method knob of kind int (GenerationConfig name); values: the integers to try, in order."""

    knob: str
    values: tuple[int, ...]

    @property
    def text(self) -> str:
        return f"{self.knob}={values_text(self.values)}"


def values_text(values: tuple[int, ...]) -> str:
    """'1..4' for a run of consecutive values, else '1,2,4'."""
    if len(values) > 1 and values == tuple(range(values[0], values[-1] + 1)):
        return f"{values[0]}..{values[-1]}"
    return ",".join(map(str, values))


def int_knobs() -> list[str]:
    """The knobs a sweep can vary: integer method knobs."""
    return [k for k in KNOBS if KNOB_TABLE[k].kind == "int"]


def parse_values(text: str, what: str) -> tuple[int, ...] | None:
    """'1..4,6,8' -> (1, 2, 3, 4, 6, 8), sorted without repeats; None when it does not parse. ArenaError for a
    range going down or more than MAX_SWEEP_VALUES values (`what` names the flag)."""
    values: set[int] = set()
    for item in text.split(","):
        match = _ITEM.match(item)
        if not match:
            return None
        lo, hi = int(match.group(1)), int(match.group(2) or match.group(1))
        if hi < lo:
            raise ArenaError(msg("{what}{lo}..{hi}: the range must go up (LO <= HI)", what=what, lo=lo, hi=hi))
        if hi - lo + 1 > MAX_SWEEP_VALUES or len(values | set(range(lo, hi + 1))) > MAX_SWEEP_VALUES:
            raise ArenaError(msg("{what}{text} has more than {MAX_SWEEP_VALUES} values; at most {MAX_SWEEP_VALUES} at once",
                                 what=what, text=text.strip(), MAX_SWEEP_VALUES=MAX_SWEEP_VALUES))
        values |= set(range(lo, hi + 1))
    return tuple(sorted(values))


def parse_sweep(text: str) -> Sweep:
    """'KNOB=LO..HI', 'KNOB=V' or 'KNOB=1,2,4' (items may be ranges); the knob name may use dashes; each value
    checked by the knob table."""
    match = _PATTERN.match(text or "")
    name = match.group(1).replace("-", "_") if match else ""
    values = parse_values(match.group(2), f"--sweep {name}=") if match else None
    if not values:
        raise ArenaError(msg("--sweep must look like KNOB=LO..HI or KNOB=A,B,C, e.g. prompt_lookup_num_tokens=1..12; got "
                             "{text}", text=repr(text)))
    if name not in int_knobs():
        raise ArenaError(msg("--sweep cannot vary {name}: choose one of {int_knobs}", name=repr(name),
                             int_knobs=', '.join(int_knobs())))
    for value in (values[0], values[-1]):
        KNOB_TABLE[name].check(value, Origin("flag"))
    return Sweep(name, values)


def variants(preset: Preset, sweep: Sweep | None) -> list[tuple[int | None, Preset]]:
    """(value, preset with the knob set) per sweep value; [(None, preset)] without a sweep. ArenaError when the
    preset's method does not take the knob."""
    if sweep is None:
        return [(None, preset)]
    method = get_method(preset.method)
    if sweep.knob not in method.knobs:
        users = [m.id for m in METHODS.values() if sweep.knob in m.knobs]
        raise ArenaError(msg("--sweep {knob}: preset {id} uses the {method} method, which does not take it; it belongs to "
                             "{users}", knob=sweep.knob, id=preset.id, method=preset.method, users=', '.join(users)))
    out = []
    for value in sweep.values:
        variant = apply_overrides(preset, {sweep.knob: value}, Origin("flag"))
        method.check_preset(variant)
        out.append((value, variant))
    return out


@dataclass(frozen=True)
class Regret:
    """The regret sweep: each preset with the cost-aware schedule and with the constant schedule at each of
    `lengths` (None: DEFAULT_REGRET_LENGTHS up to the preset's own length) and at its own length (transformers'
    default, docs/DESIGN.md §4)."""

    lengths: tuple[int, ...] | None = None


def parse_regret(text: str | None) -> Regret:
    """'' or None: the default lengths; '1,2,4', '1..10' or '1..4,6,8': those constant draft lengths."""
    if not (text or "").strip():
        return Regret()
    values = parse_values(text, "--regret ")
    if not values:
        raise ArenaError(msg("--regret takes draft lengths like 1,2,4,8 or 1..10; got {text}", text=repr(text)))
    return Regret(values)


def length_knob(preset: Preset) -> str:
    """The knob that sets the draft length of `preset`'s method; ArenaError when the method has none or cannot
    take the cost-aware schedule (nothing to measure regret against)."""
    knobs = get_method(preset.method).knobs
    knob = next((k for k in ("prompt_lookup_num_tokens", "num_assistant_tokens") if k in knobs), None)
    if knob is None or "num_assistant_tokens_schedule" not in knobs:
        raise ArenaError((msg("--regret: preset {id} uses the {method} method, which has no draft-length knob to compare; use "
                              "a prompt-lookup, drafter, uad, layerskip or ensemble preset", id=preset.id,
                              method=preset.method)
                          if knob is None else msg("--regret: preset {id} uses the {method} method, which has no draft-length "
                                                   "schedule to compare; use a prompt-lookup, drafter, uad, layerskip or "
                                                   "ensemble preset", id=preset.id, method=preset.method)))
    return knob


def regret_layout(preset: Preset, regret: Regret) -> dict[str, Any]:
    """What the regret sweep races for `preset`: knob, the shipped (cost-aware) maximum length, the constant
    lengths (sorted, the default's included) and transformers' default (schedule and length)."""
    knob = length_knob(preset)
    shipped = get_method(preset.method).max_draft(apply_overrides(preset, {"num_assistant_tokens_schedule": COST_AWARE}))
    chosen = regret.lengths or tuple(v for v in DEFAULT_REGRET_LENGTHS if v <= shipped)
    return {"knob": knob, "shipped_length": shipped, "lengths": sorted({*chosen, shipped}),
            "default_schedule": DEFAULT_SCHEDULE, "default_length": shipped}


def regret_variants(preset: Preset, regret: Regret) -> list[tuple[int | None, Preset]]:
    """(None, the preset with the cost-aware schedule), then (length, the preset with the constant schedule at
    that length) per constant length; every variant checked before any race."""
    layout, method = regret_layout(preset, regret), get_method(preset.method)
    out = [(None, apply_overrides(preset, {"num_assistant_tokens_schedule": COST_AWARE}, Origin("flag")))]
    out += [(value, apply_overrides(preset, {"num_assistant_tokens_schedule": DEFAULT_SCHEDULE, layout["knob"]: value},
                                    Origin("flag"))) for value in layout["lengths"]]
    for _, variant in out:
        method.check_preset(variant)
    return out


def plan_variants(preset: Preset, sweep: Sweep | None, regret: Regret | None) -> list[tuple[int | None, Preset]]:
    """The variants a plan races for `preset`: the regret sweep's, the sweep's, or the preset alone."""
    if regret is not None and sweep is not None:
        raise ArenaError(msg("--regret sweeps the draft length itself: leave out --sweep"))
    return regret_variants(preset, regret) if regret is not None else variants(preset, sweep)
