"""The arena's overhead on an engine race: its own clock against the engine's ``predicted_per_second``.

    python -m benchmarks.engine_overhead [--endpoint URL --plain-endpoint URL2] [--repeats 3]
                                         [--max-new-tokens 64] [--threads N]

Without endpoints it starts the offline-prompt-lookup pair itself (``python -m app serve`` does the same). Each
repeat is one sequential engine race (plain, then assisted). Per side it prints the median of:

- engine: the server's ``timings.predicted_per_second`` (generation only, measured inside llama-server);
- arena decode: (new tokens - 1) / (last token's arrival - first token's arrival), the same span on the arena's clock
  (HTTP, JSON parsing and the per-chunk work included; prompt processing excluded, as in the engine's figure);
- arena end to end: the contract's ``tokens_per_second`` (new tokens / request seconds, prompt processing included);

and the overhead (engine / arena decode - 1; the target is at most 3 %). Run it alone on the machine.
"""

from __future__ import annotations

import argparse
import statistics

from app.engine.race import race_llamacpp

PROMPT = ("Rename the variable x to total in this function and return the whole function:\n\n"
          "def add_all(numbers):\n    x = 0\n    for n in numbers:\n        x = x + n\n    return x\n")


def decode_rate(side: dict) -> float:
    """Tokens per second between the first and the last token's arrival (0 with fewer than two tokens)."""
    times = side["token_times"]
    span = times[-1] - times[0] if len(times) > 1 else 0.0
    return (len(times) - 1) / span if span > 0 else 0.0


def measure(assisted_url: str, plain_url: str, repeats: int, max_new_tokens: int) -> dict[str, dict[str, float]]:
    """Median figures per side over `repeats` races (after one warm-up race)."""
    race_llamacpp(assisted_url, plain_url, PROMPT, 8)
    rows: dict[str, dict[str, list[float]]] = {"baseline": {}, "assisted": {}}
    for _ in range(repeats):
        out = race_llamacpp(assisted_url, plain_url, PROMPT, max_new_tokens).to_dict()
        for side, row in rows.items():
            figures = {"engine": out["engine"]["reported"][side].get("predicted_per_second", 0.0),
                       "arena_decode": decode_rate(out[side]), "arena_end_to_end": out[side]["tokens_per_second"]}
            for key, value in figures.items():
                row.setdefault(key, []).append(value)
    return {side: {k: statistics.median(v) for k, v in row.items()} for side, row in rows.items()}


def report(figures: dict[str, dict[str, float]]) -> str:
    lines = [f"{'side':<9} {'engine tok/s':>12} {'arena decode':>12} {'overhead':>9} {'arena e2e':>10}"]
    for side, f in figures.items():
        overhead = f["engine"] / f["arena_decode"] - 1 if f["arena_decode"] else float("nan")
        lines.append(f"{side:<9} {f['engine']:>12.1f} {f['arena_decode']:>12.1f} {overhead:>8.1%} "
                     f"{f['arena_end_to_end']:>10.1f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--endpoint")
    parser.add_argument("--plain-endpoint")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=None, help="CPU threads per started server")
    args = parser.parse_args()
    servers = ()
    if args.endpoint is None:
        from app.cli.serve import start_pair

        servers = start_pair("offline-prompt-lookup", args.threads)
        args.endpoint, args.plain_endpoint = servers[0].url, servers[1].url
    try:
        print(report(measure(args.endpoint, args.plain_endpoint, args.repeats, args.max_new_tokens)))
    finally:
        for server in servers:
            server.stop()


if __name__ == "__main__":
    main()
