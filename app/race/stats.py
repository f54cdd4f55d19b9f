"""Figures derived from a race: acceptance rate, mean accepted length, speedup, divergence (docs/DESIGN.md §3, §5).

Rounds are any objects with ``drafted`` and ``accepted`` attributes (:class:`app.race.result.Round`).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence


def acceptance_rate(rounds: Iterable[Any]) -> float | None:
    """alpha = sum(accepted) / sum(drafted); None when nothing was drafted."""
    rounds = list(rounds)
    drafted = sum(r.drafted for r in rounds)
    return sum(r.accepted for r in rounds) / drafted if drafted else None


def mean_accepted_length(rounds: Iterable[Any]) -> float:
    """tau = (sum(accepted) + rounds) / rounds: tokens kept per target forward pass."""
    rounds = list(rounds)
    if not rounds:
        return 0.0
    return (sum(r.accepted for r in rounds) + len(rounds)) / len(rounds)


def position_counts(rounds: Iterable[Any]) -> tuple[list[int], list[int]]:
    """(drafted, accepted) per draft position: a round that drafted d and accepted n counts at positions 1..d
    and 1..n (docs/DESIGN.md §3); item i is position i + 1. The race's why panel and the benchmark both use it."""
    rounds = list(rounds)
    positions = range(max((r.drafted for r in rounds), default=0))
    return ([sum(r.drafted > i for r in rounds) for i in positions],
            [sum(min(r.accepted, r.drafted) > i for r in rounds) for i in positions])


def acceptance_by_position(rounds: Iterable[Any]) -> list[float]:
    """Item k = accepted / drafted at draft position k + 1 (:func:`position_counts`). Later positions decay even
    when the mean looks healthy."""
    return position_shares(*position_counts(rounds))


def position_shares(drafted: Sequence[int], accepted: Sequence[int]) -> list[float]:
    """accepted / drafted per position (positions nobody drafted are left out); counts may be pooled over races."""
    return [a / d for a, d in zip(accepted, drafted) if d]


def accepted_histogram(rounds: Iterable[Any]) -> list[int]:
    """Item n: how many rounds that drafted accepted exactly n drafts (rounds without a draft are not counted)."""
    hist: list[int] = []
    for r in rounds:
        if r.drafted:
            hist += [0] * (r.accepted + 1 - len(hist))
            hist[r.accepted] += 1
    return hist


def first_divergence(a: Sequence[int], b: Sequence[int]) -> int | None:
    """Index of the first differing token, len(shorter) if one is a prefix of the other, None if equal."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def tokens_per_second(new_tokens: int, seconds: float) -> float:
    return new_tokens / seconds if seconds > 0 else 0.0


#: The narrowest noise band of a race (app/race/trust.py ``noise_band``): a speedup within it of 1 reads as level.
EVEN_BAND = 0.02


def speedup(assisted_tps: float, baseline_tps: float) -> float:
    """Assisted tokens/s over baseline tokens/s (0 when the baseline produced nothing)."""
    return assisted_tps / baseline_tps if baseline_tps > 0 else 0.0
