"""Token statuses and rounds of an engine race, from what the engine itself reported (docs/DESIGN.md §4.7).

Three sources, each named in the JSON's ``assisted.status_source``, never mixed and never dressed up:

- ``engine-per-step``: the engine reported every verify step (llama.cpp's cumulative draft counters on each
  streamed chunk, vLLM's ``per_step_drafted`` / ``per_step_accepted``): the statuses are exact.
- ``engine-counts``: only how many steps accepted how many drafts (vLLM's ``acceptance_histogram``, SGLang's
  ``spec_correct_drafts_histogram``): the rounds are the engine's counts laid out in an order it did not report.
- ``engine-totals``: only the totals (drafted, accepted): one summary round, statuses laid out from it.

Whatever the source, ``sum(rounds[].accepted)`` equals the engine's own count of accepted drafts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..race.protocol import Round, Status, Token

PER_STEP, COUNTS, TOTALS = "engine-per-step", "engine-counts", "engine-totals"
#: A token's status in a live snapshot while the engine has not said it yet (vLLM and SGLang report at the end); never
#: in a result.
PENDING = "pending"


@dataclass
class Step:
    """One verify step: `drafted` tokens proposed, `accepted` of them kept, starting at new token `start` (None when
    the engine did not say where)."""

    drafted: int
    accepted: int
    start: int | None = None


def steps_from_counters(counters: Sequence[tuple[int, int] | None]) -> list[Step] | None:
    """Verify steps from the cumulative (drafted, accepted) counters sent with each new token (llama.cpp with
    ``timings_per_token``): a step starts at the token where the counters change. None when a token came without
    counters or they go backwards (then only the totals are known)."""
    steps, prev = [], (0, 0)
    for index, pair in enumerate(counters):
        if pair is None:
            return None
        drafted, accepted = pair[0] - prev[0], pair[1] - prev[1]
        if drafted < 0 or accepted < 0 or accepted > drafted:
            return None
        if drafted or accepted:
            steps.append(Step(drafted, accepted, index))
        prev = pair
    return steps


def steps_in_order(drafted: Sequence[int], accepted: Sequence[int], first: int = 1) -> list[Step]:
    """Steps reported in order (vLLM's detailed arrays): each emits its accepted drafts plus one token, the first
    starting after `first` tokens made without drafting (the prefill's token)."""
    steps, at = [], first
    for d, a in zip(drafted, accepted):
        steps.append(Step(int(d), int(a), at))
        at += int(a) + 1
    return steps


def steps_from_histogram(histogram: Sequence[int], draft_length: int) -> list[Step]:
    """Steps from a histogram (item j: steps that accepted j drafts), each drafting `draft_length`; order unknown."""
    return [Step(draft_length, j) for j, count in enumerate(histogram) for _ in range(int(count))]


def _statuses(n_tokens: int, steps: list[Step]) -> list[Status]:
    """Per token: accepted for a step's kept drafts, then resampled (a draft was rejected) or bonus (all kept) for the
    token the target adds; target for tokens outside any step. Steps without a start are laid out one after another
    from the first token; a step cut by the end of the output keeps its drafts only."""
    statuses, at = [Status.TARGET] * n_tokens, 1 if n_tokens > 1 else 0
    for step in steps:
        at = step.start if step.start is not None else at
        for k in range(step.accepted + 1):
            if at + k >= n_tokens:
                break
            last = k == step.accepted
            statuses[at + k] = Status.ACCEPTED if not last else (Status.BONUS if step.accepted == step.drafted
                                                                  else Status.RESAMPLED)
        at += step.accepted + 1
    return statuses


def build(token_ids: Sequence[int], texts: Sequence[str], steps: list[Step],
          specials: frozenset[int] = frozenset()) -> tuple[list[Token], list[Round]]:
    """The assisted side's tokens (with statuses) and rounds from `steps`."""
    statuses = _statuses(len(token_ids), steps)
    tokens = [Token(int(i), t, s, special=int(i) in specials) for i, t, s in zip(token_ids, texts, statuses)]
    return tokens, [Round(s.drafted, s.accepted) for s in steps]


def pending(token_ids: Sequence[int], texts: Sequence[str]) -> list[Token]:
    """Tokens whose statuses the engine has not reported yet (a live snapshot only)."""
    return [Token(int(i), t, PENDING) for i, t in zip(token_ids, texts)]


def build_live(token_ids: Sequence[int], texts: Sequence[str],
               counters: Sequence[tuple[int, int] | None]) -> tuple[list[Token], list[Round]] | None:
    """The statuses and the completed rounds of a stream so far, from the cumulative counters of its tokens (llama.cpp
    with ``timings_per_token``): exactly the first tokens and rounds that :func:`build` of
    :func:`steps_from_counters` gives once the stream has ended (a step's tokens get their statuses as they arrive; a
    round counts once its accepted drafts and its target token are all in). None when a token came without
    counters."""
    steps = steps_from_counters(counters)
    if steps is None:
        return None
    tokens, round_list = build(token_ids, texts, steps)
    complete = [r for s, r in zip(steps, round_list) if (s.start or 0) + s.accepted + 1 <= len(token_ids)]
    return tokens, complete


def choose(counters: Sequence[tuple[int, int] | None] | None, drafted: int, accepted: int,
           detailed: tuple[Sequence[int], Sequence[int]] | None = None,
           histogram: tuple[Sequence[int], int] | None = None) -> tuple[list[Step], str]:
    """The best steps the engine's report allows, and their source label: per-step counters or arrays when they add
    up to the engine's totals, else the histogram, else one summary round of the totals."""
    for steps in (steps_from_counters(counters) if counters is not None else None,
                  steps_in_order(*detailed) if detailed is not None else None):
        if steps is not None and _adds_up(steps, drafted, accepted):
            return steps, PER_STEP
    if histogram is not None:
        steps = steps_from_histogram(*histogram)
        if sum(s.accepted for s in steps) == accepted:
            return steps, COUNTS
    return ([Step(drafted, accepted)] if drafted else []), TOTALS


def _adds_up(steps: list[Step], drafted: int, accepted: int) -> bool:
    return sum(s.accepted for s in steps) == accepted and sum(s.drafted for s in steps) == drafted
