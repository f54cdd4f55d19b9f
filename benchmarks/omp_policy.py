"""Does the app lose speed when idle OpenMP threads sleep instead of spin (``OMP_WAIT_POLICY=PASSIVE``)?

Torch's OpenMP threads spin for a while after each parallel region by default (ACTIVE), which takes cores from every
other thread and process on a shared machine: the page's server, a race of both at once, the other tenants of a
Space. PASSIVE lets them sleep. The policy is read once, when OpenMP starts, so each race runs in its own process:
``python -m app race --json`` with the policy unset (OpenMP's default) or PASSIVE, the two alternating, a fair race
(``--sequential``) and a race of both at once, on prompts of the built-in suite's test split (one per category,
``--categories``). Prints each race's tokens per second and the medians per policy.

Run it on a quiet machine (nothing else running):

    python -m benchmarks.omp_policy [--preset offline-prompt-lookup] [--reps 3] [--max-new-tokens 64]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

POLICIES = ("default", "PASSIVE")


def race(preset: str, prompt: str, tokens: int, sequential: bool, policy: str) -> dict:
    """One race in a new process under `policy`: (plain, assisted) tokens per second and the verdict."""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy != "default":
        env["OMP_WAIT_POLICY"] = policy
    cmd = [sys.executable, "-m", "app", "race", "--preset", preset, "--max-new-tokens", str(tokens), "--json",
           "--prompt", prompt]
    out = subprocess.run(cmd + (["--sequential"] if sequential else []), env=env, capture_output=True, text=True,
                         check=True).stdout
    result = json.loads(out)
    return {"plain": result["baseline"]["tokens_per_second"], "assisted": result["assisted"]["tokens_per_second"],
            "identical": result["identical"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="offline-prompt-lookup")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--categories", default="summarisation,code-editing,qa")
    args = ap.parse_args()
    from app.bench.suite import load_suite, select

    chosen = args.categories.split(",")
    prompts = [next(p for p in select(load_suite(), [c], split="test")) for c in chosen]

    runs: dict[tuple[str, str], list[dict]] = {}
    for rep in range(args.reps):
        for mode in ("fair", "both"):
            for prompt in prompts:
                for policy in POLICIES if rep % 2 == 0 else POLICIES[::-1]:
                    r = race(args.preset, prompt.prompt, args.max_new_tokens, mode == "fair", policy)
                    runs.setdefault((mode, policy), []).append(r)
                    print(f"rep {rep + 1} {mode:4} {prompt.id:16} {policy:7}: plain {r['plain']:.2f} tok/s, "
                          f"assisted {r['assisted']:.2f} tok/s, identical {r['identical']}", flush=True)
    print(f"\npreset {args.preset}, {args.max_new_tokens} new tokens, {args.reps} reps of {len(prompts)} test-split "
          "prompts, each race its own process")
    for (mode, policy), rs in sorted(runs.items()):
        plain, assisted = (statistics.median(r[k] for r in rs) for k in ("plain", "assisted"))
        print(f"{mode:4} {policy:7}: median plain {plain:.2f} tok/s, assisted {assisted:.2f} tok/s, "
              f"speedup {assisted / plain:.2f}x")


if __name__ == "__main__":
    main()
