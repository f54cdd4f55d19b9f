"""The README's per-category table of transformers' method against a serving engine's own speculation
("Race a serving engine"): the same prompts, the same GGUF file, one after the other.

    python -m benchmarks.engine_categories [--preset offline-prompt-lookup] [--categories a,b] [--split test]
        [--limit 2] [--repeats 3] [--max-new-tokens 64] [--threads 2] [--endpoint URL --plain-endpoint URL2]
        [--out engine-categories]

``--preset offline-drafter`` races the Qwen2.5-Coder pair: transformers' ``assistant_model`` against llama.cpp's
``-md`` draft model (``--spec-type draft-simple``) on the same two GGUF files.

Runs ``python -m app bench --presets PRESET`` (transformers), then the same ``bench --endpoint``
against the llama.cpp pair (started here as ``python -m app serve`` does, ``--threads`` per server, unless
``--endpoint`` is given), writes both runs' files under --out and prints one Markdown table: per category the
median speedup (min-max over prompts x repeats) of each on the arena's end-to-end clock (prompt processing
included), the engine's decode-only ratio (its own ``predicted_per_second``, assisted over plain: generation only,
measured inside llama-server) and the median acceptance of each. Timings need a quiet machine; ``--limit 1
--repeats 1`` is a smoke run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

from app.bench.stats import cells, geometric_mean
from app.cli import main as cli_main

PRESET = "offline-prompt-lookup"
COLUMNS = ("category", "transformers {method}", "llama.cpp {spec} (arena clock)",
           "llama.cpp {spec} (engine decode only)", "acceptance (transformers / llama.cpp)")


def _spread(values: list[float]) -> str:
    """'1.20x (1.13-1.28)': median (min-max)."""
    return f"{statistics.median(values):.2f}x ({min(values):.2f}-{max(values):.2f})" if values else "n/a"


def decode_ratios(data: dict[str, Any]) -> dict[str, list[float]]:
    """Per category, each run's assisted / plain ``predicted_per_second`` as the engine reported it (results.json's
    ``settings.engine.reported``, in the order of its runs)."""
    out: dict[str, list[float]] = {}
    reported = data["settings"].get("engine", {}).get("reported", [])
    for row, figures in zip(data["runs"], reported):
        plain, assisted = (figures[side].get("predicted_per_second") or 0.0 for side in ("baseline", "assisted"))
        if plain > 0:
            out.setdefault(row["category"], []).append(assisted / plain)
    return out


def _acceptance(cell: dict[str, Any] | None) -> str:
    value = cell.get("acceptance_median") if cell else None
    return "n/a" if value is None else f"{value:.0%}"


def table(transformers: dict[str, Any], engine: dict[str, Any], method: str = "prompt lookup") -> list[str]:
    """The Markdown table's lines from the two runs' results.json objects."""
    spec = (engine["settings"].get("methods") or ["llama.cpp speculative"])[0].split(" ", 1)[-1]
    by = {name: {c["category"]: c for c in cells(data["runs"])} for name, data in
          (("transformers", transformers), ("engine", engine))}
    runs = {name: {} for name in by}
    for name, data in (("transformers", transformers), ("engine", engine)):
        for row in data["runs"]:
            runs[name].setdefault(row["category"], []).append(row["speedup"])
    decode = decode_ratios(engine)
    lines = ["| " + " | ".join(c.format(spec=spec, method=method) for c in COLUMNS) + " |",
             "|" + "---|" * len(COLUMNS)]
    for category in dict.fromkeys([*by["transformers"], *by["engine"]]):
        lines.append(f"| {category} | {_spread(runs['transformers'].get(category, []))} | "
                     f"{_spread(runs['engine'].get(category, []))} | {_spread(decode.get(category, []))} | "
                     f"{_acceptance(by['transformers'].get(category))} / {_acceptance(by['engine'].get(category))} |")
    geo = [geometric_mean(c["speedup_median"] for c in by[name].values()) for name in ("transformers", "engine")]
    geo_decode = geometric_mean(statistics.median(v) for v in decode.values())
    lines.append("| overall (geomean) | " + " | ".join("n/a" if g is None else f"{g:.2f}x"
                                                      for g in (*geo, geo_decode)) + " | |")
    return lines


def _bench(argv: list[str]) -> dict[str, Any]:
    out = Path(argv[argv.index("--out") + 1])
    status = cli_main(argv)
    if status != 0:
        sys.exit(status)
    return json.loads((out / "results.json").read_text(encoding="utf-8"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default=PRESET, help=f"the transformers preset (default {PRESET})")
    ap.add_argument("--categories", help="comma-separated categories of the built-in suite (default all)")
    ap.add_argument("--split", default="test")
    ap.add_argument("--limit", type=int, default=2, help="prompts per category (default 2)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--max-new-tokens", type=int, default=64)
    ap.add_argument("--threads", type=int, default=2, help="CPU threads per started llama-server (default 2)")
    ap.add_argument("--endpoint", help="a running llama-server that drafts (default: start the pair here)")
    ap.add_argument("--plain-endpoint", help="with --endpoint: the same model without speculation")
    ap.add_argument("--out", type=Path, default=Path("engine-categories"))
    args = ap.parse_args()
    common = ["--presets", args.preset, "--split", args.split, "--limit", str(args.limit), "--repeats",
              str(args.repeats), "--max-new-tokens", str(args.max_new_tokens),
              *(["--categories", args.categories] if args.categories else [])]
    transformers = _bench(["bench", *common, "--out", str(args.out / "transformers")])
    servers = ()
    if args.endpoint is None:
        from app.cli.serve import start_pair

        servers = start_pair(args.preset, args.threads)
        args.endpoint, args.plain_endpoint = servers[0].url, servers[1].url
    try:
        engine = _bench(["bench", *common, "--endpoint", args.endpoint, "--plain-endpoint", args.plain_endpoint,
                         "--out", str(args.out / "llama.cpp")])
    finally:
        for server in servers:
            server.stop()
    from app.core.presets import get_preset

    method = {"prompt-lookup": "prompt lookup", "drafter": "assistant_model"}.get(get_preset(args.preset).method,
                                                                                  get_preset(args.preset).method)
    print("\n".join(table(transformers, engine, method)))


if __name__ == "__main__":
    main()
