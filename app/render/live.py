"""The two panes of a race (docs/DESIGN.md §4.9): their subtitles and the legend of the token statuses (§3), and the
data of a race while it runs, each frame built from the race's snapshot for the player in the browser. The server only
says what happened (tokens, times, phases); the player (app/render/player.js) draws every token span and its tooltip,
ticks the rates and replays plain's run in a fair race (so nothing here runs per drawn frame)."""

from __future__ import annotations

from typing import Any

from ..race.protocol import RaceSnapshot, Side, SideSnapshot, Status, Token
from ..race.result import RaceResult
from ..core.sources import short_name
from ..core.words import t, translate
from .html import esc
from .race_data import SideCodec, clock_time, next_race_id, race_data, shown_divergence, side_data
from .statuses import status_table


def subtitles(method_title: str, target: str, assistant: str | None) -> tuple[str, str]:
    """The two panes' subtitles: what runs on each side."""
    helper = f" + {short_name(assistant)}" if assistant else ""
    return (t("pane.plain_subtitle", target=short_name(target)),
            t("pane.assisted_subtitle", method=method_title, target=short_name(target), helper=helper))


def legend_html() -> str:
    """The colour/underline key of the assisted pane, and how to see a rejected draft."""
    items = [f'<span class="legend-item" title="{esc(x.meaning)}"><span class="tok tok-{s}">{esc(x.label)}</span>'
             f'<span class="legend-text">{esc(x.short)}</span></span>' for s, x in status_table().items()]
    items.append(f'<span class="legend-item" title="{esc(t("legend.rejected_title"))}">'
                 f'<del class="rej">{esc(t("legend.rejected"))}</del><span class="legend-text">'
                 f'{esc(t("legend.rejected_how"))}</span></span>')
    return f'<div class="tok-legend" role="list" aria-label="{esc(t("legend.aria"))}">{"".join(items)}</div>'


def title(side: str) -> str:
    """A pane's title ("Plain", "Assisted") in the current language."""
    return t(f"pane.{side}")


def side_phase(side: SideSnapshot, sequential: bool, baseline_started: bool) -> str:
    """The phase a side is in: done, error or stopped once it ended; running once its generate() began (or always
    in a race of both at once); in a fair race, waiting for plain to finish, or warming up before that."""
    if side.done:
        return "error" if side.error else "stopped" if side.stopped else "done"
    if side.started or not sequential:
        return "running"
    return "waiting" if baseline_started else "warmup"


class LiveFrames:
    """The frames of one race. titles: the two panes' subtitles; sequential: a fair race (plain first, then assisted
    against plain's run); max_tokens: the token cap (the panes' progress bars)."""

    def __init__(self, titles: tuple[str, str], sequential: bool, max_tokens: int | None):
        self.titles, self.sequential, self.max_tokens = dict(zip(Side, titles)), sequential, max_tokens
        self.race_id = next_race_id()
        self.codecs = {name: SideCodec(name == Side.ASSISTED) for name in Side}
        self.last: dict[str, Any] | None = None

    @property
    def mode(self) -> str:
        return "sequential" if self.sequential else "concurrent"

    def _frame(self, sides: dict[str, dict], state: str, kept: float | None = None,
               diverge_at: int | None = None) -> dict[str, Any]:
        self.last = race_data(sides, race_id=self.race_id, mode=self.mode, state=state, diverge_at=diverge_at,
                              kept=None if kept is None else clock_time(kept))
        return self.last

    def loading(self, message: str, phase: str = "loading") -> dict[str, Any]:
        """Both panes empty with one message (loading models, stopped before the race, a failure)."""
        sides = {n.value: side_data(title(n), self.titles[n], phase=phase, message=message, max_tokens=self.max_tokens)
                 for n in Side}
        return self._frame(sides, "loading" if phase == "loading" else "finished")

    def _message(self, phase: str, side: SideSnapshot, kept: float | None) -> str:
        if side.error:
            return translate(side.error)
        if phase == "warmup":
            return t("live.warmup_kept" if kept else "live.warmup")
        return t("player.waiting_plain") if phase == "waiting" else ""

    def _side(self, name: str, snap: RaceSnapshot) -> dict[str, Any]:
        side = snap.sides[name]
        phase = side_phase(side, self.sequential, snap.sides[Side.PLAIN].started)
        tokens, rounds = self.codecs[name].encode(side.tokens, side.token_times, side.rounds)
        return side_data(title(name), self.titles[name], phase=phase,
                         message=self._message(phase, side, snap.baseline_kept_at), max_tokens=self.max_tokens,
                         started=side.started, elapsed=side.elapsed, seconds=side.seconds if side.done else None,
                         ttft=side.ttft, tokens=tokens, rounds=rounds)

    def frame(self, snap: RaceSnapshot | None) -> dict[str, Any]:
        """The race so far (both sides from one snapshot); before the race starts, both panes warming up."""
        if snap is None:
            return self.loading(t("live.warmup"), "warmup")
        return self._frame({n.value: self._side(n, snap) for n in Side}, "racing", snap.baseline_kept_at)

    def finished(self, result: RaceResult) -> dict[str, Any]:
        """The finished race from its result: every token with its final text and status, both sides' final
        figures, the first divergence outlined; the player shows it whole."""
        sides = {}
        for name in Side:
            side = getattr(result, name)
            tokens = result.assisted.tokens if name == Side.ASSISTED else _baseline_tokens(result)
            error = result.errors.get(name)
            phase = "error" if error else "stopped" if result.stopped else "done"
            # encoded afresh from the result (once): what the frames sent may differ at the end (texts, statuses);
            # items equal to those sent before add nothing to gradio's diff
            items, rounds = SideCodec(name == Side.ASSISTED).encode(tokens, side.token_times,
                                                                 result.assisted.rounds if name == Side.ASSISTED else ())
            sides[name.value] = side_data(title(name), self.titles[name], phase=phase, message=translate(error or ""),
                                    max_tokens=self.max_tokens, started=True, elapsed=side.seconds,
                                    seconds=side.seconds, ttft=side.ttft_seconds, tokens=items, rounds=rounds)
        return self._frame(sides, "finished", result.baseline_kept_at, shown_divergence(result))

    def failed(self, message: str) -> dict[str, Any]:
        """The last frame shown, both panes marked as failed; a pane with no tokens shows the message (in the
        visitor's language: an ArenaError's line is English)."""
        message = translate(message)
        if self.last is None:
            return self.loading(message, "error")
        sides = {n: {**s, "phase": "error", "message": s["message"] if s["tokens"] else message}
                 for n, s in self.last["sides"].items()}
        return self._frame(sides, "finished")


def _baseline_tokens(result: RaceResult) -> list[Token]:
    b = result.baseline
    texts = b.token_texts if len(b.token_texts) == len(b.token_ids) else [""] * len(b.token_ids)
    return [Token(i, text, Status.TARGET) for i, text in zip(b.token_ids, texts)]
