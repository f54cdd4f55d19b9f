"""Tracing overhead: the same assisted generate() call with and without the tracing.

    python -m benchmarks.overhead [--presets offline-prompt-lookup,offline-early-exit,offline-uad]
                                  [--repeats 7] [--max-new-tokens 64]

Same process, same inputs, interleaved repetitions (plain, traced, plain, traced, ...) after a
warm-up; prints the median seconds of each and the ratio traced / plain (target: at most 1.03).
"Traced" includes everything the race adds: the draft-capture hook, the streamer that records
statuses and rounds and queues events, and decoding every token's text from the queue.
"""

from __future__ import annotations

import argparse
import queue
import statistics
import time


import torch

from app.core.requests import Limits
from app.race.hooks import bind_tracer
from app.core.presets import get_preset
from app.race.prepare import generate_call, prepare
from app.race.protocol import TokenEvent
from app.race.tracer import Detokenizer, TraceStreamer

PROMPT = ("Summarise this text, reusing its words: The city council approved the new park plan on Monday. "
          "The park will have a playground, a small lake and a path for bicycles. Work on the park starts in May.")


def plain(setup) -> float:
    model, kwargs = generate_call(setup, assisted=True)
    start = time.perf_counter()
    with torch.inference_mode():
        model.generate(**kwargs)
    return time.perf_counter() - start


def traced(setup) -> float:
    model, kwargs = generate_call(setup, assisted=True)
    events: queue.Queue = queue.Queue()
    streamer = TraceStreamer("assisted", True, events.put)
    start = time.perf_counter()
    with bind_tracer(streamer), torch.inference_mode():
        model.generate(**kwargs, streamer=streamer)
    detok = Detokenizer(setup.tokenizer, setup.input_ids[0].tolist())
    while not events.empty():
        event = events.get()
        if isinstance(event, TokenEvent):
            detok.push(event.token_id)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--presets", default="offline-prompt-lookup,offline-early-exit,offline-uad")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    args = ap.parse_args()
    print(f"torch threads: {torch.get_num_threads()}, repeats: {args.repeats}, new tokens: {args.max_new_tokens}")
    print(f"{'preset':<24} {'plain s':>9} {'traced s':>9} {'ratio':>7}")
    for pid in args.presets.split(","):
        setup = prepare(get_preset(pid).with_overrides(dict(max_new_tokens=args.max_new_tokens)), PROMPT, Limits.operator())
        plain(setup), traced(setup)  # warm-up
        p, t = [], []
        for _ in range(args.repeats):
            p.append(plain(setup))
            t.append(traced(setup))
        mp, mt = statistics.median(p), statistics.median(t)
        print(f"{pid:<24} {mp:>9.3f} {mt:>9.3f} {mt / mp:>7.3f}")


if __name__ == "__main__":
    main()
