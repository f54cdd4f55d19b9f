"""Checks of the tiny offline models from ``tests/tiny_models.py`` directly against ``transformers.generate``.

Every lossless speculative path must give exactly the plain greedy token ids (``max_new_tokens=24``)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import torch


from tests import tiny_models

MAX_NEW_TOKENS = 24
PROMPTS = ["The cat likes", "def add(a, b):"]

MODEL_FOLDERS = [
    "llama_target",
    "llama_drafter",
    "llama_drafter_same",
    "llama_other_tokenizer",
    "glm_mtp",
    "glm_no_mtp",
    "glm_no_mtp_weights",
    "gemma4_target",
    "gemma4_assistant",
]


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def load(tiny):
    """Cached loader: ``load("llama_target")`` -> model from the saved folder (in eval mode)."""
    from transformers import AutoModelForCausalLM

    cache = {}

    def _load(name):
        if name not in cache:
            cache[name] = AutoModelForCausalLM.from_pretrained(tiny[name]).eval()
        return cache[name]

    return _load


@pytest.fixture(scope="module")
def tok_a(tiny):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny["tokenizer_a"])


@pytest.fixture(scope="module")
def tok_b(tiny):
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(tiny["tokenizer_b"])


def greedy(model, tok, prompt, **kwargs) -> torch.Tensor:
    inputs = tok(prompt, return_tensors="pt")
    with torch.no_grad():
        out = model.generate(**inputs, max_new_tokens=MAX_NEW_TOKENS, do_sample=False, **kwargs)
    return out[0]


def assert_same_ids(got: torch.Tensor, want: torch.Tensor):
    assert got.tolist() == want.tolist()


def greedy_counting(model, tok, prompt, **kwargs) -> tuple[torch.Tensor, int]:
    """``greedy`` plus the number of forward passes of ``model`` (the target) it took."""
    calls = []
    handle = model.register_forward_pre_hook(lambda *_: calls.append(1))
    try:
        out = greedy(model, tok, prompt, **kwargs)
    finally:
        handle.remove()
    return out, len(calls)


# --------------------------------------------------------------------------------------------------------------
# Folders, tokenizers
# --------------------------------------------------------------------------------------------------------------


def test_every_folder_loads_with_auto_classes(tiny):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    for name in MODEL_FOLDERS:
        model = AutoModelForCausalLM.from_pretrained(tiny[name])
        tok = AutoTokenizer.from_pretrained(tiny[name])
        assert model.config.get_text_config().vocab_size == len(tok), name
        assert model.generation_config.eos_token_id == tok.eos_token_id, name
        assert model.generation_config.pad_token_id == tok.pad_token_id, name
        assert model.generation_config.bos_token_id == tok.bos_token_id, name


def test_tokenizers(tok_a, tok_b):
    from transformers import PreTrainedTokenizerFast

    assert isinstance(tok_a, PreTrainedTokenizerFast)
    assert (len(tok_a), len(tok_b)) == (tiny_models.TOKENIZER_A_VOCAB, tiny_models.TOKENIZER_B_VOCAB)
    for tok in (tok_a, tok_b):
        assert (tok.bos_token, tok.eos_token, tok.pad_token, tok.unk_token) == ("<s>", "</s>", "<pad>", "<unk>")
    text = "The quick brown fox likes the red ball every day."
    ids_a, ids_b = tok_a(text).input_ids, tok_b(text).input_ids
    assert ids_a[0] == tok_a.bos_token_id and ids_b[0] == tok_b.bos_token_id
    assert ids_a != ids_b and len(ids_a) != len(ids_b)
    assert tok_a.decode(ids_a, skip_special_tokens=True) == text
    assert tok_b.decode(ids_b, skip_special_tokens=True) == text

    messages = [{"role": "user", "content": "Hello there"}]
    rendered = tok_a.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    assert rendered == "<s><|user|>Hello there</s><|assistant|>"
    ids = tok_a.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=True)["input_ids"]
    assert ids[-1] == tok_a.convert_tokens_to_ids("<|assistant|>")


def test_builds_are_deterministic(tiny, tmp_path):
    from safetensors.torch import load_file

    again = tiny_models.build_llama_pair(tmp_path)
    a = load_file(str(Path(tiny["llama_target"]) / "model.safetensors"))
    b = load_file(str(Path(again["target"]) / "model.safetensors"))
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("name", ["llama_target", "glm_mtp", "gemma4_target"])
def test_targets_produce_varied_printable_text(load, tok_a, name):
    out = greedy(load(name), tok_a, PROMPTS[0])
    new = out[-MAX_NEW_TOKENS:]
    assert len(new) == MAX_NEW_TOKENS  # special tokens (eos) are silenced, so no early stop
    assert len(set(new.tolist())) >= 8, tok_a.decode(new)
    assert "\ufffd" not in tok_a.decode(new)


# --------------------------------------------------------------------------------------------------------------
# Lossless speculative paths
# --------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("prompt", PROMPTS)
def test_drafter(load, tok_a, prompt):
    target = load("llama_target")
    assisted, calls = greedy_counting(target, tok_a, prompt, assistant_model=load("llama_drafter"))
    assert_same_ids(assisted, greedy(target, tok_a, prompt))
    assert calls < MAX_NEW_TOKENS  # some drafts accepted


@pytest.mark.parametrize("prompt", PROMPTS)
def test_drafter_same_accepts_everything(load, tok_a, prompt):
    target, same = load("llama_target"), load("llama_drafter_same")
    assert all(torch.equal(p, q) for p, q in zip(target.state_dict().values(), same.state_dict().values()))
    plain = greedy(target, tok_a, prompt)
    assert_same_ids(greedy(same, tok_a, prompt), plain)

    # Fixed drafts of 5 tokens (no confidence early stop, no heuristic schedule)
    saved = copy.deepcopy(same.generation_config)
    same.generation_config.num_assistant_tokens = 5
    same.generation_config.num_assistant_tokens_schedule = "constant"
    same.generation_config.assistant_confidence_threshold = 0.0
    try:
        assisted, calls = greedy_counting(target, tok_a, prompt, assistant_model=same)
    finally:
        same.generation_config = saved
    assert_same_ids(assisted, plain)
    # every draft is accepted, plus one bonus token per verification: 24 tokens in ceil(24 / 6) target passes
    assert calls == 4, calls


@pytest.mark.parametrize("prompt", PROMPTS)
def test_prompt_lookup(load, tok_a, prompt):
    target = load("llama_target")
    assert_same_ids(greedy(target, tok_a, prompt, prompt_lookup_num_tokens=3), greedy(target, tok_a, prompt))


def test_prompt_lookup_with_accepted_ngrams(load, tok_a):
    # The (rather local) Gemma target falls into a loop on this prompt, so looked-up n-grams do get accepted.
    target, prompt = load("gemma4_target"), "her brother finds the map with great care."
    assisted, calls = greedy_counting(target, tok_a, prompt, prompt_lookup_num_tokens=3)
    assert_same_ids(assisted, greedy(target, tok_a, prompt))
    assert calls < MAX_NEW_TOKENS


@pytest.mark.parametrize("prompt", PROMPTS)
def test_early_exit(load, tok_a, prompt):
    target = load("llama_target")
    assert_same_ids(greedy(target, tok_a, prompt, assistant_early_exit=2), greedy(target, tok_a, prompt))


@pytest.mark.parametrize("prompt", PROMPTS)
def test_universal_assisted_decoding(load, tok_a, tok_b, prompt):
    target = load("llama_target")
    assisted = greedy(
        target,
        tok_a,
        prompt,
        assistant_model=load("llama_other_tokenizer"),
        tokenizer=tok_a,
        assistant_tokenizer=tok_b,
    )
    assert_same_ids(assisted, greedy(target, tok_a, prompt))


def test_glm_mtp(load, tok_a):
    model = load("glm_mtp")
    assert model.config.num_mtp_layers == 1
    prompt = PROMPTS[0]
    assisted, calls = greedy_counting(model, tok_a, prompt, use_mtp=True)
    assert_same_ids(assisted, greedy(model, tok_a, prompt))
    assert calls < MAX_NEW_TOKENS  # some MTP drafts accepted


def test_glm_mtp_and_no_mtp_share_main_weights(load, tok_a):
    assert_same_ids(greedy(load("glm_no_mtp"), tok_a, PROMPTS[0]), greedy(load("glm_mtp"), tok_a, PROMPTS[0]))


@pytest.mark.parametrize("prompt", PROMPTS)
def test_gemma4_assistant(load, tok_a, prompt):
    target, assistant = load("gemma4_target"), load("gemma4_assistant")
    assert assistant.generation_config.num_assistant_tokens == 4
    assisted, calls = greedy_counting(target, tok_a, prompt, assistant_model=assistant)
    assert_same_ids(assisted, greedy(target, tok_a, prompt))
    assert calls < MAX_NEW_TOKENS  # some drafts accepted


# --------------------------------------------------------------------------------------------------------------
# use_mtp on checkpoints without MTP weights (documents transformers 5.24 behaviour, see build_glm_no_mtp)
# --------------------------------------------------------------------------------------------------------------


def test_use_mtp_with_zero_mtp_layers_fails(load, tok_a):
    model = load("glm_no_mtp")
    assert model.config.num_mtp_layers == 0
    with pytest.raises(ValueError, match="non-empty list of Tensors"):
        greedy(model, tok_a, PROMPTS[0], use_mtp=True)


def test_use_mtp_with_missing_mtp_weights_fails(load, tok_a):
    model = load("glm_no_mtp_weights")
    assert model.config.num_mtp_layers == 1
    with pytest.raises(RuntimeError, match="MtpModel weights are missing"):
        greedy(model, tok_a, PROMPTS[0], use_mtp=True)


def test_use_mtp_on_model_without_mtp_config_fails(load, tok_a):
    with pytest.raises(ValueError, match="Could not find `num_mtp_layers`"):
        greedy(load("llama_target"), tok_a, PROMPTS[0], use_mtp=True)
