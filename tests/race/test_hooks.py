"""Fails loudly if the pinned transformers changes underneath app/race/hooks.py."""

from __future__ import annotations

import inspect

import torch
import transformers
from transformers import AutoModelForCausalLM
from transformers.generation import candidate_generator as cg
from transformers.generation.utils import GenerationMixin

from app.race import hooks
from app.race.tracer import TraceStreamer


def test_pinned_transformers_version():
    assert transformers.__version__ == hooks.PINNED_TRANSFORMERS, (
        "transformers changed: re-read generation/utils.py::_assisted_decoding and candidate_generator.py, "
        "check app/race/hooks.py, then update PINNED_TRANSFORMERS"
    )


def test_assisted_loop_still_has_the_shape_hooks_rely_on():
    src = inspect.getsource(GenerationMixin._assisted_decoding)
    # one get_candidates per round, then the kept tokens streamed once, then the strategy update
    assert src.count("candidate_generator.get_candidates(") == 2  # with and without model outputs
    assert src.count("streamer.put(valid_tokens.cpu())") == 1
    assert "candidate_generator.update_candidate_strategy(input_ids, new_logits, n_matches)" in src
    assert src.index("get_candidates(") < src.index("streamer.put(valid_tokens") < src.index("update_candidate_strategy")
    assert "self._get_candidate_generator(" in src
    # the state leak docs/DESIGN.md §7 names, which private views contain
    assert "generation_config.num_assistant_tokens = (" in src


def test_early_exit_still_mutates_the_base_model_config():
    src = inspect.getsource(cg.EarlyExitCandidateGenerator.get_candidates)
    assert "base_model.config.num_hidden_layers = self.assistant_early_exit" in src


def test_wrapper_is_installed_and_keeps_the_signature():
    assert GenerationMixin._get_candidate_generator is hooks._traced_get_candidate_generator
    params = list(inspect.signature(hooks._ORIGINAL).parameters)
    assert params[:3] == ["self", "generation_config", "input_ids"]


def test_drafts_reach_the_bound_tracer_only(tiny):
    model = AutoModelForCausalLM.from_pretrained(tiny["llama_target"]).eval()
    ids = torch.tensor([[0, 10, 20, 30, 10, 20]])
    streamer = TraceStreamer("assisted", assisted=True)
    with hooks.bind_tracer(streamer), torch.inference_mode():
        model.generate(ids, max_new_tokens=12, do_sample=False, prompt_lookup_num_tokens=3, streamer=streamer)
    assert streamer.rounds and len(streamer.token_ids) == 12
    assert any(r.drafted > 0 for r in streamer.rounds), "prompt lookup drafted nothing: capture broken?"
    unbound = TraceStreamer("assisted", assisted=True)
    with torch.inference_mode():
        model.generate(ids, max_new_tokens=12, do_sample=False, prompt_lookup_num_tokens=3, streamer=unbound)
    assert all(r.drafted == 0 for r in unbound.rounds)  # no tracer bound: transformers unchanged


def test_private_view_shares_weights_and_isolates_state(tiny):
    model = AutoModelForCausalLM.from_pretrained(tiny["llama_target"]).eval()
    view = hooks.private_view(model)
    assert view.model.layers[0] is model.model.layers[0]
    assert view.lm_head.weight.data_ptr() == model.lm_head.weight.data_ptr()
    view.generation_config.num_assistant_tokens = 17
    view.model.config.num_hidden_layers = 1
    view.model.embed_tokens = torch.nn.Embedding(3, 3)
    assert model.generation_config.num_assistant_tokens != 17
    assert model.config.num_hidden_layers == 4 and model.model.config.num_hidden_layers == 4
    assert model.model.embed_tokens.num_embeddings != 3


def test_uad_sampling_logits_follow_the_pruned_heads_order(tiny):
    """transformers 5.24.0 maps a pruned UAD head's logits back in drafter-id order, not in the head's own order,
    so drafts carry other tokens' probabilities; hooks.fix_uad_logit_order maps them right (docs/DESIGN.md §7)."""
    from types import SimpleNamespace

    from transformers import AutoTokenizer

    target_tok = AutoTokenizer.from_pretrained(tiny["llama_target"])
    assistant_tok = AutoTokenizer.from_pretrained(tiny["llama_other_tokenizer"])
    assistant = AutoModelForCausalLM.from_pretrained(tiny["llama_other_tokenizer"]).eval()
    translator = cg.AssistantToTargetTranslator(target_tok, assistant_tok, len(target_tok), assistant,
                                                assistant_prune_lm_head=True)
    head_order = translator.assistant_overlap_token_ids
    logits = torch.arange(len(head_order), dtype=torch.float32)[None, None]  # pruned logit j = j
    owners = translator._assistant_to_target_input_ids[head_order]  # pruned logit j belongs to target token owners[j]
    assert not torch.equal(translator.get_target_logits(logits)[0, 0, owners], logits[0, 0]), (
        "transformers now maps UAD logits in the head's order: drop hooks.fix_uad_logit_order and its §7 row")
    hooks.fix_uad_logit_order(SimpleNamespace(_atm_translator=translator))
    fixed = translator.get_target_logits(logits)
    assert torch.equal(fixed[0, 0, owners], logits[0, 0])
    assert int(torch.isinf(fixed).sum()) == len(target_tok) - len(head_order)
    hooks.fix_uad_logit_order(SimpleNamespace(_atm_translator=translator))  # idempotent
    assert torch.equal(translator.get_target_logits(logits), fixed)


def test_gemma4_drafts_greedily_so_sampling_gets_no_draft_logits():
    """The Gemma 4 drafter picks argmax drafts but returns its logits; with sampling transformers would test them as
    samples from those logits (docs/DESIGN.md §7), so hooks.drop_greedy_draft_logits withholds them."""
    from types import SimpleNamespace

    src = inspect.getsource(cg.SinglePositionMultiTokenCandidateGenerator.get_candidates)
    assert "last_token_id = outputs.logits.argmax(dim=-1)" in src and "return candidate_ids, candidate_logits" in src, (
        "the Gemma 4 drafter changed how it drafts: re-check hooks.drop_greedy_draft_logits and its §7 row")
    for do_sample, logits in ((True, None), (False, "logits")):
        generator = object.__new__(cg.SinglePositionMultiTokenCandidateGenerator)
        generator.generation_config = SimpleNamespace(do_sample=do_sample)
        generator.get_candidates = lambda *args, **kwargs: ("ids", "logits")
        hooks.drop_greedy_draft_logits(generator)
        assert generator.get_candidates("input", model_outputs=None) == ("ids", logits)
