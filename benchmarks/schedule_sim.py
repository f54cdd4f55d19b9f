"""Replay prompt lookup's schedules on the target's own greedy answers: noise-free, in seconds, on a busy machine.

With greedy decoding the rounds of prompt lookup are fully determined by the target's plain answer: a round at
position t copies a proposal, keeps the prefix that agrees with the answer, and adds the target's next token. So the
answers are generated once (``--collect``, a few minutes on a CPU) and every schedule is then replayed against them
under a verification cost curve in units of a plain step: a round that drafted nothing costs 1, one that drafted
k >= 1 costs ``--fixed + --per-token * k`` (on the 2-core CPU of docs/DESIGN.md §5.12: 1.45 and 0.03; on a GPU
about 1 and 0). Tokens per step over plain decoding's is the speedup. It is how the cost-aware schedule's constants
were chosen on the built-in suite's tune split; the measured figures come from ``python -m app bench --regret``.

    python -m benchmarks.schedule_sim --collect answers.json            # the target's greedy answers, once
    python -m benchmarks.schedule_sim answers.json --split tune [--fixed 1.45 --per-token 0.03]

``--suite benchmarks/schedule_dev.jsonl --split dev`` replays 26 prompts written for tuning the schedule only (chat,
questions and sums that copy little, a few that copy much), beside the built-in suite's tune split; its test split
is kept for the measured figures.

Prints, per category, the median speedup over the prompts of: transformers' lookup at constant lengths, and the
cost-aware schedule (app.race.drafting) with the longest-match lookup (app.race.lookup).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Callable

import torch

from app.race.drafting import CostAwarePolicy
from app.race.lookup import proposal

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "assets" / "suites" / "builtin.jsonl"
MAX_DRAFT = 10


def collect(out: Path, preset_id: str, max_new_tokens: int, suite: Path = SUITE) -> None:
    """Greedy plain answers of the preset's target to every prompt of `suite` (JSON lines), saved as JSON."""
    from app.core.presets import get_preset
    from app.core.requests import Limits
    from app.race.prepare import generate_call, prepare

    preset = get_preset(preset_id).with_overrides({"max_new_tokens": max_new_tokens})
    rows = []
    for line in suite.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        setup = prepare(preset, row["prompt"], Limits.operator())
        model, kwargs = generate_call(setup, False)
        with torch.inference_mode():
            ids = model.generate(**kwargs)[0].tolist()
        n = setup.input_ids.shape[1]
        rows.append({"id": row["id"], "category": row["category"], "split": row["split"], "prompt_ids": ids[:n],
                     "answer_ids": ids[n:]})
        print(row["id"], len(ids) - n, flush=True)
    out.write_text(json.dumps(rows), encoding="utf-8")


def first_match(context: list[int], k: int, ngram: int = 2) -> tuple[list[int], int]:
    """transformers' prompt lookup: the continuation after the first occurrence of the last n-gram (n = 2, then 1)."""
    n = len(context)
    for size in range(min(ngram, n - 1), 0, -1):
        tail = context[n - size:]
        for i in range(n - size + 1):
            if context[i:i + size] == tail and i + size < n:
                return context[i + size:min(i + size + k, n)], size
    return [], 0


def longest(context: list[int], k: int) -> tuple[list[int], int]:
    copied, match = proposal(torch.tensor(context), k)
    return copied.tolist(), match.length


def replay(row: dict, propose: Callable, choose: Callable, observe: Callable | None, fixed: float,
           per_token: float) -> float:
    """Tokens per plain step of one answer under a schedule (choose(proposal, match length) -> k)."""
    context, answer = list(row["prompt_ids"]), row["answer_ids"]
    t, steps, first = 0, 0.0, True
    while t < len(answer):
        proposal, length = propose(context, MAX_DRAFT)
        proposal = proposal[:max(0, len(answer) - t - 1)]
        drafted = proposal[:choose(proposal, length)]
        accepted = next((i for i, (a, b) in enumerate(zip(drafted, answer[t:])) if a != b), len(drafted))
        cost = 1.0 if not drafted else fixed + per_token * len(drafted)
        steps += cost
        if observe is not None:
            observe(len(drafted), accepted, cost, first)
        first = False
        kept = answer[t:t + accepted + 1]
        context += kept
        t += len(kept)
    return t / steps


def cost_aware(row: dict, fixed: float, per_token: float) -> float:
    """The shipped schedule: a fresh policy per answer, fed the replayed rounds' costs (a step = 1 second)."""
    policy = CostAwarePolicy(MAX_DRAFT, 1.0, per_token, 0.0, drafts_first=True)
    return replay(row, longest, lambda p, length: policy.draft_length(len(p), length),
                  lambda k, a, cost, first: policy.observe(k, a, 0.0, cost, first), fixed, per_token)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("answers", type=Path)
    ap.add_argument("--collect", action="store_true", help="generate the answers file first")
    ap.add_argument("--preset", default="offline-prompt-lookup")
    ap.add_argument("--max-new-tokens", type=int, default=96)
    ap.add_argument("--suite", type=Path, default=SUITE, help="the prompts --collect answers (JSON lines)")
    ap.add_argument("--split", default="tune", help="the prompts' split to replay (tune, test, ...) or all")
    ap.add_argument("--fixed", type=float, default=1.45, help="a drafting round's cost at k = 0+, in plain steps")
    ap.add_argument("--per-token", type=float, default=0.03, help="each drafted token's extra cost, in plain steps")
    args = ap.parse_args()
    if args.collect:
        collect(args.answers, args.preset, args.max_new_tokens, args.suite)
    rows = [r for r in json.loads(args.answers.read_text(encoding="utf-8")) if args.split in ("all", r["split"])]
    variants: dict[str, Callable[[dict], float]] = {
        f"constant {k}": (lambda k: lambda row: replay(row, first_match, lambda p, _: min(k, len(p)), None,
                                                       args.fixed, args.per_token))(k) for k in (2, 4, 6, 10)}
    variants["cost-aware"] = lambda row: cost_aware(row, args.fixed, args.per_token)
    cells: dict[str, dict[str, list[float]]] = {}
    for row in rows:
        for name, run in variants.items():
            cells.setdefault(name, {}).setdefault(row["category"], []).append(run(row))
    categories = list(dict.fromkeys(r["category"] for r in rows))
    print(f"{len(rows)} answers ({args.split}), drafting round = {args.fixed} + {args.per_token} k plain steps")
    print(f"{'schedule':<12}" + "".join(f"{c[:12]:>13}" for c in categories))
    for name, by in cells.items():
        print(f"{name:<12}" + "".join(f"{statistics.median(by[c]):12.2f}x" for c in categories))


if __name__ == "__main__":
    main()
