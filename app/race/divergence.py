"""Where a greedy race of a lossless method diverges, why: the target's top two probabilities at the first divergent
position, and whether that is a near-tie that verifying several tokens per pass rounds differently or a real loss of
losslessness (docs/DESIGN.md §3).

Both sides hold the same tokens before the divergent position, so one forward pass of the target over the prompt and
that common prefix gives the distribution both sides chose from. In bfloat16 the logits of a 150k-token vocabulary
round to steps of 1/8 around 20, so two candidates can come out exactly equal: argmax then picks the lower id in
one pass and the other candidate in a pass of another shape.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # torch is imported where a pass runs: the engine races use describe() alone
    import torch

#: Two candidates whose logits (log-probabilities) differ by less than this are a near-tie: about two rounding steps
#: of bfloat16 logits near 20, and the spread seen between llama.cpp's batched and one-token kernels on a Q4_K_M
#: model (e.g. 25.7 % against 22.3 %, a gap of 0.14); far above float32 noise (about 1e-6).
NEAR_TIE = 0.25


def top_two(model: Any, input_ids: torch.Tensor, prefix: list[int]) -> tuple[list[tuple[int, float]], torch.Tensor]:
    """([(token id, probability)] * 2, the whole distribution) of `model`'s next token after `input_ids` (1, n) and
    `prefix` (token ids), in one forward pass, probabilities in float32."""
    import torch

    ids = torch.cat([input_ids, torch.tensor([prefix], dtype=input_ids.dtype, device=input_ids.device)], dim=1)
    with torch.no_grad():
        logits = model(ids).logits[0, -1].float()
    probs = logits.softmax(-1)
    top = probs.topk(2)
    return [(int(i), float(p)) for p, i in zip(top.values.tolist(), top.indices.tolist())], probs


def describe(position: int, plain: dict[str, Any], assisted: dict[str, Any], top: list[dict[str, Any]],
             source: str = "one batched pass of the target") -> dict[str, Any]:
    """The JSON ``divergence`` object: `plain` / `assisted` are the tokens each side chose at `position`
    (``{"id", "text", "p"}``, p None where unknown), `top` the target's two likeliest tokens there, `source` where the
    probabilities come from. A near-tie: both probabilities known and their logits within :data:`NEAR_TIE`."""
    p_plain, p_assisted = plain.get("p"), assisted.get("p")
    near = bool(p_plain and p_assisted) and abs(math.log(p_plain) - math.log(p_assisted)) < NEAR_TIE

    def pct(p: float | None) -> str:
        return "below the top two" if p is None else f"{p:.1%}"

    gives = (f"the target gives {plain['text']!r} {pct(p_plain)} and {assisted['text']!r} {pct(p_assisted)} at token "
             f"{position + 1} ({source})")
    if near:
        text = (f"a near-tie: {gives}; verifying several tokens in one pass rounds the two differently (expected in "
                "low precision, not a lost guarantee)")
    else:
        text = (f"not a near-tie: {gives}; greedy assisted decoding should have kept the target's choice (a real "
                "loss of losslessness)")
    return {"position": position, "plain": plain, "assisted": assisted, "top_two": top, "near_tie": near,
            "explanation": text}


def explain(model: Any, tokenizer: Any, input_ids: torch.Tensor, plain: list[int], assisted: list[int],
            position: int) -> dict[str, Any]:
    """The ``divergence`` object (:func:`describe`) for a greedy transformers race whose new tokens first differ at
    `position`, from one batched pass of the target in its dtype over the prompt and the common prefix."""
    top, probs = top_two(model, input_ids, plain[:position])

    def token(i: int) -> dict[str, Any]:
        return {"id": i, "text": tokenizer.decode([i]), "p": round(float(probs[i]), 5)}

    return describe(position, token(plain[position]), token(assisted[position]), [token(i) for i, _ in top])
