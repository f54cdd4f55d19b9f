"""A sweep: one integer knob over a range of values, each value a variant of every preset (docs/DESIGN.md §4).

``--sweep prompt_lookup_num_tokens=1..12`` races each value on the suite and puts the measured speedup
next to Theorem 3.8's prediction at the measured alpha and c + slope (app.bench.stats.prediction), so the
planner is checked against the user's own prompts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.errors import ArenaError
from ..core.knobs import KNOB_TABLE, KNOBS, Origin
from ..core.presets import Preset
from ..core.requests import apply_overrides
from ..race.methods import METHODS, get_method

#: The most values one sweep may take (each value is a full pass over the suite).
MAX_SWEEP_VALUES = 32
_PATTERN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_-]*)\s*=\s*([+-]?\d+)\s*(?:\.\.\s*([+-]?\d+))?\s*$")


@dataclass(frozen=True)
class Sweep:
    """knob: a method knob of kind int (GenerationConfig name); values: the integers to try, in order."""

    knob: str
    values: tuple[int, ...]

    @property
    def text(self) -> str:
        return f"{self.knob}={self.values[0]}..{self.values[-1]}"


def int_knobs() -> list[str]:
    """The knobs a sweep can vary: integer method knobs."""
    return [k for k in KNOBS if KNOB_TABLE[k].kind == "int"]


def parse_sweep(text: str) -> Sweep:
    """'KNOB=LO..HI' (or 'KNOB=V'); the knob name may use dashes; each end checked by the knob table."""
    match = _PATTERN.match(text or "")
    if not match:
        raise ArenaError(f"--sweep must look like KNOB=LO..HI, e.g. prompt_lookup_num_tokens=1..12; got {text!r}")
    name, lo, hi = match.group(1).replace("-", "_"), int(match.group(2)), int(match.group(3) or match.group(2))
    if name not in int_knobs():
        raise ArenaError(f"--sweep cannot vary {name!r}: choose one of {', '.join(int_knobs())}")
    origin = Origin("flag")
    for value in (lo, hi):
        KNOB_TABLE[name].check(value, origin)
    if hi < lo:
        raise ArenaError(f"--sweep {name}={lo}..{hi}: the range must go up (LO <= HI)")
    if hi - lo + 1 > MAX_SWEEP_VALUES:
        raise ArenaError(f"--sweep {name}={lo}..{hi} has {hi - lo + 1} values; at most {MAX_SWEEP_VALUES} at once")
    return Sweep(name, tuple(range(lo, hi + 1)))


def variants(preset: Preset, sweep: Sweep | None) -> list[tuple[int | None, Preset]]:
    """(value, preset with the knob set) per sweep value; [(None, preset)] without a sweep. ArenaError when the
    preset's method does not take the knob."""
    if sweep is None:
        return [(None, preset)]
    method = get_method(preset.method)
    if sweep.knob not in method.knobs:
        users = [m.id for m in METHODS.values() if sweep.knob in m.knobs]
        raise ArenaError(f"--sweep {sweep.knob}: preset {preset.id} uses the {preset.method} method, which does not "
                         f"take it; it belongs to {', '.join(users)}")
    out = []
    for value in sweep.values:
        variant = apply_overrides(preset, {sweep.knob: value}, Origin("flag"))
        method.check_preset(variant)
        out.append((value, variant))
    return out
