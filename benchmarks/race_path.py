"""How many of the app's files one press of Race crosses, counted by the interpreter instead of by hand.

One fair race through the Race tab's own event (``RaceHandlers.race_click``, every frame consumed), with a profile
function on every thread (``sys.setprofile`` and ``threading.setprofile``) that records each call into a function of
``app/``: the file it is in, the nearest ``app/`` file up the caller's stack (a call from another file is a call
between files; a call from torch or gradio into the app, a hook or a thread's start, counts too, from the nearest app
frame), and the thread it ran on. The page is built before the profile starts, so building it does not count.

It counts from the click to the first frame that holds an assisted token (``--whole``: to the race's last frame, with
its panels and files). Prints the files crossed, grouped by package, the calls between files (distinct caller ->
callee file pairs) and the threads that ran app code; the second count leaves out the files every path uses for a word,
an escape or an error (SHARED), which hold no step of the race. docs/DESIGN.md §8 quotes it.

    python -m benchmarks.race_path [--preset offline-prompt-lookup] [--max-new-tokens 16] [--whole] [--list]
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections import defaultdict
from pathlib import Path

import app

APP = Path(app.__file__).resolve().parent
#: Files every path uses for a word or an escape, not a step of the race: left out of the second count.
SHARED = ("core/words/", "render/html.py", "core/errors.py")


def app_file(filename: str) -> str | None:
    """The path of `filename` relative to app/, or None outside it."""
    try:
        return str(Path(filename).resolve().relative_to(APP))
    except ValueError:
        return None


class PathRecorder:
    """A profile function: the app files called, the calls between them, the threads that ran app code."""

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.edges: set[tuple[str, str]] = set()
        self.threads: dict[str, set[str]] = defaultdict(set)
        self.known: dict[str, str | None] = {}
        self.on = True  # threads started while counting keep the profile function: this ends the count for them too

    def where(self, frame) -> str | None:
        name = frame.f_code.co_filename
        if name not in self.known:
            self.known[name] = app_file(name)
        return self.known[name]

    def __call__(self, frame, event: str, arg) -> None:
        if event != "call" or not self.on:
            return
        callee = self.where(frame)
        if callee is None:
            return
        self.files.add(callee)
        self.threads[threading.current_thread().name.split(" ")[0]].add(callee)
        back = frame.f_back
        while back is not None:
            caller = self.where(back)
            if caller is not None:
                if caller != callee:
                    self.edges.add((caller, callee))
                return
            back = back.f_back


def main() -> None:
    from app.core.presets import get_preset
    from app.race.kept import KEPT_RUNS
    from app.race.protocol import Side
    from app.ui.config import UIConfig
    from app.ui.page import build_app
    from app.ui.race.session import Session
    from benchmarks.fair_race import page_controls
    from benchmarks.ui_overhead import fair_race_events

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="offline-prompt-lookup")
    ap.add_argument("--max-new-tokens", type=int, default=16)
    ap.add_argument("--whole", action="store_true", help="count the whole race (its last frame, panels and files "
                    "too), not only the way to the first assisted token on screen")
    ap.add_argument("--list", action="store_true", help="list every file and call between files")
    args = ap.parse_args()

    prompt = get_preset(args.preset).example_prompts[0]
    controls = page_controls(args.preset, prompt, args.max_new_tokens)
    handlers = build_app(UIConfig()).race.handlers
    for _ in fair_race_events(handlers, Session(), controls):  # load the models outside the count
        pass
    KEPT_RUNS.clear()

    recorder, session = PathRecorder(), Session()
    threading.setprofile(recorder)
    sys.setprofile(recorder)
    events = fair_race_events(handlers, session, controls)
    try:
        for _ in events:
            snap = session.run.snapshot() if session.run is not None and not args.whole else None
            if snap is not None and snap.sides[Side.ASSISTED].tokens:
                break  # the first frame with an assisted token: the path is walked
    finally:
        recorder.on = False
        sys.setprofile(None)
        threading.setprofile(None)
        events.close()  # the event's finally ends the race, as a closed tab does
        if session.run is not None:
            session.run.join(30)
        for thread in threading.enumerate():  # the thread that read the race ends once its workers have
            if thread.name.startswith("race-"):
                thread.join(30)
    result = session.latest if args.whole else None
    assert result is None or not result.errors, result.errors

    steps = {f for f in recorder.files if not f.startswith(SHARED) and not f.endswith("__init__.py")}
    step_edges = {(a, b) for a, b in recorder.edges if a in steps and b in steps}
    by_package: dict[str, list[str]] = defaultdict(list)
    for f in sorted(steps):
        by_package[f.split("/")[0] if "/" in f else "."].append(f)
    print(f"one fair race of {args.preset}, {args.max_new_tokens} new tokens, through the Race button's event, "
          + ("the whole race" if args.whole else "from the click to the first frame with an assisted token"))
    print(f"app files called: {len(recorder.files)}; calls between files: {len(recorder.edges)}")
    print(f"without the words, the escaper and the error type: {len(steps)} files, {len(step_edges)} calls between files")
    for package, files in by_package.items():
        print(f"  {package}: {len(files)}  " + ", ".join(f.split('/', 1)[-1] for f in files))
    print("threads that ran app code: " + ", ".join(f"{name} ({len(files)} files)"
                                                     for name, files in sorted(recorder.threads.items())))
    if args.list:
        for a, b in sorted(recorder.edges):
            print(f"  {a} -> {b}")


if __name__ == "__main__":
    main()
