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


def acceptance_by_position(rounds: Iterable[Any]) -> list[float]:
    """Item k = accepted / drafted at draft position k + 1: a round that drafted d and accepted n counts as
    drafted at positions 1..d and accepted at 1..n. Later positions decay even when the mean looks healthy."""
    drafted: list[int] = []
    accepted: list[int] = []
    for r in rounds:
        if r.drafted > len(drafted):
            drafted += [0] * (r.drafted - len(drafted))
            accepted += [0] * (r.drafted - len(accepted))
        for i in range(r.drafted):
            drafted[i] += 1
            accepted[i] += i < r.accepted
    return [a / d for a, d in zip(accepted, drafted)]


def first_divergence(a: Sequence[int], b: Sequence[int]) -> int | None:
    """Index of the first differing token, len(shorter) if one is a prefix of the other, None if equal."""
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return None if len(a) == len(b) else min(len(a), len(b))


def tokens_per_second(new_tokens: int, seconds: float) -> float:
    return new_tokens / seconds if seconds > 0 else 0.0


def speedup(assisted_tps: float, baseline_tps: float) -> float:
    """Assisted tokens/s over baseline tokens/s (0 when the baseline produced nothing)."""
    return assisted_tps / baseline_tps if baseline_tps > 0 else 0.0
