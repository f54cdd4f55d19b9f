"""GPU cost of a speedup: the drafter-choice article's price and savings tables."""

from __future__ import annotations

import pytest

from app.planner.cost import DEFAULT_GPUS, GpuPrice, cost_summary, gpu_time_saved, monthly_cost, parse_gpu_price, savings_row
from app.core.errors import ArenaError
from app.core.jsonfields import json_ready

# The drafter-choice article's savings table: speedup -> (GPU time saved %, A10 $/month, H100 $/month).
SEED_SAVINGS = {1.52: (34.2, 317.7, 1056.7), 1.18: (15.3, 141.7, 471.2), 1.15: (13.0, 121.1, 402.9)}


def test_monthly_costs():
    a10, h100 = DEFAULT_GPUS
    assert (a10.dollars_per_hour, h100.dollars_per_hour) == (1.29, 4.29)
    assert round(monthly_cost(a10), 1) == 928.8 and round(monthly_cost(h100), 1) == 3088.8


@pytest.mark.parametrize("speedup", SEED_SAVINGS)
def test_article_savings_rows(speedup):
    saved, a10, h100 = SEED_SAVINGS[speedup]
    row = savings_row(speedup)
    assert round(row.gpu_time_saved * 100, 1) == saved
    assert [round(g.monthly_savings, 1) for g in row.per_gpu] == [a10, h100]


def test_slower_costs_more_and_bad_inputs():
    assert gpu_time_saved(0.8) == pytest.approx(-0.25)
    with pytest.raises(ArenaError):
        gpu_time_saved(0)
    with pytest.raises(ArenaError):
        monthly_cost(GpuPrice("x", 1.0), hours_per_month=0)
    assert parse_gpu_price("L4 24GB=0.8") == GpuPrice("L4 24GB", 0.8)
    for bad in ("L4", "=1", "L4=abc", "L4=-1", "L4=nan"):
        with pytest.raises(ArenaError):
            parse_gpu_price(bad)


def test_summary_skips_missing_speedups():
    s = cost_summary({"predicted": 2.0, "measured": None}, [GpuPrice("T4", 0.5)], hours_per_month=100)
    assert [r.label for r in s.rows] == ["predicted"]
    assert json_ready(s.rows[0].per_gpu[0]) == {"gpu": "T4", "dollars_per_hour": 0.5, "monthly_cost": 50.0,
                                               "monthly_savings": 25.0}
