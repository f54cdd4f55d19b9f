"""Where a greedy race of a lossless method diverges, why: the target's top two probabilities at the first divergent
position, and whether that is a near-tie that verifying several tokens per pass rounds differently or a real loss of
losslessness (docs/DESIGN.md §3).

Both sides hold the same tokens before the divergent position, so one forward pass of the target over the prompt and
that common prefix gives the distribution both sides chose from. In bfloat16 the logits of a 150k-token vocabulary
round to steps of 1/8 around 20, so two candidates can come out exactly equal: argmax then picks the lower id in
one pass and the other candidate in a pass of another shape.
"""

from __future__ import annotations

from typing import Any

import torch

#: Two probabilities closer than this (absolute) are a near-tie: far above float32 noise, and about the rounding
#: step of bfloat16 logits near the top of a distribution.
NEAR_TIE = 0.02


def top_two(model: Any, input_ids: torch.Tensor, prefix: list[int]) -> tuple[list[tuple[int, float]], torch.Tensor]:
    """([(token id, probability)] * 2, the whole distribution) of `model`'s next token after `input_ids` (1, n) and
    `prefix` (token ids), in one forward pass, probabilities in float32."""
    ids = torch.cat([input_ids, torch.tensor([prefix], dtype=input_ids.dtype, device=input_ids.device)], dim=1)
    with torch.no_grad():
        logits = model(ids).logits[0, -1].float()
    probs = logits.softmax(-1)
    top = probs.topk(2)
    return [(int(i), float(p)) for p, i in zip(top.values.tolist(), top.indices.tolist())], probs


def explain(model: Any, tokenizer: Any, input_ids: torch.Tensor, plain: list[int], assisted: list[int],
            position: int) -> dict[str, Any]:
    """The JSON ``divergence`` object for a greedy race whose new tokens first differ at `position`:
    ``{"position", "plain": {"id", "text", "p"}, "assisted": {...}, "top_two": [{"id", "text", "p"}] * 2,
    "near_tie": bool, "explanation": str}`` (probabilities from one batched pass of the target in its dtype)."""
    top, probs = top_two(model, input_ids, plain[:position])

    def token(i: int) -> dict[str, Any]:
        return {"id": i, "text": tokenizer.decode([i]), "p": round(float(probs[i]), 5)}

    p_plain, p_assisted = float(probs[plain[position]]), float(probs[assisted[position]])
    near = abs(p_plain - p_assisted) < NEAR_TIE
    if near:
        text = (f"a near-tie: the target gives {token(plain[position])['text']!r} {p_plain:.1%} and "
                f"{token(assisted[position])['text']!r} {p_assisted:.1%} at token {position + 1}; verifying several "
                "tokens in one pass rounds the two differently (expected in low precision, not a lost guarantee)")
    else:
        text = (f"not a near-tie: the target gives {token(plain[position])['text']!r} {p_plain:.1%} and "
                f"{token(assisted[position])['text']!r} {p_assisted:.1%} at token {position + 1}; greedy assisted "
                "decoding should have kept the target's choice (a real loss of losslessness)")
    return {"position": position, "plain": token(plain[position]), "assisted": token(assisted[position]),
            "top_two": [token(i) for i, _ in top], "near_tie": near, "explanation": text}
