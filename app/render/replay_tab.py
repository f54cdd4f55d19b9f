"""Pure HTML of the Replay tab (no gradio): the embedded player, its placeholder, the recording label and the
gallery rows, in the current language (docs/DESIGN.md §4.10)."""

from __future__ import annotations

from typing import Any

from ..core.errors import ArenaError
from ..core.words import t, table, translate
from ..replay.gallery import GalleryEntry, Gallery, load_gallery
from .why_panel import mode_label
from .hardware import when_text
from ..replay.tracefile import Trace
from .html import esc
from .status import status_html


def player_html(page: str) -> str:
    """The replay page in a frame that may run scripts but not reach this page (sandbox without same-origin)."""
    return (f'<iframe class="replay-frame" title="{esc(t("replay.frame_title"))}" sandbox="allow-scripts" '
            f'srcdoc="{esc(page)}"></iframe>')


def html_t(key: str, **html: str) -> str:
    """`key`'s text escaped, with `html` (already HTML) put in its placeholders."""
    return esc(t(key)).format(**html)


def placeholder_html() -> str:
    command = "<code>python -m app race ... --save-trace FILE</code>"
    return f'<div class="replay-empty">{html_t("replay.placeholder", command=command)}</div>'


def machine_words(env: dict[str, Any]) -> str:
    """A recording's machine in the current language: 'AMD EPYC 7763 (cpu, 2 cores, 1 torch thread per side,
    float32)' (the English is app/render/hardware.py ``machine_text``'s)."""
    n = env.get("threads_per_side")
    bits = [str(env.get("device") or "?"), t("replay.machine.cores", n=env["cores"]) if env.get("cores") else "",
            t("replay.machine.thread" if n == 1 else "replay.machine.threads", n=n) if n else "",
            str(env.get("dtype") or "")]
    return t("replay.machine", name=env.get("device_name") or t("replay.machine.unnamed"),
             bits=", ".join(b for b in bits if b))


def title_words(entry: GalleryEntry) -> str:
    """A gallery race's title in the current language (its own English title where the tables have none)."""
    key = "replay.title." + entry.file.removesuffix(".json")
    return t(key) if key in table("en") else entry.title


def recording_status(trace: Trace, name: str) -> str:
    """The line above the player that says it is a recording, of what, where and when."""
    r = trace.result
    verdict = r.verdict  # the recorded race's one verdict (app/race/verdict.py)
    return status_html(t("replay.recording", name=name, preset=r.preset, when=when_text(trace.recorded_at),
                         machine=machine_words(trace.environment), speedup=f"{verdict.speedup:.2f}",
                         mode=mode_label(r.mode, verdict.measured)), "info")


def safe_gallery() -> tuple[Gallery | None, str]:
    """(the gallery, "") or (None, the one-line reason it cannot be read)."""
    try:
        return load_gallery(), ""
    except ArenaError as exc:
        return None, str(exc)


#: What "as expected" means for each purpose a gallery prompt was picked for ("intended" in the index).
INTENTS = {"win": "faster", "lose": "slower"}
#: The gallery's outcomes (app/replay/gallery.py OUTCOMES) -> the suffix of their words' keys.
OUTCOME_KEYS = {"faster": "win", "slower": "loss", "level with plain": "level", "not a measurement": "unmeasured"}


def outcome_text(speedup: float, outcome: str, intended: str) -> str:
    """"0.96× slower · picked to show a win; it did not win here": the measured result, then what the prompt was
    picked for and, when the measurement disagrees, that it did."""
    expected = INTENTS.get(intended)
    purpose = t(f"replay.intent.{intended}") if expected else t("replay.intent.other", intended=intended)
    outcome_words = t(f"replay.outcome.{OUTCOME_KEYS[outcome]}") if outcome in OUTCOME_KEYS else outcome
    missed = expected is not None and outcome != expected
    text = t("replay.outcome", speedup=f"{speedup:.2f}", outcome=outcome_words, purpose=purpose)
    return text + (t(f"replay.missed.{intended}") if missed else "")


def gallery_headers() -> list[str]:
    """The gallery's column headers in the current language (gradio does not translate a Dataset's headers)."""
    return [t("replay.col.race"), t("replay.col.result"), t("replay.col.recorded")]


def gallery_samples(gallery: Gallery | None) -> list[list[str]]:
    """One row per recorded race: its title, its measured outcome against what it was picked for, where and when it
    was recorded."""
    if gallery is None:
        return []
    return [[title_words(e), outcome_text(e.speedup, e.outcome, e.intended),
             f"{when_text(e.recorded_at)} \u00b7 {e.device_name}"] for e in gallery.entries]


def intro_html(gallery: Gallery | None, problem: str = "") -> str:
    """What the tab does, and whether the gallery is provisional."""
    note = ""
    if problem:
        note = f'<div class="replay-note">{esc(t("replay.gallery_unreadable", problem=translate(problem)))}</div>'
    elif gallery is not None and (gallery.provisional or not gallery.entries):
        note = f'<div class="replay-note">{esc(translate(gallery.note))}</div>'
    return f'<div class="replay-intro">{esc(t("replay.intro"))}</div>{note}'
