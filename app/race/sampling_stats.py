"""Two-sample statistics of the sampling check (docs/DESIGN.md §5.15): total variation distance, a permutation test
that suits sparse categories, and the smallest difference a check of this size can see. Pure numpy, no models.

Rare tokens are pooled into one "other" category, so the hundreds seen once do not fill the statistic with noise;
the pooling depends only on the combined sample, so the permutation test stays exact.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Hashable, Sequence

import numpy as np

#: Family-wise chance that a check of a lossless method says "different".
ALPHA = 0.01
#: Tokens seen fewer times than this in both samples together are pooled into "other".
MIN_COUNT = 5
#: The pooled category of rare tokens.
OTHER = "other"
#: Random splits per comparison: at least this many, and enough that about 20 splits lie beyond the critical value.
MIN_SPLITS = 2000
SPLITS_BEYOND = 20


@dataclass
class Comparison:
    """One tested comparison (a position, or the first two tokens jointly).

    tv_distance: TV between the empirical distributions (rare tokens pooled). p_value: the permutation
    test's. min_detectable_tv: the critical value at `level`. top: the most frequent categories as
    (category, share in plain, share in assisted), most frequent first.
    """

    label: str
    tv_distance: float
    p_value: float
    min_detectable_tv: float
    level: float
    categories: int
    top: list[tuple[Any, float, float]]

    @property
    def different(self) -> bool:
        return self.p_value <= self.level


def pooled_codes(a: Sequence[Hashable], b: Sequence[Hashable], min_count: int = MIN_COUNT
                 ) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """Integer codes of `a` and `b` over shared categories (rare ones pooled as OTHER) and the category names."""
    counts = Counter((*a, *b))
    kept = sorted((x for x, n in counts.items() if n >= min_count), key=lambda x: (-counts[x], str(x)))
    names: list[Any] = kept + ([OTHER] if len(kept) < len(counts) else [])
    index, other = {x: i for i, x in enumerate(kept)}, len(kept)
    code = lambda xs: np.array([index.get(x, other) for x in xs], dtype=np.int64)  # noqa: E731
    return code(a), code(b), names


def tv_distance(a_counts: np.ndarray, b_counts: np.ndarray) -> np.ndarray:
    """TV between count vectors (the last axis: categories), each normalised by its own total."""
    a_total = a_counts.sum(axis=-1, keepdims=True)
    b_total = b_counts.sum(axis=-1, keepdims=True)
    return 0.5 * np.abs(a_counts / a_total - b_counts / b_total).sum(axis=-1)


def splits_for(level: float) -> int:
    """Random splits needed to place the critical value at `level` (about SPLITS_BEYOND splits beyond it)."""
    return max(MIN_SPLITS, math.ceil(SPLITS_BEYOND / level))


def permutation_test(a_codes: np.ndarray, b_codes: np.ndarray, k: int, level: float, seed: Sequence[int]
                     ) -> tuple[float, float, float]:
    """(observed TV, p-value, critical TV at `level`) for two samples of codes 0..k-1; `seed` seeds the splits."""
    a = np.bincount(a_codes, minlength=k)
    b = np.bincount(b_codes, minlength=k)
    observed = float(tv_distance(a, b))
    total = a + b
    if np.count_nonzero(total) < 2:  # one category only: both samples are identical
        return observed, 1.0, 0.0
    rng = np.random.default_rng(seed)
    splits = splits_for(level)
    a_perm = rng.multivariate_hypergeometric(total, int(a.sum()), size=splits)
    null = tv_distance(a_perm, total - a_perm)
    hits = int(np.count_nonzero(null >= observed - 1e-12))
    critical = float(np.quantile(null, 1.0 - level, method="higher"))
    return observed, (1 + hits) / (1 + splits), critical


def compare(label: str, a: Sequence[Hashable], b: Sequence[Hashable], level: float, seed: Sequence[int],
            top: int = 5) -> Comparison:
    """The :class:`Comparison` of samples `a` (plain) and `b` (assisted) at test level `level`."""
    a_codes, b_codes, names = pooled_codes(a, b)
    tv, p, critical = permutation_test(a_codes, b_codes, len(names), level, seed)
    a_share = np.bincount(a_codes, minlength=len(names)) / max(len(a), 1)
    b_share = np.bincount(b_codes, minlength=len(names)) / max(len(b), 1)
    order = [i for i in np.argsort(-(a_share + b_share), kind="stable") if names[i] != OTHER][:top]
    return Comparison(label, tv, p, critical, level, len(names),
                      [(names[i], float(a_share[i]), float(b_share[i])) for i in order])


def compare_sequences(plain: Sequence[Sequence[int]], assisted: Sequence[Sequence[int]], tokens: int,
                      seed: int, alpha: float = ALPHA) -> list[Comparison]:
    """Marginals at positions 1..`tokens`, then the joint of the first two tokens (when `tokens` >= 2).

    Sequences hold `tokens` categories each (see :func:`app.race.sampling_check.categories`). Every comparison
    is tested at alpha / (number of comparisons).
    """
    tests = tokens + (1 if tokens >= 2 else 0)
    level = alpha / tests
    out = [compare(f"token {i + 1}", [s[i] for s in plain], [s[i] for s in assisted], level, (seed, i))
           for i in range(tokens)]
    if tokens >= 2:
        out.append(compare("tokens 1-2", [tuple(s[:2]) for s in plain], [tuple(s[:2]) for s in assisted], level,
                           (seed, tokens)))
    return out
