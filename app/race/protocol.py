"""The words and shapes of a race, defined once (docs/DESIGN.md §3, §7): the sides, the four token statuses and the
two modes as str-valued enums (their values are the JSON's strings), a token and a round, the events a race's worker
threads send, the snapshots followers read while it runs, and :class:`Run`, all that the page, the API and the
command line know of a race: a transformers race (app/race/lifecycle.py ``RaceRun``) or a serving engine's
(app/engine/run.py ``EngineRun``). This module imports nothing of the app, so every other module may import it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Callable, Protocol, TypeVar


class Side(StrEnum):
    """The two sides of a race: plain generate() and assisted generate(). The plain side's value is "baseline", its
    name in the JSON contract (docs/DESIGN.md §1.1)."""

    PLAIN = "baseline"
    ASSISTED = "assisted"


class Status(StrEnum):
    """What a generated token is (docs/DESIGN.md §3): a draft the target accepted, the target's own token where it
    rejected a draft, the target's extra token after a round that accepted every draft, or a token of plain decoding."""

    ACCEPTED = "accepted"
    RESAMPLED = "resampled"
    BONUS = "bonus"
    TARGET = "target"


class Mode(StrEnum):
    """How the sides ran: both at once (a show), or one after the other with the machine to itself (the fair race).
    The values are the JSON contract's names (docs/DESIGN.md §1.1)."""

    BOTH = "concurrent"
    FAIR = "sequential"


def _round(x: float | None, places: int = 6) -> float | None:
    return None if x is None else round(float(x), places)


@dataclass
class Token:
    """One generated token: id, its text (decoded in context) and its status (docs/DESIGN.md §3).
    p_target / p_draft: its probability under the target and the drafter (None where unknown);
    special: a special token of the tokenizer (end of text, chat markers), shown as a marker, not as text."""

    id: int
    text: str
    status: str
    p_target: float | None = None
    p_draft: float | None = None
    special: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, "status": self.status, "p_target": _round(self.p_target, 5),
                "p_draft": _round(self.p_draft, 5), "special": self.special}


@dataclass
class Round:
    """One assisted round: k drafted, n accepted, the rejected draft's text; seconds spent drafting and
    verifying; the first rejected draft token's probability under the target and the drafter."""

    drafted: int
    accepted: int
    rejected_text: str = ""
    draft_seconds: float = 0.0
    verify_seconds: float = 0.0
    rejected_p_target: float | None = None
    rejected_p_draft: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"drafted": self.drafted, "accepted": self.accepted, "rejected_text": self.rejected_text,
                "draft_seconds": _round(self.draft_seconds), "verify_seconds": _round(self.verify_seconds),
                "rejected_p_target": _round(self.rejected_p_target, 5),
                "rejected_p_draft": _round(self.rejected_p_draft, 5)}


# ----- events: what a race's worker threads send to its reader (app/race/tracer.py makes them) --------------------
@dataclass(frozen=True)
class TokenEvent:
    """One new token. t: seconds since the run started. p_target / p_draft: probabilities of this token
    under the target and the drafter (None where unknown: baseline tokens, prompt lookup's drafts)."""

    side: Side
    index: int
    token_id: int
    status: Status
    t: float
    p_target: float | None = None
    p_draft: float | None = None


@dataclass(frozen=True)
class RoundEvent:
    """One assisted round: k drafted, n accepted, the rejected draft ids, seconds spent drafting and verifying,
    and the first rejected draft token's probabilities under the target and the drafter."""

    side: Side
    index: int
    drafted: int
    accepted: int
    rejected_ids: tuple[int, ...]
    draft_seconds: float = 0.0
    verify_seconds: float = 0.0
    rejected_p_target: float | None = None
    rejected_p_draft: float | None = None


@dataclass(frozen=True)
class ErrorEvent:
    side: Side
    message: str


@dataclass(frozen=True)
class DoneEvent:
    """A side finished (or stopped). seconds: wall time of generate()."""

    side: Side
    seconds: float
    stopped: bool


Event = TokenEvent | RoundEvent | ErrorEvent | DoneEvent


# ----- snapshots: what followers (the page, the API) read while a race runs -----------------------------------------
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
    """Both sides of a race at one moment (:meth:`Run.snapshot`)."""

    sequential: bool
    sides: dict[str, SideSnapshot]  # by the Side values
    baseline_kept_at: float | None = None


# ----- the run ------------------------------------------------------------------------------------------------------
Result = TypeVar("Result", covariant=True)


class Run(Protocol[Result]):
    """One race from preparation to reaped threads, as every driver sees it (docs/DESIGN.md §7, §8). Both runs are a
    ``Run[RaceResult]``; the result's type is a parameter only so that this module stays below app/race/result.py,
    which takes its statuses and modes from here.

    sequential: the sides run one after the other (an engine race always). progress: called with each loading
    message while :meth:`prepare` runs (None: none wanted).
    """

    sequential: bool
    progress: Callable[[str], None] | None

    def prepare(self) -> Any:
        """Load the models (or check the engine's pair) once; returns what it prepared (its ``device`` is where the
        race runs)."""

    def run(self) -> Result:
        """Prepare if needed, then run the race to its end (or its stop) and return its result."""

    def snapshot(self) -> RaceSnapshot | None:
        """Both sides so far, copied (safe to call from any thread); None before the race starts."""

    def stop(self) -> None:
        """End both sides after their current step (or keep the race from starting)."""

    def running(self) -> bool:
        """Whether the race's work is still running."""

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the race's work; True when it ended (or never started)."""

    def close(self, why: str) -> None:
        """Every driver's ``finally``: a race that has not ended is stopped and its work reaped."""

    def json(self) -> dict[str, Any]:
        """The finished race's JSON object (docs/DESIGN.md §4.1; an engine race's with its ``engine``)."""

    def facts(self) -> dict[str, Any]:
        """Where the prepared race runs, for the hardware panel: the device and the loaded models, or the engine."""
