"""The speculative-decoding formulas every floor shares (docs/DESIGN.md §5.2-§5.9): Theorem 3.8, the best draft
length, the break-even acceptance and the per-token acceptance observed in real rounds. They live in core so the
race, the planner and the benchmark never import each other for a formula.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

from ..core.errors import ArenaError
from .words import join, msg

GAMMAS = tuple(range(1, 21))
#: The largest cost ratio c the calculator accepts: a draft step 1000x a target step (beyond it every predicted
#: speedup rounds to 0).
MAX_C = 1000.0
#: The rows and columns of the drafter-choice article's best-gamma table (docs/DESIGN.md §9).
ARTICLE_ALPHAS = (0.5, 0.6, 0.7, 0.8, 0.9)
ARTICLE_CS = (0.02, 0.05, 0.1, 0.2)


def check_alpha_c(alpha: float, c: float) -> None:
    """ArenaError unless 0 <= alpha <= 1 and c >= 0 (both finite numbers)."""
    if not isinstance(alpha, (int, float)) or not math.isfinite(alpha) or not 0.0 <= alpha <= 1.0:
        raise ArenaError(msg("alpha must be an acceptance rate between 0 and 1; got {alpha}.", alpha=alpha))
    if not isinstance(c, (int, float)) or not math.isfinite(c) or c < 0:
        raise ArenaError(msg("c must be a cost ratio >= 0 (draft step time / target step time); got {c}.", c=c))


def tokens_per_round(alpha: float, gamma: int) -> float:
    """Expected tokens per target pass: (1 - alpha^(gamma+1)) / (1 - alpha); gamma + 1 at alpha = 1."""
    return float(gamma + 1) if alpha >= 1.0 else (1.0 - alpha ** (gamma + 1)) / (1.0 - alpha)


def predicted_speedup(alpha: float, c: float, gamma: int) -> float:
    """Theorem 3.8 speedup (x) for acceptance `alpha`, cost ratio `c`, `gamma` drafts a round."""
    check_alpha_c(alpha, c)
    if gamma < 1:
        raise ArenaError(msg("gamma (drafts per round) must be at least 1; got {gamma}.", gamma=gamma))
    return tokens_per_round(alpha, gamma) / (gamma * c + 1.0)


def break_even_acceptance(gamma: int, cost: float) -> float | None:
    """The acceptance rate (accepted / drafted) at which drafting `gamma` tokens a round, each costing `cost` of a
    target step (c + slope), matches plain decoding (§5.9, solved by bisection); None when even full acceptance
    does not pay."""
    def gain(alpha: float) -> float:
        return tokens_per_round(alpha, gamma) - (1.0 + gamma * cost)

    if gain(1.0) < 0:
        return None
    lo, hi = 0.0, 1.0
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gain(mid) < 0 else (lo, mid)
    expected = hi * (1 - hi ** gamma) / (1 - hi) if hi < 1 else float(gamma)
    return expected / gamma


def per_token_alpha(rounds: Sequence[Any]) -> float | None:
    """Observed per-token acceptance (§5.5) of rounds with ``drafted`` and ``accepted``: sum(n) / sum(n + [n < k])
    over the rounds that drafted; None when none did."""
    drafting = [r for r in rounds if r.drafted > 0]
    tested = sum(r.accepted + (r.accepted < r.drafted) for r in drafting)
    return sum(r.accepted for r in drafting) / tested if tested else None


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
    """The drafter-choice article's table: best gamma and speedup for every (alpha, c); `mark` flags the measured cell."""
    def cell(a: float, c: float) -> dict[str, Any]:
        g, s = best_gamma(a, c)
        return {"alpha": a, "c": c, "best_gamma": g, "speedup": round(s, 4),
                "measured": mark is not None and math.isclose(a, mark[0]) and math.isclose(c, mark[1])}

    return {"alphas": list(alphas), "cs": list(cs), "cells": [[cell(a, c) for c in cs] for a in alphas]}


def table_around(alpha: float, c: float) -> dict:
    """A 5 x 5 table centred on the measured (alpha, c): alpha +-0.05/0.1, c x0.5..x2."""
    alphas = sorted({round(min(1.0, max(0.0, alpha + d)), 4) for d in (-0.1, -0.05, 0.0, 0.05, 0.1)})
    cs = sorted({round(c * f, 5) for f in (0.5, 0.75, 1.0, 1.5, 2.0)}) if c > 0 else [0.0, 0.01, 0.02, 0.05, 0.1]
    return gamma_table(alphas, cs, mark=(round(alpha, 4), round(c, 5)))


def verdict(alpha: float, c: float, gammas: Sequence[int] = GAMMAS,
            c_spread: tuple[float, float] | None = None) -> dict[str, Any]:
    """The "alpha must exceed c" check and which gammas would be slower than plain generate(), in plain words.
    c_spread: the (low, high) of c's timings, when measured: alpha inside it is too close to call from the timings
    (``close``), whichever side of the median it falls."""
    g, s = best_gamma(alpha, c, gammas)
    slower = [x for x in gammas if predicted_speedup(alpha, c, x) < 1.0]
    close = c_spread is not None and c_spread[0] <= alpha <= c_spread[1]
    if close:
        text = (msg("alpha {alpha} lies inside c's measured spread ({low}..{high}, median {c}): too close to call from the "
                    "timings; only races on your prompts can say.", alpha=f"{alpha:.2f}", low=f"{c_spread[0]:.3f}",
                    high=f"{c_spread[1]:.3f}", c=f"{c:.3f}"))
    elif alpha > c:
        text = (msg("alpha {alpha} exceeds c {c}, so drafting can pay off: gamma {gamma} predicts {speedup}x.",
                    alpha=f"{alpha:.2f}", c=f"{c:.3f}", gamma=g, speedup=f"{s:.2f}"))
        if slower:
            first, last = slower[0], slower[-1]
            speeds = {"first": first, "at": first, "speed": f"{predicted_speedup(alpha, c, first):.2f}"}
            if last != first:
                keep = msg("Keep gamma below {first}: from there on it is slower than plain generate() ({speed}x at gamma "
                           "{at}, {speed_last}x at gamma {last}).", **speeds, last=last,
                           speed_last=f"{predicted_speedup(alpha, c, last):.2f}")
            else:
                keep = msg("Keep gamma below {first}: from there on it is slower than plain generate() ({speed}x at gamma "
                           "{at}).", **speeds)
            text = join((text, keep))
    else:
        text = (msg("alpha {alpha} does not exceed c {c}, so no gamma makes assisted generation faster (gamma 1 gives "
                    "{speedup}x): turn it off, or find a cheaper or better-matching drafter.", alpha=f"{alpha:.2f}",
                    c=f"{c:.3f}", speedup=f"{(1 + alpha) / (1 + c):.2f}"))
    return {"alpha_exceeds_c": alpha > c, "close": close, "worth_it": s > 1.0, "slower_than_plain_gammas": slower,
            "text": text}
