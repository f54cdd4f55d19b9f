"""What a float32 output layer costs against a bfloat16 one, per token, on Qwen2.5-Coder-1.5B's head shape
(151,936 x 1,536), with this machine's torch threads: the price of ``float32_logits`` (docs/DESIGN.md §3).

    python -m benchmarks.head_cost
"""

from __future__ import annotations

import time
from typing import Callable

import torch

VOCAB, HIDDEN = 151_936, 1_536


def per_call_ms(f: Callable[[], object], n: int = 30) -> float:
    """Milliseconds per call of `f` after two warm-up calls."""
    f()
    f()
    start = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - start) / n * 1000


def main() -> None:
    torch.manual_seed(0)
    w16 = (torch.randn(VOCAB, HIDDEN) * 0.02).to(torch.bfloat16)
    w32t = w16.float().t().contiguous()
    w32 = w16.float()
    x = torch.randn(1, HIDDEN).to(torch.bfloat16)
    print(f"torch threads {torch.get_num_threads()}, one token")
    print(f"bfloat16 head (linear)           {per_call_ms(lambda: torch.nn.functional.linear(x, w16)):.1f} ms")
    print(f"float32 head (linear)            {per_call_ms(lambda: torch.nn.functional.linear(x.float(), w32)):.1f} ms")
    print(f"float32 head, transposed (x @ W) {per_call_ms(lambda: x.float() @ w32t):.1f} ms")


if __name__ == "__main__":
    main()
