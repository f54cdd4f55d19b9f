"""Record the Replay tab's gallery: a winning and a losing prompt per offline preset, sequential races.

    python -m benchmarks.record_gallery [--out assets/races] [--max-new-tokens 48] [--final] [--only NAME]

Each race runs like ``race --sequential --save-trace``: a warm-up, then baseline and assisted one after the
other, so each trace's speedup is a measurement of this machine. The files go to OUT as
``<preset>-<win|lose>.json`` with ``index.json`` (docs/DESIGN.md §4). Without ``--final`` the index says the
gallery is provisional: record the final one on a quiet machine (nothing else running) with ``--final``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from app.core.requests import Limits
from app.core.requests import build_request
from app.replay.gallery import GALLERY_DIR, GalleryEntry, entry_for, load_gallery, write_index
from app.replay.tracefile import build_trace, load_trace, save_trace

#: (preset, intended role, title, prompt, knob overrides): prompts chosen to make each method win or lose. On a CPU
#: the offline early-exit and UAD drafts cost about as much as a target step, so nothing makes them win: their
#: "win" race is recorded as shipped (the cost-aware schedule stops drafting and runs near plain speed) and their
#: "lose" race with transformers' constant schedule, which drafts every round and shows what that costs.
CONSTANT = {"num_assistant_tokens_schedule": "constant"}
RACES = [
    ("offline-prompt-lookup", "win", "Prompt lookup: an answer that copies the prompt's list",
     "Repeat this list and add one more fruit at the end: apple, banana, cherry, date, elderberry, fig.", {}),
    ("offline-prompt-lookup", "lose", "Prompt lookup: an explanation, nothing to copy; the schedule mostly stops drafting",
     "Explain in three sentences why the sky is blue.", {}),
    ("offline-uad", "win", "UAD as shipped: drafting cannot pay on this CPU, so the schedule stops drafting",
     "The capital of France is Paris. The capital of Germany is Berlin. The capital of Italy is Rome. The capital of "
     "Spain is", {}),
    ("offline-uad", "lose", "UAD with transformers' constant schedule: a draft every round, and what it costs",
     "The capital of France is Paris. The capital of Germany is Berlin. The capital of Italy is Rome. The capital of "
     "Spain is", CONSTANT),
    ("offline-early-exit", "win", "Early exit as shipped: drafting cannot pay on this CPU, so the schedule stops drafting",
     "Repeat this sentence exactly: The quick brown fox jumps over the lazy dog.", {}),
    ("offline-early-exit", "lose", "Early exit with transformers' constant schedule: a draft every round, and what it costs",
     "Repeat this sentence exactly: The quick brown fox jumps over the lazy dog.", CONSTANT),
]
PROVISIONAL_NOTE = ("Provisional: recorded at nice 19 on a shared 2-core CPU while other work ran, before the drafting "
                    "policy was tuned. Speedups are sequential measurements of that machine; re-record on a quiet "
                    "machine with python -m benchmarks.record_gallery --final.")
FINAL_NOTE = "Recorded with python -m benchmarks.record_gallery --final on a quiet machine; sequential measurements."


#: Races of one gallery entry before giving up on a measurement (a race the measurement check refuses is raced again).
TRIES = 3


def record(preset: str, prompt: str, max_new_tokens: int, overrides: dict) -> tuple[dict, float]:
    """One sequential race as a trace object, and the seconds it took (loading included): a race whose verdict is
    not a measurement (app/race/verdict.py) is raced again, up to TRIES times; SystemExit if none measured."""
    from app.race.lifecycle import run_race

    start = time.perf_counter()
    request = build_request(preset, prompt, {"max_new_tokens": max_new_tokens, **overrides}, limits=Limits.operator())
    for _ in range(TRIES):
        result = run_race(request, sequential=True)
        if result.verdict.measured:
            return build_trace(request, result), time.perf_counter() - start
        print(f"{preset}: not a measurement ({result.verdict.reason}); racing again", flush=True)
    raise SystemExit(f"{preset}: no race of {TRIES} was a measurement; record the gallery on a quieter machine")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.record_gallery", description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=GALLERY_DIR)
    parser.add_argument("--max-new-tokens", type=int, default=48)
    parser.add_argument("--final", action="store_true", help="a quiet machine: the index is not marked provisional")
    parser.add_argument("--only", help="record only this preset, or one race named PRESET-win or PRESET-lose "
                                       "(the others keep their files)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    entries: dict[str, GalleryEntry] = {}
    if args.only:  # keep the other presets' races
        entries = {e.file: e for e in load_gallery(args.out).entries}
    for preset, intended, title, prompt, overrides in RACES:
        if args.only and args.only not in (preset, f"{preset}-{intended}"):
            continue
        trace, seconds = record(preset, prompt, args.max_new_tokens, overrides)
        file = f"{preset}-{intended}.json"
        save_trace(trace, args.out / file)
        entry = entry_for(load_trace(args.out / file), file, intended, title)
        entries[file] = entry
        print(f"{file}: speedup {entry.speedup:.2f}x ({entry.outcome}, intended {intended}), "
              f"race {seconds:.0f} s", flush=True)
    order = [f"{p}-{i}.json" for p, i, *_ in RACES]
    ordered = sorted(entries.values(), key=lambda e: order.index(e.file) if e.file in order else len(order))
    write_index(args.out, ordered, not args.final, FINAL_NOTE if args.final else PROVISIONAL_NOTE)
    print(f"index: {args.out / 'index.json'} ({len(ordered)} races, {'final' if args.final else 'provisional'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
