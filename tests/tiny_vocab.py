"""Tiny Llama models over a *small word vocabulary*, for the sampling check's tests (docs/DESIGN.md §5.15).

With 16 words the next-token distributions have few categories, so a few hundred samples resolve a total
variation difference of about 0.1 (a BPE vocabulary of hundreds of tokens needs far more). Nothing is
downloaded: the tokenizers are ``tokenizers`` WordLevel models built here (one word per token, split on
whitespace, decoded with spaces), the weights come from fixed seeds.

``build_small_vocab(root)`` -> ``{"target", "drafter", "other_drafter"}`` folders:

* ``target``: ``LlamaForCausalLM``, 4 layers of width 32, vocabulary A (7 special tokens + 16 words = 23).
  Next-token distributions at temperature 1 spread over several words and depend on the context.
* ``drafter``: 2 layers, the target's first two plus noise: its distributions differ from the target's by a
  total variation of roughly 0.3, so drafts are often but not always accepted, and a rule that accepts
  every draft changes the output distribution visibly.
* ``other_drafter``: the same 2-layer drafter on vocabulary B (the 16 words in another order, 4 more words:
  27 tokens), a universal-assisted-decoding (UAD) drafter for the target.
"""

from __future__ import annotations

import pathlib

import torch

from tests.tiny_models import BOS, CHAT_MARKERS, EOS, PAD, SPECIAL_TOKENS, UNK, _llama_config, _save, _set_generation_config

WORDS = ["the", "cat", "dog", "sees", "likes", "a", "red", "ball", "and", "runs", "big", "small", "tree", "house",
         "eats", "fish"]
EXTRA_WORDS = ["bird", "blue", "jumps", "over"]
PROMPT = "the cat likes a red ball and the dog sees the cat"
_STD = 0.25
_DRAFTER_NOISE = 0.05
_HEAD_SCALE = 1.5
_TOP_DAMP = 0.3


def word_tokenizer(words: list[str]):
    """A fast tokenizer with one token per word (special tokens first, as in tiny_models)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {tok: i for i, tok in enumerate([*SPECIAL_TOKENS, *words])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tok.post_processor = processors.TemplateProcessing(single=f"{BOS} $A", special_tokens=[(BOS, vocab[BOS])])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOS, eos_token=EOS, pad_token=PAD, unk_token=UNK,
                                   additional_special_tokens=list(CHAT_MARKERS), clean_up_tokenization_spaces=False)


@torch.no_grad()
def _target(tok):
    from transformers import LlamaForCausalLM

    torch.manual_seed(77)
    model = LlamaForCausalLM(_llama_config(tok, 4, hidden_size=32, intermediate_size=64)).eval()
    for name, p in model.named_parameters():
        if p.dim() >= 2:
            p.normal_(0.0, _STD)
    model.lm_head.weight[: len(SPECIAL_TOKENS)] = 0.0  # special tokens (end of text too) stay rare
    model.lm_head.weight[len(SPECIAL_TOKENS):] *= _HEAD_SCALE
    for layer in model.model.layers[2:]:  # the top layers change little: a 2-layer drafter predicts fairly well
        layer.self_attn.o_proj.weight.mul_(_TOP_DAMP)
        layer.mlp.down_proj.weight.mul_(_TOP_DAMP)
    _set_generation_config(model, tok)
    return model


@torch.no_grad()
def _drafter(target, tok, rows: list[int]):
    """The target's first two layers plus noise; embedding and head rows taken from the target's `rows`
    (row i of the drafter's vocabulary is the target's row rows[i]; -1: a fresh random row)."""
    from transformers import LlamaForCausalLM

    torch.manual_seed(78)
    drafter = LlamaForCausalLM(_llama_config(tok, 2, hidden_size=32, intermediate_size=64)).eval()
    state = drafter.state_dict()
    for key, value in target.state_dict().items():
        if key in state and ".layers." in key:
            state[key] = value + _DRAFTER_NOISE * torch.randn_like(value) * (value.dim() >= 2)
        elif key in state and key not in ("model.embed_tokens.weight", "lm_head.weight"):
            state[key] = value
    for key in ("model.embed_tokens.weight", "lm_head.weight"):
        source = target.state_dict()[key]
        fresh = torch.randn(len(rows), source.shape[1]) * (0.0 if key == "lm_head.weight" else _STD)
        state[key] = torch.stack([source[r] if r >= 0 else fresh[i] for i, r in enumerate(rows)])
    drafter.load_state_dict(state)
    _set_generation_config(drafter, tok)
    return drafter


def build_small_vocab(root) -> dict[str, str]:
    """Build the three models (about a second) under ``root``; returns their folders by name."""
    root = pathlib.Path(root)
    tok_a = word_tokenizer(WORDS)
    other_words = [*reversed(WORDS), *EXTRA_WORDS]
    tok_b = word_tokenizer(other_words)
    target = _target(tok_a)
    a_ids = tok_a.get_vocab()
    same = list(range(len(tok_a)))
    mapped = [a_ids[t] if t in a_ids else -1 for t, _ in sorted(tok_b.get_vocab().items(), key=lambda kv: kv[1])]
    return {
        "target": _save(target, tok_a, root / "small_target"),
        "drafter": _save(_drafter(target, tok_a, same), tok_a, root / "small_drafter"),
        "other_drafter": _save(_drafter(target, tok_b, mapped), tok_b, root / "small_other_drafter"),
    }
