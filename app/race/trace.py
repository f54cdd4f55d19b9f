"""Per-token status and per-round records (docs/DESIGN.md §3), captured during generate().

:class:`TraceStreamer` is both the ``streamer`` given to ``generate()`` and the draft sink
that :mod:`app.race.hooks` reports candidates to. The hot path only appends integers and
pushes small event objects; turning ids into text happens in the reader
(:class:`Detokenizer`), so tracing costs the generation thread almost nothing.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from transformers import StoppingCriteria
from transformers.generation.streamers import BaseStreamer

ACCEPTED, RESAMPLED, BONUS, TARGET = "accepted", "resampled", "bonus", "target"
STATUSES = (ACCEPTED, RESAMPLED, BONUS, TARGET)


@dataclass(frozen=True)
class TokenEvent:
    """One new token. t: seconds since the run started."""

    side: str
    index: int
    token_id: int
    status: str
    t: float


@dataclass(frozen=True)
class RoundEvent:
    """One assisted round: k drafted, n accepted, the rejected draft ids."""

    side: str
    index: int
    drafted: int
    accepted: int
    rejected_ids: tuple[int, ...]


@dataclass(frozen=True)
class ErrorEvent:
    side: str
    message: str


@dataclass(frozen=True)
class DoneEvent:
    """A side finished (or stopped). seconds: wall time of generate()."""

    side: str
    seconds: float
    stopped: bool


Event = TokenEvent | RoundEvent | ErrorEvent | DoneEvent


def round_statuses(drafted: int, n_tokens: int) -> list[str]:
    """Statuses of the n_tokens kept in a round that drafted `drafted` tokens.

    The first n = n_tokens - 1 were drafts the target accepted; the last is the target's own:
    'bonus' if every draft was accepted, 'resampled' if one was rejected, 'target' if nothing
    was drafted.
    """
    if drafted == 0:
        return [TARGET] * n_tokens
    accepted = n_tokens - 1
    return [ACCEPTED] * accepted + [BONUS if accepted >= drafted else RESAMPLED]


@dataclass
class Round:
    drafted: int
    accepted: int
    rejected_ids: list[int]


class TraceStreamer(BaseStreamer):
    """Records every generated token and round; optionally forwards events.

    side: "baseline" or "assisted". assisted: whether rounds are expected.
    emit: called with each event from the generation thread (must be cheap and thread-safe,
    e.g. ``queue.Queue.put``).
    """

    def __init__(self, side: str, assisted: bool, emit: Callable[[Event], None] | None = None):
        self.side = side
        self.assisted = assisted
        self.emit = emit
        self.token_ids: list[int] = []
        self.statuses: list[str] = []
        self.rounds: list[Round] = []
        self.start = time.perf_counter()
        self._pending: list[int] | None = None
        self._prompt_seen = False

    # DraftSink (called by hooks from inside get_candidates)
    def on_candidates(self, prompt_len: int, candidate_ids: list[int]) -> None:
        self._pending = candidate_ids

    # BaseStreamer
    def put(self, value: torch.Tensor) -> None:
        ids = value.reshape(-1).tolist()
        if not self._prompt_seen:  # the first put() of generate() is the prompt
            self._prompt_seen = True
            return
        now = time.perf_counter() - self.start
        if self.assisted:
            drafts = self._pending or []
            self._pending = None
            statuses = round_statuses(len(drafts), len(ids))
            accepted = len(ids) - 1 if drafts else 0
            rnd = Round(len(drafts), accepted, drafts[accepted:] if accepted < len(drafts) else [])
            self.rounds.append(rnd)
        else:
            statuses = [TARGET] * len(ids)
            rnd = None
        first = len(self.token_ids)
        self.token_ids.extend(ids)
        self.statuses.extend(statuses)
        if self.emit is not None:
            for i, (tid, status) in enumerate(zip(ids, statuses)):
                self.emit(TokenEvent(self.side, first + i, tid, status, now))
            if rnd is not None:
                self.emit(RoundEvent(self.side, len(self.rounds) - 1, rnd.drafted, rnd.accepted, tuple(rnd.rejected_ids)))

    def end(self) -> None:
        pass


class StopOnEvent(StoppingCriteria):
    """Ends generate() after the current forward pass once `event` is set."""

    def __init__(self, event: Any):
        self.event = event

    def __call__(self, input_ids: torch.LongTensor, scores: Any, **kwargs: Any) -> torch.BoolTensor:
        return torch.full((input_ids.shape[0],), self.event.is_set(), dtype=torch.bool, device=input_ids.device)


@dataclass
class Detokenizer:
    """Turns a growing id sequence into per-token text deltas.

    Decodes a short window around each new token so that SentencePiece spaces and multi-byte
    characters come out right: a token that ends inside a UTF-8 character yields "" and the
    next token carries the completed text.
    """

    tokenizer: Any
    context: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.ids = list(self.context[-6:])
        self.prefix = 0
        self.read = len(self.ids)

    def _decode(self, ids: list[int]) -> str:
        return self.tokenizer.decode(ids, skip_special_tokens=False, clean_up_tokenization_spaces=False)

    def push(self, token_id: int) -> str:
        self.ids.append(token_id)
        before = self._decode(self.ids[self.prefix:self.read])
        after = self._decode(self.ids[self.prefix:])
        if len(after) > len(before) and not after.endswith("\ufffd"):
            self.prefix, self.read = self.read, len(self.ids)
            return after[len(before):]
        return ""

    def flush(self) -> str:
        """Text still held back at the end (an incomplete character)."""
        before = self._decode(self.ids[self.prefix:self.read])
        after = self._decode(self.ids[self.prefix:])
        self.prefix = self.read = len(self.ids)
        return after[len(before):]

    def text(self, ids: list[int]) -> str:
        """Plain decode of `ids` with special tokens removed (for the final text)."""
        return self.tokenizer.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=False)
