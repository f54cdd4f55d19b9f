"""Per-browser-session state of the Race tab, held in ``gr.State`` (nothing user-specific in module globals)."""

from __future__ import annotations

import threading
from typing import Any

from ...race.protocol import Run
from ...race.result import RaceResult
from ...render.live import LiveFrames
from ..streaming import PerSession


class Session(PerSession):
    """One browser session: its running race, last results and view toggles (gradio deep-copies the initial value:
    each session gets a fresh one). run: the latest race (a transformers or an engine race, app/race/protocol.py);
    results: mode -> (settings signature, RaceResult); frames: the frames of the latest race (app/render/live.py),
    whose last one a failure marks as failed."""

    def __init__(self) -> None:
        self.run: Run[RaceResult] | None = None
        self.active = False  # a race/measure event of this session is in progress (loading or running)
        self.cancel = threading.Event()
        self.results: dict[str, tuple[Any, RaceResult]] = {}
        self.latest: RaceResult | None = None
        self.lossless = True
        self.frames: LiveFrames | None = None
        self.facts: dict | None = None

    def begin(self) -> None:
        """A new run starts: forget an old stop request."""
        self.cancel.clear()

    def stop(self, timeout: float = 10.0) -> bool:
        """Stop the running race (if any) and wait for its threads; True when they ended."""
        self.cancel.set()
        run = self.run
        if run is None:
            return True
        run.stop()  # also ends a model download still in progress (app/core/download.py)
        return run.join(timeout)  # True when the workers ended, or never started

    def running(self) -> bool:
        return self.run is not None and self.run.running()

    def remember(self, mode: str, signature: Any, result: RaceResult) -> None:
        """Keep `result` as the latest and as the last of its mode."""
        self.results[mode] = (signature, result)
        self.latest = result

    def paired(self, mode: str, signature: Any) -> RaceResult | None:
        """The last result of `mode` if it was run with the same settings, else None."""
        hit = self.results.get(mode)
        return hit[1] if hit and hit[0] == signature else None
