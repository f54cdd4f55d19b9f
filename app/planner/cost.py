"""GPU cost of a speedup: monthly hours, GPU time saved, monthly savings (docs/DESIGN.md §5.10). The default prices
are :data:`PRICE_SOURCE`'s; every figure is editable. Money is in US dollars; time in hours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable

from ..core.errors import ArenaError
from ..core.jsonfields import not_in_json
from ..core.words import msg

HOURS_PER_MONTH = 720.0  # the drafter-choice article's month: 30 days x 24 h


@dataclass(frozen=True)
class GpuPrice:
    """One GPU's on-demand price in dollars per hour."""

    name: str
    dollars_per_hour: float


DEFAULT_GPUS = (GpuPrice("A10 24GB", 1.29), GpuPrice("H100 SXM 80GB", 4.29))
PRICE_SOURCE = msg("defaults: Lambda GPU cloud 1-GPU on-demand prices quoted by the drafter-choice article (2026-11-05, "
                   "before tax)")


def parse_gpu_price(text: str) -> GpuPrice:
    """'NAME=DOLLARS_PER_HOUR' (e.g. 'L4=0.80') -> GpuPrice; a clear error otherwise."""
    name, sep, price = (text if isinstance(text, str) else "").rpartition("=")
    try:
        value = float(price)
    except ValueError:
        value = float("nan")
    if not sep or not name.strip() or not math.isfinite(value) or value < 0:
        raise ArenaError(msg("A GPU price must look like NAME=DOLLARS_PER_HOUR with a price >= 0 (e.g. A10=1.29); got {text}.",
                             text=repr(text)))
    return GpuPrice(name.strip(), value)


def gpu_time_saved(speedup: float) -> float:
    """Share of GPU time saved at `speedup` (x): 1 - 1/speedup; negative when assisted is slower."""
    if not speedup > 0 or not math.isfinite(speedup):
        raise ArenaError(msg("A speedup must be a positive number; got {speedup}.", speedup=speedup))
    return 1.0 - 1.0 / speedup


def monthly_cost(gpu: GpuPrice, hours_per_month: float = HOURS_PER_MONTH) -> float:
    """Dollars per month for one GPU running `hours_per_month` hours."""
    if not hours_per_month > 0:
        raise ArenaError(msg("Hours per month must be positive; got {hours_per_month}.", hours_per_month=hours_per_month))
    return gpu.dollars_per_hour * hours_per_month


@dataclass(frozen=True)
class GpuSaving:
    """One GPU's figures in a savings row: its price, a month's cost and the dollars a month the speedup saves."""

    gpu: str
    dollars_per_hour: float
    monthly_cost: float
    monthly_savings: float


@dataclass(frozen=True)
class SavingsRow:
    """One row of the drafter-choice article's savings table: a labelled speedup, the share of GPU time it saves
    (negative: it costs more), and per GPU what that is worth a month."""

    label: str
    speedup: float
    gpu_time_saved: float
    per_gpu: list[GpuSaving]


@dataclass(frozen=True)
class ListedGpu:
    """A GPU price as a plan lists it (the JSON's ``{"gpu", "dollars_per_hour"}``)."""

    gpu: str
    dollars_per_hour: float


@dataclass
class CostSummary:
    """A plan's cost: the hours a month, where the prices come from, the GPUs and a savings row per labelled speedup.
    projection: why the prices are a projection (a plan measured off a GPU), None when they are not; written into a
    measured plan only (app/planner/types.py)."""

    hours_per_month: float
    price_source: str
    gpus: list[ListedGpu]
    rows: list[SavingsRow]
    projection: str | None = not_in_json(default=None)


def savings_row(speedup: float, gpus: Iterable[GpuPrice] = DEFAULT_GPUS, hours_per_month: float = HOURS_PER_MONTH,
                label: str = "") -> SavingsRow:
    """One row of the drafter-choice article's savings table (docs/DESIGN.md §9): GPU time saved and dollars
    saved per month for each GPU."""
    saved = gpu_time_saved(speedup)
    return SavingsRow(label, round(speedup, 4), round(saved, 6),
                      [GpuSaving(g.name, g.dollars_per_hour, round(monthly_cost(g, hours_per_month), 2),
                                 round(monthly_cost(g, hours_per_month) * saved, 4)) for g in gpus])


def cost_summary(speedups: dict[str, float | None], gpus: Iterable[GpuPrice] = DEFAULT_GPUS,
                 hours_per_month: float = HOURS_PER_MONTH) -> CostSummary:
    """Savings rows for labelled speedups (e.g. {'predicted': 1.8, 'measured': 1.4}); zero/None skipped."""
    gpus = tuple(gpus)
    rows = [savings_row(s, gpus, hours_per_month, label) for label, s in speedups.items() if s]
    return CostSummary(hours_per_month, PRICE_SOURCE, [ListedGpu(g.name, g.dollars_per_hour) for g in gpus], rows)
