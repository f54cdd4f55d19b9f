"""Prompt lookup that knows how long its match is (docs/DESIGN.md §5.12).

transformers' prompt lookup copies the continuation of the *first* place where the last one or two tokens occur
earlier. :func:`longest_match` instead takes the place whose preceding tokens agree longest with the end of the
text so far (the most recent one on a tie), and says how long that agreement is. The length is what the
cost-aware schedule conditions on: after a match of one token a copy is rarely right, after a match of ten it
usually goes on. Whatever is proposed, the target verifies it, so the output stays the target's own.
"""

from __future__ import annotations

from dataclasses import dataclass
import torch

#: The longest agreement counted (longer matches are as good as this long for the schedule).
MAX_MATCH = 32


@dataclass(frozen=True)
class Match:
    """start: index of the first copied token in the text so far; length: how many tokens before `start` agree
    with the end of the text (0: no match); available: how many tokens can be copied from `start`."""

    start: int
    length: int
    available: int


NO_MATCH = Match(0, 0, 0)


def longest_match(ids: torch.Tensor, max_tokens: int, cap: int = MAX_MATCH) -> Match:
    """The earlier position whose preceding tokens agree longest with the end of `ids` (1-D), the most recent
    one among equals, with up to `max_tokens` tokens after it to copy."""
    n = int(ids.shape[0])
    if n < 2 or max_tokens < 1:
        return NO_MATCH
    ids = ids.to("cpu")
    ends = torch.nonzero(ids[:-1] == ids[-1]).flatten()  # positions j < n - 1 whose token equals the last one
    if ends.numel() == 0:
        return NO_MATCH
    length = torch.ones_like(ends)
    alive = torch.ones_like(ends, dtype=torch.bool)
    for back in range(1, min(cap, n - 1)):
        earlier = ends - back
        alive &= earlier >= 0
        if not bool(alive.any()):
            break
        alive &= ids[earlier.clamp(min=0)] == ids[n - 1 - back]
        length += alive.long()
    best = int(length.max())
    j = int(ends[torch.nonzero(length == best).flatten()[-1]])  # the most recent of the longest
    return Match(j + 1, best, min(max_tokens, n - (j + 1)))


def continuation(ids: torch.Tensor, match: Match, max_tokens: int) -> torch.Tensor:
    """Up to `max_tokens` tokens that follow `match`'s start. Where the text ends before them and the match agrees
    over at least as many tokens as the tail from `start` to the end (the text has repeated that tail: a loop, such
    as a list or a repeated line), the tail is repeated: the copy goes on with the copy itself, a full draft ahead,
    where the most recent match alone would reach only one period to the end."""
    tail = ids[match.start:match.start + match.available]
    if tail.numel() == 0 or tail.numel() >= max_tokens or match.length < tail.numel():
        return tail
    return tail.repeat(-(-max_tokens // tail.numel()))[:max_tokens]


def proposal(ids: torch.Tensor, max_tokens: int, eos_ids: torch.Tensor | None = None) -> tuple[torch.Tensor, Match]:
    """The tokens :func:`longest_match` copies (:func:`continuation`, cut before an end-of-sequence token, as
    transformers does, so that an accepted copy cannot run past the end) and the match."""
    match = longest_match(ids, max_tokens)
    copied = continuation(ids, match, max_tokens)
    if eos_ids is not None and copied.numel():
        stops = torch.nonzero(torch.isin(copied, eos_ids.to(copied.device))).flatten()
        if stops.numel():
            copied = copied[:int(stops[0])]
    return copied, match
