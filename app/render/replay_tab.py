"""Pure HTML of the Replay tab (no gradio): the embedded player, its placeholder, the recording label and the
gallery rows."""

from __future__ import annotations

from ..core.errors import ArenaError
from ..replay.gallery import Gallery, load_gallery
from .hardware import machine_text, when_text
from ..replay.tracefile import Trace
from .html import esc
from .status import status_html



def player_html(page: str) -> str:
    """The replay page in a frame that may run scripts but not reach this page (sandbox without same-origin)."""
    return (f'<iframe class="replay-frame" title="race replay (a recording)" sandbox="allow-scripts" '
            f'srcdoc="{esc(page)}"></iframe>')


def placeholder_html() -> str:
    return ('<div class="replay-empty">Pick a recorded race above, or load a trace file saved with '
            '<code>python -m app race ... --save-trace FILE</code> or the Race tab\u2019s download. It plays here at '
            'the speed it was recorded, labelled with the hardware and date it ran on.</div>')


def recording_status(trace: Trace, name: str) -> str:
    """The line above the player that says it is a recording, of what, where and when."""
    r = trace.result
    return status_html(f"\u25cf Recording, not a live run: {name} ({r.preset}), recorded {when_text(trace.recorded_at)} "
                       f"on {machine_text(trace.environment)}. Speedup {r.speedup:.2f}\u00d7, "
                       f"{'measured sequentially' if r.mode == 'sequential' else 'concurrent race'}.", "info")


def safe_gallery() -> tuple[Gallery | None, str]:
    """(the gallery, "") or (None, the one-line reason it cannot be read)."""
    try:
        return load_gallery(), ""
    except ArenaError as exc:
        return None, str(exc)


#: What each gallery prompt was picked to show ("intended" in the index), and what "as expected" means for it.
INTENTS = {"win": ("picked to show a win", "faster"), "lose": ("picked to show a loss", "slower")}


def outcome_text(speedup: float, outcome: str, intended: str) -> str:
    """"0.96× slower · picked to show a win; it did not win here": the measured result, then what the prompt was
    picked for and, when the measurement disagrees, that it did."""
    purpose, expected = INTENTS.get(intended, (f"picked to show: {intended}", None))
    missed = expected is not None and outcome != expected
    word = "win" if intended == "win" else "lose"
    return f"{speedup:.2f}\u00d7 {outcome} \u00b7 {purpose}" + (f"; it did not {word} here" if missed else "")


def gallery_samples(gallery: Gallery | None) -> list[list[str]]:
    """One row per recorded race: its title, its measured outcome against what it was picked for, where and when it
    was recorded."""
    if gallery is None:
        return []
    return [[e.title, outcome_text(e.speedup, e.outcome, e.intended),
             f"{when_text(e.recorded_at)} \u00b7 {e.device_name}"] for e in gallery.entries]


def intro_html(gallery: Gallery | None, problem: str = "") -> str:
    """What the tab does, and whether the gallery is provisional."""
    note = ""
    if problem:
        note = f'<div class="replay-note">The gallery cannot be shown: {esc(problem)}</div>'
    elif gallery is not None and (gallery.provisional or not gallery.entries):
        note = f'<div class="replay-note">{esc(gallery.note)}</div>'
    return ('<div class="replay-intro">Replays recorded races at the speed they ran, token by token, in your browser: '
            'nothing is computed here, so a free CPU machine can show a GPU race faithfully. Every replay is labelled '
            f'with the hardware and date it was recorded on.</div>{note}')
