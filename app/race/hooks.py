"""The only place that reaches into transformers internals.

Two things live here:

1. **Draft capture.** transformers streams the n+1 tokens a round keeps through
   ``streamer.put`` but never says how many tokens were drafted; rejected drafts never reach
   the streamer. We wrap ``GenerationMixin._get_candidate_generator`` once, process-wide, so
   that the candidate generator it returns reports every ``get_candidates`` result to the
   tracer bound to the current thread (:func:`bind_tracer`). Threads without a tracer see
   transformers unchanged.
2. **Private model views.** :func:`private_view` returns a shallow copy of a model that
   shares every weight but has its own ``config`` and ``generation_config``. transformers
   writes run state into those objects (the heuristic draft length into the assistant's
   generation config; early exit's temporary ``num_hidden_layers`` into the base model's
   config); a view keeps that state out of the cached model and out of a baseline running
   at the same time on the same weights. Output-capturing hooks are installed on the
   original first, so a view never installs them a second time.

``tests/test_hooks.py`` fails loudly if the pinned transformers changes underneath this.
"""

from __future__ import annotations

import copy
import threading
from typing import Any, Protocol

from transformers.generation.utils import GenerationMixin
from transformers.utils.output_capturing import _CAN_RECORD_REGISTRY, maybe_install_capturing_hooks

PINNED_TRANSFORMERS = "5.24.0"


class DraftSink(Protocol):
    """Receives the drafts of each round (implemented by trace.Tracer)."""

    def on_candidates(self, prompt_len: int, candidate_ids: list[int]) -> None: ...


_local = threading.local()
_ORIGINAL = GenerationMixin._get_candidate_generator


class bind_tracer:
    """Context manager: route this thread's draft captures to `sink`."""

    def __init__(self, sink: DraftSink | None):
        self.sink = sink

    def __enter__(self) -> DraftSink | None:
        self.previous = getattr(_local, "sink", None)
        _local.sink = self.sink
        return self.sink

    def __exit__(self, *exc: Any) -> None:
        _local.sink = self.previous


def _traced_get_candidate_generator(self, *args: Any, **kwargs: Any):
    generator = _ORIGINAL(self, *args, **kwargs)
    sink = getattr(_local, "sink", None)
    if sink is None:
        return generator
    inner = generator.get_candidates

    def get_candidates(input_ids, *a: Any, **kw: Any):
        candidate_ids, candidate_logits = inner(input_ids, *a, **kw)
        cur_len = input_ids.shape[1]
        sink.on_candidates(cur_len, candidate_ids[0, cur_len:].tolist())
        return candidate_ids, candidate_logits

    generator.get_candidates = get_candidates
    return generator


def install() -> None:
    """Install the draft-capture wrapper (idempotent)."""
    if GenerationMixin._get_candidate_generator is not _traced_get_candidate_generator:
        GenerationMixin._get_candidate_generator = _traced_get_candidate_generator


def private_view(model: Any) -> Any:
    """A shallow copy of `model` sharing all weights, with its own config objects.

    The copy's base model (``model.<base_model_prefix>``) is a shallow copy as well, so that
    state transformers writes into ``base_model.config`` during a run stays in the view.
    """
    prefix = getattr(model, "base_model_prefix", "")
    base = model._modules.get(prefix) if prefix else None
    # transformers installs its output-capturing hooks on shared layers and marks the owning
    # module with a flag; a copy made before that would install them a second time.
    for module in (model, base):
        if module is not None and _CAN_RECORD_REGISTRY.get(module):
            maybe_install_capturing_hooks(module)
    view = copy.copy(model)
    config = copy.deepcopy(model.config)
    view.__dict__["_modules"] = dict(model._modules)
    view.__dict__["config"] = config
    if getattr(model, "generation_config", None) is not None:
        view.__dict__["generation_config"] = copy.deepcopy(model.generation_config)
    if base is not None:
        base_view = copy.copy(base)
        base_view.__dict__["_modules"] = dict(base._modules)  # e.g. UAD swaps the input embeddings
        base_view.__dict__["config"] = config if base.config is model.config else copy.deepcopy(base.config)
        view._modules[prefix] = base_view
    return view


install()
