"""Per-token status and per-round records (docs/DESIGN.md §3), captured during generate().

:class:`TraceStreamer` is both the ``streamer`` given to ``generate()`` and the sink :mod:`app.race.hooks` reports
each round to. An assisted round's tokens are emitted once the round is verified, each with the target's
probability and, for a model drafter, the drafter's (§4.2). The hot path appends integers and pushes small events;
turning ids into text happens in the reader (:class:`Detokenizer`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import torch
from transformers import StoppingCriteria
from transformers.generation.streamers import BaseStreamer

from .protocol import Event, RoundEvent, Side, Status, TokenEvent

def round_statuses(drafts: list[int], kept: list[int]) -> tuple[list[Status], int]:
    """(statuses of the kept tokens, drafts accepted) for a round that drafted `drafts` and kept `kept` (docs/DESIGN.md
    §3): the first n kept tokens are accepted drafts, the last is the target's own, unless the round was cut at the
    length limit or an end-of-text token, where its last token equals the draft there and is accepted too (§4.2)."""
    if not drafts:
        return [Status.TARGET] * len(kept), 0
    accepted = len(kept) - 1
    if accepted < len(drafts) and kept[-1] == drafts[accepted]:
        return [Status.ACCEPTED] * len(kept), len(kept)
    return [Status.ACCEPTED] * accepted + [Status.BONUS if accepted >= len(drafts) else Status.RESAMPLED], accepted


def _probabilities(logits: Any, positions: int, ids: list[int]) -> list[float]:
    """softmax(logits[0, i])[ids[i]] for i < positions (logits: (1, >= positions, V) or None)."""
    if logits is None or positions <= 0:
        return []
    rows = logits[0, :positions].float()
    picked = rows[torch.arange(positions, device=rows.device), torch.tensor(ids[:positions], device=rows.device)]
    return (picked - torch.logsumexp(rows, dim=-1)).exp().tolist()


@dataclass
class RawRound:
    """A round as recorded on the generation thread (ids, not text)."""

    drafted: int
    accepted: int
    rejected_ids: list[int]
    draft_seconds: float = 0.0
    verify_seconds: float = 0.0


class TraceStreamer(BaseStreamer):
    """Records every generated token and round; optionally forwards events.

    side: which side it traces. assisted: whether rounds are expected. undrafted: the assisted side decodes
    plainly (its schedule knows drafting cannot pay): each token is recorded as a round that drafted nothing.
    emit: called with each event from the generation thread (must be cheap and thread-safe,
    e.g. ``queue.Queue.put``).
    """

    def __init__(self, side: Side, assisted: bool, emit: Callable[[Event], None] | None = None,
                 undrafted: bool = False):
        self.side = side
        self.assisted, self.undrafted = assisted, undrafted
        self._put_at = 0.0
        self.emit = emit
        self.token_ids: list[int] = []
        self.rounds: list[RawRound] = []
        self.start = time.perf_counter()
        self._drafts: list[int] = []
        self._draft_logits: Any = None
        self._draft_seconds = 0.0
        self._kept: list[int] | None = None
        self._kept_at = 0.0
        self._prompt_seen = False

    # ----- DraftSink (called by hooks) ------------------------------------------------------------
    def on_candidates(self, prompt_len: int, candidate_ids: list[int], draft_seconds: float = 0.0,
                      candidate_logits: Any = None) -> None:
        self._drafts, self._draft_logits, self._draft_seconds = candidate_ids, candidate_logits, draft_seconds

    def on_verified(self, scores: Any, accepted: int, verify_seconds: float) -> None:
        """The round's tokens are known (put) and verified: record and emit it with its probabilities."""
        if self._kept is not None:
            self._finish_round(scores, verify_seconds)

    def _finish_round(self, scores: Any, verify_seconds: float) -> None:
        kept, drafts, logits = self._kept, self._drafts, self._draft_logits
        self._kept, self._drafts, self._draft_logits = None, [], None
        statuses, n = round_statuses(drafts, kept)
        rejected = drafts[n:] if n < len(drafts) else []
        p_draft = _probabilities(logits, min(len(kept), len(drafts)), kept)
        rej_t = _probabilities(scores[:, n:n + 1] if rejected and scores is not None else None, 1, rejected)
        rej_d = _probabilities(logits[:, n:n + 1] if rejected and logits is not None else None, 1, rejected)
        rnd = RawRound(len(drafts), n, rejected, self._draft_seconds, verify_seconds)
        self._record(kept, statuses, self._kept_at, _probabilities(scores, len(kept), kept), p_draft)
        self.rounds.append(rnd)
        if self.emit is not None:
            self.emit(RoundEvent(self.side, len(self.rounds) - 1, rnd.drafted, rnd.accepted, tuple(rejected),
                                 rnd.draft_seconds, rnd.verify_seconds, (rej_t or [None])[0], (rej_d or [None])[0]))

    # ----- BaseStreamer -------------------------------------------------------------------------------
    def put(self, value: torch.Tensor) -> None:
        ids = value.reshape(-1).tolist()
        if not self._prompt_seen:  # the first put() of generate() is the prompt
            self._prompt_seen = True
            return
        now = time.perf_counter() - self.start
        if self.assisted:
            self._kept, self._kept_at = ids, now  # emitted by on_verified, right after this
            if self.undrafted:  # no verification follows: the token's own forward pass is the round
                self._finish_round(None, now - self._put_at)
            self._put_at = now
        else:
            self._record(ids, [Status.TARGET] * len(ids), now, [], [])

    def _record(self, ids: list[int], statuses: list[Status], t: float, p_target: list[float], p_draft: list[float]) -> None:
        first = len(self.token_ids)
        self.token_ids.extend(ids)
        if self.emit is None:
            return
        for i, (tid, status) in enumerate(zip(ids, statuses)):
            self.emit(TokenEvent(self.side, first + i, tid, status, t, p_target[i] if i < len(p_target) else None,
                                 p_draft[i] if i < len(p_draft) else None))

    def end(self) -> None:
        """A round put but never verified (cannot happen with transformers 5.24.0): keep its tokens anyway."""
        if self._kept is not None:
            self._finish_round(None, 0.0)


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
        """Text still held back at the end, less a character the generation ended inside of (its bytes decode to
        U+FFFD: the text shows nothing rather than the replacement character)."""
        before = self._decode(self.ids[self.prefix:self.read])
        after = self._decode(self.ids[self.prefix:])
        self.prefix = self.read = len(self.ids)
        return after[len(before):].rstrip("\ufffd")

    def text(self, ids: list[int]) -> str:
        """Plain decode of `ids` with special tokens removed (for the final text), less a cut last character."""
        return self.tokenizer.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=False).rstrip("\ufffd")
