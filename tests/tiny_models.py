"""Builders for tiny, random, offline test models of real ``transformers`` classes.

Every builder takes a ``root`` folder, writes one or more ``save_pretrained`` folders below it and returns
their path(s) as ``str``.  Nothing is downloaded: tokenizers are trained with the ``tokenizers`` library on a
small English corpus generated in this module, and models are instantiated from hand-written tiny configs
with fixed ``torch.manual_seed`` values, so repeated builds are bit-identical.

Every model folder also holds its tokenizer, so both ``AutoModelForCausalLM.from_pretrained(folder)`` and
``AutoTokenizer.from_pretrained(folder)`` work.

Public builders (checked with transformers 5.24.0):

* ``build_tokenizer(root, name, vocab_size, seed_text_variant)`` -> tokenizer folder
* ``build_llama_pair(root)`` -> ``{"target", "drafter", "drafter_same"}``
* ``build_llama_other_tokenizer(root)`` -> folder (UAD drafter, tokenizer B)
* ``build_glm_mtp(root)`` -> folder (Glm4Moe with MTP weights, ``generate(use_mtp=True)``)
* ``build_glm_no_mtp(root, num_nextn_predict_layers=0)`` -> folder (Glm4Moe without MTP weights)
* ``build_gemma4_pair(root)`` -> ``{"target", "assistant"}``
* ``build_all(root)`` -> dict of all of the above by name

This module deliberately has no pytest imports so that it can be used from scripts, fixtures and benchmarks.
"""

from __future__ import annotations

import pathlib

import torch

__all__ = [
    "TOKENIZER_A_VOCAB",
    "TOKENIZER_B_VOCAB",
    "CHAT_TEMPLATE",
    "SPECIAL_TOKENS",
    "corpus",
    "build_tokenizer",
    "build_llama_pair",
    "build_llama_other_tokenizer",
    "build_glm_mtp",
    "build_glm_no_mtp",
    "build_gemma4_pair",
    "build_all",
]

TOKENIZER_A_VOCAB = 320
TOKENIZER_B_VOCAB = 400

# Special tokens: ids 0..3 are bos/eos/pad/unk (in this order), 4..6 are the chat markers.
BOS, EOS, PAD, UNK = "<s>", "</s>", "<pad>", "<unk>"
CHAT_MARKERS = ["<|system|>", "<|user|>", "<|assistant|>"]
SPECIAL_TOKENS = [BOS, EOS, PAD, UNK, *CHAT_MARKERS]

CHAT_TEMPLATE = (
    "{{ bos_token }}"
    "{% for message in messages %}"
    "{{ '<|' + message['role'] + '|>' + message['content'] + eos_token }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|assistant|>' }}{% endif %}"
)

# --------------------------------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------------------------------

_SUBJECTS = [
    "the cat", "a dog", "my friend", "the teacher", "our team", "the old man", "a young girl", "the robot",
    "the farmer", "his sister", "the small bird", "every student", "the doctor", "a tired worker", "the king",
    "the model", "this program", "the river", "the city", "her brother",
]
_VERBS = [
    "likes", "sees", "finds", "writes", "reads", "builds", "opens", "carries", "watches", "follows", "answers",
    "cleans", "paints", "helps", "visits", "moves", "brings", "counts", "tests", "loves",
]
_OBJECTS = [
    "the red ball", "a long letter", "the green house", "some fresh bread", "the blue sky", "a quiet song",
    "the heavy box", "an old book", "the open door", "a small garden", "the new computer", "a cup of tea",
    "the morning news", "a simple question", "the big tree", "the last train", "a warm coat", "the map",
    "the numbers", "a good idea",
]
_TAILS = [
    "every day", "in the morning", "after lunch", "near the river", "with great care", "before the storm",
    "at night", "on the table", "in the garden", "without a word", "for the first time", "again and again",
]
_EXTRA = [
    "Hello, how are you today?",
    "I am fine, thank you very much.",
    "What is the capital of France? The capital of France is Paris.",
    "One, two, three, four, five, six, seven, eight, nine, ten.",
    "def add(a, b):\n    return a + b\n",
    "for i in range(10):\n    print(i)\n",
    "The quick brown fox jumps over the lazy dog.",
    "Speculative decoding drafts tokens and the target model verifies them.",
    "Please write a short story about a cat and a dog.",
    "Numbers like 42, 3.14 and 1000 appear in text too.",
]


