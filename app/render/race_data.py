"""A race as data for the one player (app/render/player.js, docs/DESIGN.md §4.9): what the server sends while a race
runs, and what a replay page embeds. The player draws the panes, tokens, tooltips, the fair race's replay of plain's
run and the recorded clock from it; nothing here is HTML.

The data (version 1), a JSON-ready dict::

    {"v": 1, "id": int (a new race: the player starts over), "mode": "sequential"|"concurrent",
     "clock": "live"|"recorded", "state": "idle"|"loading"|"racing"|"finished",
     "kept": "10:41:02"|None (a fair race against plain's kept run, recorded then), "plain_first": bool (recorded
     sequential: plain ran before assisted, with the machine to itself), "diverge_at": int|None,
     "words": {...the player's words...},
     "sides": {"baseline": SIDE, "assisted": SIDE}}
    SIDE = {"title", "subtitle", "phase", "message", "max": int|None (the token cap), "started": bool,
            "elapsed": float|None (s since its start, at this frame; its seconds once done), "seconds": float|None
            (once done), "ttft": float|None, "tokens": [TOKEN], "rounds": [ROUND]}
    TOKEN = [id, text, status, t (s from its side's start), p_target, p_draft, marker (a special token's small
             label, else None)]
    ROUND = [drafted, accepted, rejected_text, rejected_p_target, rejected_p_draft]

Tokens only grow while a race runs and each frame is a new object whose lists share the items already sent, so
gradio's streaming diff (``gradio.utils.diff``: a diff when a value extends the old one) sends only what is new
(docs/DESIGN.md §4.9).
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from ..race.protocol import Round, Status, Token
from ..race.result import RaceResult, special_label
from ..core.words import t, words

VERSION = 1
#: Where a token's status is in its list (TOKEN above).
T_STATUS_INDEX = 2


def player_words() -> dict[str, Any]:
    """What the player writes itself (pill labels, the footer, tooltips, a recording's controls), in the current
    language: the table's ``player.*`` words, the phases under ``phase`` and the statuses' labels under ``status``."""
    flat = words("player")
    out: dict[str, Any] = {k: v for k, v in flat.items() if "." not in k}
    out["phase"] = {k.split(".", 1)[1]: v for k, v in flat.items() if k.startswith("phase.")}
    out["status"] = {s.value: t(f"status.{s}.label") for s in Status}
    return out


_race_ids = itertools.count(1)


def _r(x: float | None, places: int) -> float | None:
    return None if x is None else round(float(x), places)


def token_item(tok: Token, at: float, assisted: bool) -> list:
    """One token as the player reads it (TOKEN above; `at`: seconds from its side's start); a plain token is always
    ``target``."""
    status = tok.status if assisted and (tok.status in tuple(Status) or tok.status == "pending") else Status.TARGET
    return [tok.id, tok.text, str(status), _r(at, 4), _r(tok.p_target, 3), _r(tok.p_draft, 3), marker(tok)]


#: The end-of-text marker as app/race/result.py ``special_label`` writes it (English), and its key.
END_MARK = "\u23ce end"


def marker(tok: Token) -> str | None:
    """The small label a special token shows instead of its raw text, in the current language; None for text."""
    label = special_label(tok.text, tok.special)
    return "\u23ce " + t("player.end") if label == END_MARK else label


def round_item(r: Round) -> list:
    return [r.drafted, r.accepted, r.rejected_text, _r(r.rejected_p_target, 3), _r(r.rejected_p_draft, 3)]


@dataclass
class SideCodec:
    """Encodes one side's tokens and rounds once each: a frame re-encodes only the newest token (its text may still
    grow when the side ends) and what arrived since the last frame."""

    assisted: bool
    tokens: list = field(default_factory=list)
    rounds: list = field(default_factory=list)

    def encode(self, tokens: Sequence[Token], times: Sequence[float], rounds: Sequence[Round]) -> tuple[list, list]:
        """(token items, round items), fresh lists sharing the unchanged items with the last call's."""
        n = min(len(tokens), len(times))
        keep = max(0, min(len(self.tokens), n) - 1)
        self.tokens = self.tokens[:keep] + [token_item(tokens[i], times[i], self.assisted) for i in range(keep, n)]
        if len(rounds) < len(self.rounds):
            self.rounds = []
        self.rounds = self.rounds + [round_item(r) for r in rounds[len(self.rounds):]]
        return list(self.tokens), list(self.rounds)


def side_data(title: str, subtitle: str, *, phase: str = "idle", message: str = "", max_tokens: int | None = None,
              started: bool = False, elapsed: float | None = None, seconds: float | None = None,
              ttft: float | None = None, tokens: list | None = None, rounds: list | None = None) -> dict[str, Any]:
    """One side (SIDE above); seconds are rounded to 0.1 ms."""
    return {"title": title, "subtitle": subtitle, "phase": phase, "message": message, "max": max_tokens,
            "started": started, "elapsed": _r(elapsed, 4), "seconds": _r(seconds, 4), "ttft": _r(ttft, 4),
            "tokens": tokens or [], "rounds": rounds or []}


def race_data(sides: dict[str, dict], *, race_id: int = 0, mode: str = "concurrent", clock: str = "live",
              state: str = "idle", kept: str | None = None, plain_first: bool = True,
              diverge_at: int | None = None) -> dict[str, Any]:
    """The whole data (see the module docstring)."""
    return {"v": VERSION, "id": race_id, "mode": mode, "clock": clock, "state": state, "kept": kept,
            "plain_first": plain_first, "diverge_at": diverge_at, "words": player_words(), "sides": sides}


def idle_data() -> dict[str, Any]:
    """The panes before any race."""
    return race_data({"baseline": side_data(t("pane.baseline"), t("pane.idle_baseline")),
                      "assisted": side_data(t("pane.assisted"), t("pane.idle_assisted"))})


def clock_time(epoch: float) -> str:
    """A recorded time of day, for "kept from 10:41:02"."""
    return time.strftime("%H:%M:%S", time.localtime(epoch))


def shown_divergence(result: RaceResult) -> int | None:
    """The token to outline in both panes: the first divergence, unless the outputs are identical or one is a
    prefix of the other (a stopped race)."""
    return None if result.identical or result.prefix_only else result.first_divergence


def recorded_data(result: RaceResult, baseline_texts: Sequence[str], max_tokens: int | None,
                  titles: tuple[str, str]) -> dict[str, Any]:
    """A finished race to replay on its recorded clock (a replay page): both sides whole, with their token times;
    a fair race replays as it was raced (plain first unless its run was kept, then assisted against plain's run)."""
    b, a = result.baseline, result.assisted
    baseline = [Token(i, text, "target") for i, text in zip(b.token_ids, baseline_texts)]
    sides = {"baseline": side_data(t("pane.baseline"), titles[0], phase="done", max_tokens=max_tokens, started=True,
                                   elapsed=b.seconds, seconds=b.seconds, ttft=b.ttft_seconds,
                                   tokens=SideCodec(False).encode(baseline, b.token_times, ())[0]),
             "assisted": side_data(t("pane.assisted"), titles[1], phase="done", max_tokens=max_tokens, started=True,
                                   elapsed=a.seconds, seconds=a.seconds, ttft=a.ttft_seconds,
                                   **_encoded(SideCodec(True), a.tokens, a.token_times, a.rounds))}
    kept = clock_time(result.baseline_kept_at) if result.baseline_kept_at is not None else None
    return race_data(sides, mode=result.mode, clock="recorded", state="finished", kept=kept,
                     plain_first=result.mode == "sequential" and kept is None, diverge_at=shown_divergence(result))


def _encoded(codec: SideCodec, tokens: Sequence[Token], times: Sequence[float], rounds: Sequence[Round]) -> dict:
    items, round_items = codec.encode(tokens, times, rounds)
    return {"tokens": items, "rounds": round_items}


def next_race_id() -> int:
    """A new race's id (the player starts over when it changes)."""
    return next(_race_ids)
