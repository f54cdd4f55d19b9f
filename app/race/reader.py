"""The reading side of a race (docs/DESIGN.md §7): worker events decoded, on the reader's thread, into one record per
side, and copied into snapshots that followers (the page, the API) read while the reader appends."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from .prepare import RaceSetup
from .result import Round, Token
from .tracer import Detokenizer, DoneEvent, ErrorEvent, Event, RoundEvent, TokenEvent

SIDES = ("baseline", "assisted")


@dataclass
class SideRecord:
    """What the reader has seen of one side (texts decoded on the reader's thread)."""

    token_ids: list[int] = field(default_factory=list)
    tokens: list[Token] = field(default_factory=list)
    token_times: list[float] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)
    seconds: float = 0.0
    ttft: float | None = None
    error: str | None = None
    done: bool = False
    stopped: bool = False


@dataclass(frozen=True)
class SideSnapshot:
    """One side as a follower sees it: tokens, rounds and token times so far, time to first token, final seconds
    (once done), its error, whether it ended (and was stopped), whether its generate() has begun and the seconds since then."""

    tokens: tuple[Token, ...] = ()
    rounds: tuple[Round, ...] = ()
    token_times: tuple[float, ...] = ()
    ttft: float | None = None
    seconds: float = 0.0
    error: str | None = None
    done: bool = False
    stopped: bool = False
    started: bool = False
    elapsed: float | None = None


@dataclass(frozen=True)
class RaceSnapshot:
    """Both sides of a race at one moment (:meth:`Race.snapshot`)."""

    sequential: bool
    sides: dict[str, SideSnapshot]
    baseline_kept_at: float | None = None


class Reader:
    """Decodes one race's events into :class:`SideRecord` s. Fast tokenizers are not thread-safe, so the reader takes
    its own tokenizer from the setup's pool and gives it back with :meth:`release` once nothing will decode any more."""

    def __init__(self, setup: RaceSetup):
        self.setup = setup
        self.records = {side: SideRecord() for side in SIDES}
        self.tokenizer = tok = setup.tokenizers.acquire()
        self._released = False
        context = setup.input_ids[0].tolist()
        self._detok = {side: Detokenizer(tok, context) for side in SIDES}
        self._special_ids = frozenset(getattr(tok, "all_special_ids", ()) or ())

    @property
    def done(self) -> bool:
        """Whether both sides have ended."""
        return all(r.done for r in self.records.values())

    def record(self, event: Event) -> SideRecord:
        """Apply `event` to its side's record (returned)."""
        rec = self.records[event.side]
        if isinstance(event, TokenEvent):
            text = self._detok[event.side].push(event.token_id)
            rec.token_ids.append(event.token_id)
            rec.tokens.append(Token(event.token_id, text, event.status, event.p_target, event.p_draft,
                                    event.token_id in self._special_ids))
            rec.token_times.append(event.t)
            if rec.ttft is None:
                rec.ttft = event.t
        elif isinstance(event, RoundEvent):
            rejected = self.tokenizer.decode(list(event.rejected_ids), skip_special_tokens=False,
                                             clean_up_tokenization_spaces=False)
            rec.rounds.append(Round(event.drafted, event.accepted, rejected, event.draft_seconds, event.verify_seconds,
                                    event.rejected_p_target, event.rejected_p_draft))
        elif isinstance(event, ErrorEvent):
            rec.error = event.message
        elif isinstance(event, DoneEvent):
            tail = self._detok[event.side].flush()
            if tail and rec.tokens:
                rec.tokens[-1].text += tail
            rec.seconds, rec.done, rec.stopped = event.seconds, True, event.stopped
        return rec

    def side(self, side: str) -> dict[str, Any]:
        """One side's fields of a SideResult (texts decoded in context)."""
        rec = self.records[side]
        return {"text": self._detok[side].text(rec.token_ids), "token_ids": list(rec.token_ids),
                "seconds": rec.seconds, "ttft_seconds": rec.ttft, "token_times": list(rec.token_times),
                "token_texts": [t.text for t in rec.tokens]}

    def snapshot(self, sequential: bool, streamers: dict[str, Any], kept_at: float | None) -> RaceSnapshot:
        """What the race has produced so far, copied (safe to read while the reader thread appends). A side has
        started once its streamer exists; its elapsed time runs from its generate()'s start to its final time."""
        sides = {}
        for side, rec in self.records.items():
            n = min(len(rec.tokens), len(rec.token_times))  # the reader appends a token, then its time
            streamer = streamers.get(side)
            elapsed = rec.seconds if rec.done else None if streamer is None else time.perf_counter() - streamer.start
            sides[side] = SideSnapshot(tuple(rec.tokens[:n]), tuple(rec.rounds), tuple(rec.token_times[:n]), rec.ttft,
                                       rec.seconds, rec.error, rec.done, rec.stopped, streamer is not None, elapsed)
        return RaceSnapshot(sequential, sides, kept_at)

    def release(self) -> None:
        """Give the reader's tokenizer back to the pool (once; only after both sides ended)."""
        if not self._released and self.done:
            self._released = True
            self.setup.tokenizers.release(self.tokenizer)