def corpus(variant: int = 0, n_sentences: int = 400) -> list[str]:
    """Deterministic small English corpus. ``variant`` shifts/permutes the templates so two tokenizers trained
    on different variants learn different merges (on top of their different vocab sizes)."""
    lines = list(_EXTRA)
    ns, nv, no, nt = len(_SUBJECTS), len(_VERBS), len(_OBJECTS), len(_TAILS)
    for i in range(n_sentences):
        j = i * (7 + 2 * variant) + variant * 13
        s = _SUBJECTS[j % ns]
        v = _VERBS[(j // ns + i) % nv]
        o = _OBJECTS[(j * 3 + variant) % no]
        t = _TAILS[(i + j // 5) % nt]
        sentence = f"{s} {v} {o} {t}."
        if (i + variant) % 3 == 0:
            sentence = sentence[0].upper() + sentence[1:]
        lines.append(sentence)
    return lines


# --------------------------------------------------------------------------------------------------------------
# Tokenizers
# --------------------------------------------------------------------------------------------------------------


def _make_fast_tokenizer(vocab_size: int, seed_text_variant: int):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE(unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=1,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(corpus(seed_text_variant), trainer=trainer)
    bos_id = tok.token_to_id(BOS)
    # Llama-style: prepend <s> when add_special_tokens=True (also what UAD re-encoding uses).
    tok.post_processor = processors.TemplateProcessing(
        single=f"{BOS} $A", pair=f"{BOS} $A {BOS} $B", special_tokens=[(BOS, bos_id)]
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token=BOS,
        eos_token=EOS,
        pad_token=PAD,
        unk_token=UNK,
        additional_special_tokens=list(CHAT_MARKERS),
        clean_up_tokenization_spaces=False,
        model_max_length=2048,
    )
    fast.chat_template = CHAT_TEMPLATE
    return fast


def build_tokenizer(root, name: str, vocab_size: int, seed_text_variant: int = 0) -> str:
    """Train a byte-level BPE tokenizer offline and save it (``save_pretrained``) to ``root/name``.

    Special tokens: ``<s>``=0 (bos), ``</s>``=1 (eos), ``<pad>``=2, ``<unk>``=3, chat markers ``<|system|>``,
    ``<|user|>``, ``<|assistant|>`` = 4, 5, 6. ``add_special_tokens=True`` prepends ``<s>``. A simple jinja
    ``chat_template`` is set (``<s><|user|>hi</s><|assistant|>``). The resulting ``len(tokenizer)`` equals
    ``vocab_size`` (the corpus is large enough to fill it). Returns the folder as ``str``."""
    out = pathlib.Path(root) / name
    tok = _make_fast_tokenizer(vocab_size, seed_text_variant)
    if len(tok) != vocab_size:  # pragma: no cover - guards against corpus changes
        raise RuntimeError(f"tokenizer {name}: trained vocab {len(tok)} != requested {vocab_size}")
    tok.save_pretrained(out)
    return str(out)


_TOKENIZER_CACHE: dict[tuple[int, int], object] = {}


def _tokenizer(vocab_size: int, variant: int):
    key = (vocab_size, variant)
    if key not in _TOKENIZER_CACHE:
        _TOKENIZER_CACHE[key] = _make_fast_tokenizer(vocab_size, variant)
    return _TOKENIZER_CACHE[key]


def _tokenizer_a():
    return _tokenizer(TOKENIZER_A_VOCAB, 0)


def _tokenizer_b():
    return _tokenizer(TOKENIZER_B_VOCAB, 1)


# --------------------------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------------------------


def _special_ids(tok) -> dict:
    return {"bos_token_id": tok.bos_token_id, "eos_token_id": tok.eos_token_id, "pad_token_id": tok.pad_token_id}


def _set_generation_config(model, tok, **extra) -> None:
    from transformers import GenerationConfig

    gc = GenerationConfig(**_special_ids(tok), **extra)
    model.generation_config = gc


def _save(model, tok, out: pathlib.Path) -> str:
    from transformers.utils import logging as hf_logging

    out.mkdir(parents=True, exist_ok=True)
    bar = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # "Writing model shards" bars are just noise here
    try:
        model.save_pretrained(out)
    finally:
        if bar:
            hf_logging.enable_progress_bar()
    tok.save_pretrained(out)
    return str(out)


@torch.no_grad()
def _rescale_(model, std: float, skip: tuple[str, ...] = ()) -> None:
    """Re-initialise every >=2-D float parameter with N(0, std). Tiny random models with the default
    ``initializer_range=0.02`` have almost flat logits and greedily repeat one token; a large std gives
    peaky, context-dependent logits, so greedy outputs vary and assisted-decoding tests are meaningful."""
    for name, p in model.named_parameters():
        if p.dim() >= 2 and p.is_floating_point() and not any(s in name for s in skip):
            p.normal_(0.0, std)


def _unprintable_token_ids(tok) -> list[int]:
    """Ids of special tokens and of tokens that do not decode to clean printable text on their own (lone
    bytes >= 0x80 of byte-level BPE, control characters)."""
    bad = set(tok.all_special_ids)
    for i in range(len(tok)):
        text = tok.decode([i])
        if any(c == "\ufffd" or (not c.isprintable() and c not in "\n\t") for c in text):
            bad.add(i)
    return sorted(bad)


@torch.no_grad()
def _silence_unprintable_(lm_head_weight: torch.Tensor, tok) -> None:
    """Zero the output-embedding rows of special and unprintable tokens: with the large-std init their logit
    (0) is far below the top logits, so greedy text decodes to clean UTF-8, never hits eos early (outputs run
    to ``max_new_tokens``) and survives the decode/re-encode round trips of UAD."""
    lm_head_weight[_unprintable_token_ids(tok)] = 0.0


# --------------------------------------------------------------------------------------------------------------
# Llama
# --------------------------------------------------------------------------------------------------------------

_LLAMA_WIDTH = dict(hidden_size=64, intermediate_size=128, num_attention_heads=4, num_key_value_heads=2)
_LLAMA_STD = 0.3
# Residual scale of the target's layers 2-3 and noise added to the drafter's layer weights; measured greedy
# agreement with the target over a few prompts: drafter ~47 %, early exit at layer 2 ~56 %.
_LLAMA_TOP_DAMP = 0.3
_DRAFTER_NOISE = 0.01


def _llama_config(tok, num_hidden_layers: int, **overrides):
    from transformers import LlamaConfig

    kw = dict(
        vocab_size=len(tok),
        num_hidden_layers=num_hidden_layers,
        max_position_embeddings=512,
        rms_norm_eps=1e-6,
        tie_word_embeddings=False,
        **_LLAMA_WIDTH,
        **_special_ids(tok),
    )
    kw.update(overrides)
    return LlamaConfig(**kw)


def build_llama_pair(root) -> dict[str, str]:
    """Llama target/drafter sharing tokenizer A (vocab 320).

    Returns ``{"target": ..., "drafter": ..., "drafter_same": ...}`` folders under ``root``:

    * ``target``: ``LlamaForCausalLM``, 4 layers, hidden 64, weights N(0, 0.3) so greedy output varies; the
      residual outputs of layers 2-3 are damped (x0.3) so that its first 2 layers predict it fairly well.
    * ``drafter``: ``LlamaForCausalLM``, 2 layers (same width, half the layers), whose weights are the
      target's first 2 layers (layer weights + N(0, 0.01) noise) and its embeddings/final norm/lm_head:
      roughly half of its greedy drafts are accepted, so both the accept and the reject paths run.
      (``assistant_early_exit=2`` on the target agrees ~56 % of the time.)
    * ``drafter_same``: an exact copy of the target; every draft is accepted (exercises the "bonus" token).
    """
    from transformers import LlamaForCausalLM

    root = pathlib.Path(root)
    tok = _tokenizer_a()

    torch.manual_seed(1234)
    target = LlamaForCausalLM(_llama_config(tok, 4)).eval()
    _rescale_(target, _LLAMA_STD)
    _silence_unprintable_(target.lm_head.weight, tok)
    with torch.no_grad():
        # Damp the residual contribution of the top 2 layers so that the 2-layer drafter (and early exit at
        # layer 2) agree with the target often, but not always.
        for layer in target.model.layers[2:]:
            layer.self_attn.o_proj.weight.mul_(_LLAMA_TOP_DAMP)
            layer.mlp.down_proj.weight.mul_(_LLAMA_TOP_DAMP)
    _set_generation_config(target, tok)

    torch.manual_seed(1235)
    drafter = LlamaForCausalLM(_llama_config(tok, 2)).eval()
    sd = {k: v for k, v in target.state_dict().items() if not k.startswith(("model.layers.2.", "model.layers.3."))}
    with torch.no_grad():
        for k, v in sd.items():
            if v.dim() >= 2 and ".layers." in k:
                sd[k] = v + _DRAFTER_NOISE * torch.randn_like(v)
    drafter.load_state_dict(sd, strict=True)
    _set_generation_config(drafter, tok)

    out = {
        "target": _save(target, tok, root / "llama_target"),
        "drafter": _save(drafter, tok, root / "llama_drafter"),
        # Same weights as the target (saved from the very same module).
        "drafter_same": _save(target, tok, root / "llama_drafter_same"),
    }
    return out


def build_llama_other_tokenizer(root) -> str:
    """A tiny ``LlamaForCausalLM`` (2 layers, hidden 64) on tokenizer B (vocab 400, other merges): a universal
    assisted decoding (UAD) drafter for the Llama target. Returns the folder."""
    from transformers import LlamaForCausalLM

    tok = _tokenizer_b()
    torch.manual_seed(4321)
    model = LlamaForCausalLM(_llama_config(tok, 2)).eval()
    _rescale_(model, _LLAMA_STD)
    _silence_unprintable_(model.lm_head.weight, tok)
    _set_generation_config(model, tok)
    return _save(model, tok, pathlib.Path(root) / "llama_other_tokenizer")


# --------------------------------------------------------------------------------------------------------------
# GLM-4 MoE with MTP
# --------------------------------------------------------------------------------------------------------------

# Glm4MoeForCausalLM._keys_to_ignore_on_load_unexpected only knows MTP layers at index 46 (GLM-4.5-Air) or 92
# (GLM-4.5); MtpModel.get_weight_conversions renames ``layers.{num_hidden_layers + k}.`` -> ``layers.{k}.mtp_block.``
# so the checkpoint index must be exactly num_hidden_layers: hence 46 (very narrow) layers.
_GLM_LAYERS = 46
_GLM_STD = 0.3
# Residual scale of every sub-layer output (attention o_proj, MLP/expert down_proj) of the main layers and of the
# MTP block. Small, so the next token depends mostly (not only) on the current token; with the MTP layer wired as
# "predict the token after the one it is fed" (eh_proj = [I | 0]) about 1/3 of MTP drafts get accepted.
_GLM_DAMP = 0.005


@torch.no_grad()
def _damp_residual_branches_(module, factor: float) -> None:
    for name, p in module.named_parameters():
        if name.endswith(("o_proj.weight", "down_proj.weight", "experts.down_proj")):
            p.mul_(factor)


def _glm_config(tok, num_mtp_layers: int):
    from transformers import Glm4MoeConfig

    return Glm4MoeConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=_GLM_LAYERS,
        num_attention_heads=2,
        num_key_value_heads=1,
        moe_intermediate_size=32,
        n_routed_experts=4,
        num_experts_per_tok=2,
        n_shared_experts=1,
        first_k_dense_replace=1,
        n_group=1,
        topk_group=1,
        max_position_embeddings=512,
        num_nextn_predict_layers=num_mtp_layers,
        tie_word_embeddings=False,
        **_special_ids(tok),
    )


def _glm_model(tok, num_mtp_layers: int):
    from transformers import Glm4MoeForCausalLM

    torch.manual_seed(2024)
    model = Glm4MoeForCausalLM(_glm_config(tok, num_mtp_layers)).eval()
    _rescale_(model, _GLM_STD)
    _silence_unprintable_(model.lm_head.weight, tok)
    _damp_residual_branches_(model.model.layers, _GLM_DAMP)
    _set_generation_config(model, tok)
    return model


def _mtp_checkpoint_tensors(model, prefix: str) -> dict[str, torch.Tensor]:
    """State dict of a fresh ``MtpModel(model, 1)`` in the layout of the released GLM-4.5(-Air) checkpoints:
    everything under ``model.layers.46.``, the decoder block flattened into that prefix, the final MTP norm as
    ``shared_head.norm``, per-expert ``mlp.experts.{e}.{gate,up,down}_proj.weight`` (what ``save_pretrained`` writes
    for the main layers too), plus the redundant ``embed_tokens``/``shared_head.head`` copies that real checkpoints
    carry (ignored on load)."""
    from transformers.modeling_layers import MtpModel

    torch.manual_seed(2025)
    mtp = MtpModel(model, 1)
    _rescale_(mtp, _GLM_STD, skip=("embed_tokens", "shared_head"))
    with torch.no_grad():
        # eh_proj([enorm(embed(x_{t+1})), hnorm(h_t)]) = enorm(embed(x_{t+1})): the MTP layer then predicts roughly
        # what the (near-bigram) main model predicts after x_{t+1}, i.e. a plausible x_{t+2}.
        hidden = model.config.hidden_size
        eh = torch.zeros(hidden, 2 * hidden)
        eh[:, :hidden] = torch.eye(hidden)
        mtp.layers[0].eh_proj.weight.copy_(eh)
    _damp_residual_branches_(mtp.layers[0].mtp_block, _GLM_DAMP)
    out: dict[str, torch.Tensor] = {}
    for key, value in mtp.state_dict().items():
        if not key.startswith("layers.0."):
            continue  # embed_tokens / shared_head are the main model's (tied), handled below
        rest = key[len("layers.0.") :]
        if rest.startswith("mtp_block."):
            rest = rest[len("mtp_block.") :]
        if rest == "post_norm.weight":
            rest = "shared_head.norm.weight"
        if rest == "mlp.experts.gate_up_proj":
            inter = value.shape[1] // 2
            for e in range(value.shape[0]):
                out[f"{prefix}mlp.experts.{e}.gate_proj.weight"] = value[e, :inter]
                out[f"{prefix}mlp.experts.{e}.up_proj.weight"] = value[e, inter:]
            continue
        if rest == "mlp.experts.down_proj":
            for e in range(value.shape[0]):
                out[f"{prefix}mlp.experts.{e}.down_proj.weight"] = value[e]
            continue
        out[prefix + rest] = value
    out[prefix + "embed_tokens.weight"] = model.get_input_embeddings().weight
    out[prefix + "shared_head.head.weight"] = model.lm_head.weight
    return {k: v.detach().clone().contiguous() for k, v in out.items()}


def build_glm_mtp(root) -> str:
    """Tiny ``Glm4MoeForCausalLM`` (46 layers of hidden 32, 4 routed experts top-2 + 1 shared, first layer dense,
    ~0.9M params, tokenizer A) whose checkpoint also carries one MTP layer (``num_nextn_predict_layers=1``)
    under ``model.layers.46.*``, so ``model.generate(..., use_mtp=True)`` drafts with
    ``MTPCandidateGenerator``. Its greedy output equals plain greedy output. Weights are random N(0, 0.3) but
    every residual branch is damped (x0.005), so the model is "mostly bigram", and the MTP layer projects only
    the embedding of the token it is fed: about a third of the MTP drafts are accepted (e.g. 24 new tokens
    in 16-19 target passes instead of 24), so both accept and reject paths run.

    Loading the folder with ``AutoModelForCausalLM`` silently skips the ``model.layers.46.*`` keys (they are in
    ``_keys_to_ignore_on_load_unexpected``); ``MtpModel.from_pretrained`` re-reads them from
    ``model.safetensors`` of ``config.name_or_path`` when generating with ``use_mtp=True``, so the model must be
    loaded from this folder (not built in memory). Returns the folder."""
    from safetensors.torch import load_file, save_file

    tok = _tokenizer_a()
    model = _glm_model(tok, num_mtp_layers=1)
    out = pathlib.Path(root) / "glm_mtp"
    _save(model, tok, out)
    files = sorted(out.glob("*.safetensors"))
    if len(files) != 1 or (out / "model.safetensors.index.json").exists():  # pragma: no cover
        raise RuntimeError(f"expected one unsharded safetensors file in {out}, got {files}")
    tensors = load_file(str(files[0]))
    tensors.update(_mtp_checkpoint_tensors(model, prefix=f"model.layers.{_GLM_LAYERS}."))
    save_file(tensors, str(files[0]), metadata={"format": "pt"})
    return str(out)


def build_glm_no_mtp(root, num_nextn_predict_layers: int = 0) -> str:
    """Same tiny GLM-4 MoE as ``build_glm_mtp`` (identical main weights and greedy output) but with no MTP
    weights in the checkpoint. Returns the folder (``root/glm_no_mtp``, or ``root/glm_no_mtp_weights`` when
    ``num_nextn_predict_layers > 0``).

    What ``model.generate(..., use_mtp=True)`` does on it with transformers 5.24.0 (nothing is validated
    up front; ``MTPCandidateGenerator`` only checks that the config *has* ``num_mtp_layers``):

    * ``num_nextn_predict_layers=0`` (default; ``config.num_mtp_layers == 0``): ``MtpModel.from_pretrained``
      builds an MTP model with zero layers and finds nothing missing; the first drafting step then fails
      inside ``MtpModel.forward`` with ``ValueError: torch.cat(): expected a non-empty list of Tensors``.
    * ``num_nextn_predict_layers=1`` (the ``Glm4MoeConfig`` default, i.e. a GLM checkpoint stripped of its
      ``model.layers.46.*`` weights): ``MtpModel.from_pretrained`` raises ``RuntimeError: The following
      MtpModel weights are missing from <folder> (checkpoint keys not matching the conversion mapping?): [...]``
      while the candidate generator is being built, before any token is generated.

    For comparison: a model whose config has no ``num_mtp_layers`` at all (e.g. the Llama target) raises
    ``ValueError: Could not find `num_mtp_layers` in the model config. This model probably has no associated
    mtp weights.``; and a GLM model built in memory instead of loaded from a folder fails in
    ``MtpModel.from_pretrained`` with ``AttributeError: 'NoneType' object has no attribute 'is_floating_point'``
    (``config.dtype`` is unset; ``config.name_or_path`` would be empty as well)."""
    tok = _tokenizer_a()
    model = _glm_model(tok, num_mtp_layers=num_nextn_predict_layers)
    name = "glm_no_mtp" if num_nextn_predict_layers == 0 else "glm_no_mtp_weights"
    return _save(model, tok, pathlib.Path(root) / name)


# --------------------------------------------------------------------------------------------------------------
# Gemma 4 + Gemma 4 assistant
# --------------------------------------------------------------------------------------------------------------

_GEMMA_STD = 0.3
_GEMMA_HEAD_DIM = 16
_GEMMA_KV_HEADS = 2
_GEMMA_SLIDING_WINDOW = 512
# Scale of the post-attention/post-feedforward norm weights (Gemma normalises sub-layer outputs, so damping
# o_proj would do nothing). Makes the target lean on the current token; with the assistant wired to look at
# the embedding of the last token only, about half of its drafts are accepted.
_GEMMA_DAMP = 0.4


@torch.no_grad()
def _damp_gemma_layers_(layers, factor: float) -> None:
    for layer in layers:
        layer.post_attention_layernorm.weight.mul_(factor)
        layer.post_feedforward_layernorm.weight.mul_(factor)


def _gemma4_text_config(tok, **kw):
    from transformers import Gemma4TextConfig

    base = dict(
        vocab_size=len(tok),
        head_dim=_GEMMA_HEAD_DIM,
        global_head_dim=_GEMMA_HEAD_DIM,
        num_key_value_heads=_GEMMA_KV_HEADS,
        hidden_size_per_layer_input=0,
        vocab_size_per_layer_input=0,
        sliding_window=_GEMMA_SLIDING_WINDOW,
        max_position_embeddings=512,
        tie_word_embeddings=True,
        **_special_ids(tok),
    )
    base.update(kw)
    return Gemma4TextConfig(**base)


def build_gemma4_pair(root) -> dict[str, str]:
    """Tiny Gemma 4 target and its MTP-style assistant, both on tokenizer A.

    Returns ``{"target": ..., "assistant": ...}``:

    * ``target``: ``Gemma4ForCausalLM`` from a ``Gemma4TextConfig`` (4 layers sliding/full/sliding/full,
      hidden 64, 4 query heads, 2 kv heads, head_dim = global_head_dim = 16, no per-layer inputs (PLE),
      untied lm_head: with tied embeddings a random Gemma repeats the last prompt token forever).
    * ``assistant``: ``Gemma4AssistantForCausalLM`` from ``Gemma4AssistantConfig(text_config=<2 layers
      sliding/full, hidden 64>, backbone_hidden_size=64)``; all its layers reuse the target's KV
      (``num_kv_shared_layers == num_hidden_layers``, set automatically), so its kv-head count, head dims, layer
      types, rope and sliding window must match the target's; it has no k/v projections of its own.
      ``generation_config.num_assistant_tokens = 4``.

    ``target.generate(ids, assistant_model=assistant)`` selects ``SinglePositionMultiTokenCandidateGenerator``
    and its greedy output equals plain greedy output. Sub-layer outputs of both models are damped (norm weights
    x0.4) and the assistant is wired to follow the target's token-to-token part, so roughly half of the drafts
    are accepted (e.g. 24 new tokens in 16-18 target passes)."""
    from transformers import Gemma4AssistantConfig, Gemma4AssistantForCausalLM, Gemma4ForCausalLM

    root = pathlib.Path(root)
    tok = _tokenizer_a()
    layer_types = ["sliding_attention", "full_attention"]

    torch.manual_seed(3030)
    target_cfg = _gemma4_text_config(
        tok,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=4,
        num_attention_heads=4,
        layer_types=layer_types * 2,
        # Untied: with tied (sqrt(hidden)-scaled) embeddings a random model greedily repeats its input token.
        tie_word_embeddings=False,
    )
    target = Gemma4ForCausalLM(target_cfg).eval()
    _rescale_(target, _GEMMA_STD)
    _silence_unprintable_(target.lm_head.weight, tok)
    _damp_gemma_layers_(target.model.layers, _GEMMA_DAMP)
    _set_generation_config(target, tok)

    torch.manual_seed(3031)
    assistant_text_cfg = _gemma4_text_config(
        tok,
        hidden_size=target_cfg.hidden_size,  # same width, so pre_projection can pass the token embedding through
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        layer_types=layer_types,
    )
    assistant_cfg = Gemma4AssistantConfig(
        text_config=assistant_text_cfg, backbone_hidden_size=target_cfg.hidden_size, **_special_ids(tok)
    )
    assistant = Gemma4AssistantForCausalLM(assistant_cfg).eval()
    _rescale_(assistant, _GEMMA_STD)
    with torch.no_grad():
        # pre_projection([target_embed(last token), target_hidden]) = target_embed(last token), and the target's
        # output head (tied to the assistant's unused input embeddings): drafts follow the target's "bigram" part.
        hidden = target_cfg.hidden_size
        pre = torch.zeros(hidden, 2 * hidden)
        pre[:, :hidden] = torch.eye(hidden)
        assistant.pre_projection.weight.copy_(pre)
        assistant.lm_head.weight.copy_(target.lm_head.weight)
    _damp_gemma_layers_(assistant.model.layers, _GEMMA_DAMP)
    _set_generation_config(assistant, tok, num_assistant_tokens=4)

    return {
        "target": _save(target, tok, root / "gemma4_target"),
        "assistant": _save(assistant, tok, root / "gemma4_assistant"),
    }


# --------------------------------------------------------------------------------------------------------------
# Everything
# --------------------------------------------------------------------------------------------------------------


def build_all(root) -> dict[str, str]:
    """Build every tiny model/tokenizer under ``root`` (about 3 s on 2 CPU cores) and return the folders by name:

    ``tokenizer_a`` (vocab 320), ``tokenizer_b`` (vocab 400), ``llama_target``, ``llama_drafter``,
    ``llama_drafter_same``, ``llama_other_tokenizer`` (tokenizer B), ``glm_mtp``, ``glm_no_mtp``,
    ``glm_no_mtp_weights``, ``gemma4_target``, ``gemma4_assistant``. All models except
    ``llama_other_tokenizer`` use tokenizer A; every model folder also contains its tokenizer."""
    root = pathlib.Path(root)
    root.mkdir(parents=True, exist_ok=True)
    paths = {
        "tokenizer_a": build_tokenizer(root, "tokenizer_a", TOKENIZER_A_VOCAB, 0),
        "tokenizer_b": build_tokenizer(root, "tokenizer_b", TOKENIZER_B_VOCAB, 1),
    }
    paths.update({f"llama_{k}": v for k, v in build_llama_pair(root).items()})
    paths["llama_other_tokenizer"] = build_llama_other_tokenizer(root)
    paths["glm_mtp"] = build_glm_mtp(root)
    paths["glm_no_mtp"] = build_glm_no_mtp(root)
    paths["glm_no_mtp_weights"] = build_glm_no_mtp(root, num_nextn_predict_layers=1)
    paths.update({f"gemma4_{k}": v for k, v in build_gemma4_pair(root).items()})
    return paths
