"""What the local hub (tests/local_hub.py) serves: a tiny random checkpoint under the real id of every hub model the
presets name, of the same model class as the real one (docs/DESIGN.md §6). The tiny_models builders cover Llama,
GLM-4.5 with MTP and Gemma 4; this module adds Gemma 2 (google/gemma-2-9b) and Gemma 3 (google/gemma-3-270m).

No pytest imports, so a script can build them too.
"""

from __future__ import annotations

from pathlib import Path

import torch

#: Real hub id -> the tiny model (a key of :func:`build_hub_models`' result) served under it.
HUB_MODELS = {
    "HuggingFaceTB/SmolLM2-135M-Instruct": "llama_target",
    "HuggingFaceTB/SmolLM-1.7B": "llama_target",
    "HuggingFaceTB/SmolLM-1.7B-Instruct": "llama_target",
    "HuggingFaceTB/SmolLM-135M": "llama_drafter",
    "facebook/layerskip-llama3.2-1B": "llama_target",
    "double7/vicuna-68m": "llama_other_tokenizer",
    "google/gemma-2-9b": "gemma2",
    "google/gemma-3-270m": "gemma3",
    "google/gemma-4-E4B-it": "gemma4_target",
    "google/gemma-4-E4B-it-assistant": "gemma4_assistant",
    "zai-org/GLM-4.5-Air": "glm_mtp",
}

_WIDTH = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
              head_dim=16, max_position_embeddings=512, sliding_window=64)


def _build_gemma(root: Path, tokenizer_folder: str, name: str, seed: int) -> str:
    """A tiny Gemma 2 ("gemma2") or Gemma 3 text ("gemma3") causal LM on the tokenizer in `tokenizer_folder`."""
    from transformers import AutoTokenizer, Gemma2Config, Gemma2ForCausalLM, Gemma3ForCausalLM, Gemma3TextConfig

    tok = AutoTokenizer.from_pretrained(tokenizer_folder)
    config_class, model_class = (Gemma2Config, Gemma2ForCausalLM) if name == "gemma2" else (Gemma3TextConfig,
                                                                                             Gemma3ForCausalLM)
    config = config_class(vocab_size=len(tok), bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
                          pad_token_id=tok.pad_token_id, **_WIDTH)
    torch.manual_seed(seed)
    model = model_class(config).eval()
    with torch.no_grad():
        for p in model.parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.3)  # peaky logits, so greedy text varies (tests/tiny_models.py)
    out = root / name
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return str(out)


def build_hub_models(root: str | Path, tiny: dict[str, str]) -> dict[str, str]:
    """`tiny` (tests/tiny_models.build_all's folders) plus the Gemma 2 and Gemma 3 folders, built under `root`."""
    root = Path(root)
    return {**tiny, "gemma2": _build_gemma(root, tiny["tokenizer_a"], "gemma2", 41),
            "gemma3": _build_gemma(root, tiny["tokenizer_a"], "gemma3", 42)}
