"""The seven assisted-decoding methods (docs/DESIGN.md §2): one small class each, in the ``METHODS`` registry.

A method checks a preset (before any model is loaded) and the loaded models, and turns the preset into the
assisted run's extra ``generate()`` arguments (:class:`GenerateArgs`; its ``drafter_config`` goes on a private
view of the drafting model).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..core.errors import ArenaError
from ..core.knobs import COST_AWARE, DRAFTER_CONFIG_KNOBS
from ..core.presets import Preset
from ..core.words import msg


@dataclass
class GenerateArgs:
    """What the assisted generate() call gets beyond the baseline's arguments.

    kwargs: extra generate() keyword arguments (without assistant_model / tokenizers).
    drafter_config: values to set on the drafting model's generation_config.
    uses_assistant_model: pass the assistant as ``assistant_model=``.
    uses_tokenizers: pass ``tokenizer=`` and ``assistant_tokenizer=`` (UAD).
    draft_policy: "cost-aware" when app/race/drafting.py chooses each round's length (at most max_draft).
    """

    kwargs: dict[str, Any] = field(default_factory=dict)
    drafter_config: dict[str, Any] = field(default_factory=dict)
    draft_policy: str | None = None
    max_draft: int = 0
    uses_assistant_model: bool = False
    uses_tokenizers: bool = False


def _text_config(model: Any) -> Any:
    return model.config.get_text_config()


def _same_vocabulary(target_tok: Any, assistant_tok: Any, target: Any, assistant: Any) -> bool:
    if _text_config(target).vocab_size != _text_config(assistant).vocab_size:
        return False
    if target_tok is None or assistant_tok is None or target_tok is assistant_tok:
        return True
    return target_tok.get_vocab() == assistant_tok.get_vocab()


class Method:
    """Base class. Subclasses set the class attributes and may extend the checks."""

    id: ClassVar[str]
    title: ClassVar[str]
    summary: ClassVar[str]
    lossless: ClassVar[bool] = True
    needs_assistant: ClassVar[bool] = False
    knobs: ClassVar[tuple[str, ...]] = ()
    required_knobs: ClassVar[tuple[str, ...]] = ()
    #: The target drafts with its own first layers (its draft cost is a share of its layers).
    self_drafting: ClassVar[bool] = False
    #: Drafts by copying from the prompt: no model drafts, so drafting is nearly free.
    drafts_from_prompt: ClassVar[bool] = False
    #: How much slower than a small same-family pair a race of this method runs on a GPU (the ZeroGPU estimate).
    gpu_time_factor: ClassVar[float] = 1.0
    #: A drafter with another tokenizer: its drafts are re-tokenized into the target's vocabulary every round.
    translates_tokens: ClassVar[bool] = False
    #: Drafts from the target's own hidden states (MTP layers, a Gemma 4 assistant): no separate draft step exists to
    #: time against the target's, so the planner can only be its calculator for it.
    drafts_from_hidden_states: ClassVar[bool] = False
    #: The knob that sets how many tokens a round drafts (None: the method has none).
    length_knob: ClassVar[str | None] = "num_assistant_tokens"

    def check_preset(self, preset: Preset) -> None:
        """Checks that need no model: assistant presence, knobs that belong to the method."""
        if self.needs_assistant and not preset.assistant:
            raise ArenaError(msg("The {id} method needs an assistant model: set assistant (or --assistant).", id=self.id))
        if not self.needs_assistant and preset.assistant:
            raise ArenaError(msg("The {id} method drafts without a separate model, but an assistant ({assistant}) was given: "
                                 "remove it, or use the drafter method.", id=self.id, assistant=preset.assistant))
        for knob, value in preset.knobs().items():
            if knob not in self.knobs:
                users = [m.id for m in METHODS.values() if knob in m.knobs]
                raise ArenaError(msg("{knob}={value} does not apply to the {id} method; it belongs to {users}. Remove it or "
                                     "switch method.", knob=knob, value=value, id=self.id,
                                     users=', '.join(users) or 'no method'))
        for knob in self.required_knobs:
            if getattr(preset, knob) is None:
                raise ArenaError(msg("The {id} method needs {knob}: set it in the preset or with --{replace}.", id=self.id,
                                     knob=knob, replace=knob.replace('_', '-')))

    def check_models(self, preset: Preset, target: Any, assistant: Any, target_tok: Any, assistant_tok: Any) -> None:
        """Checks that need the loaded models (configs and tokenizers)."""

    def explain(self, exc: BaseException) -> str | None:
        """A clear message for a failure transformers raised during an assisted run, if known."""
        return None

    #: The draft length used when a cost-aware preset sets none (transformers' dynamic default: 20).
    default_max_draft: ClassVar[int] = 20

    def generate_args(self, preset: Preset) -> GenerateArgs:
        """The assisted run's extra arguments. The cost-aware schedule is this app's, not transformers': the
        drafter keeps transformers' constant schedule at the maximum length and the policy shortens rounds."""
        knobs = preset.knobs()
        args = GenerateArgs(
            kwargs={k: v for k, v in knobs.items() if k not in DRAFTER_CONFIG_KNOBS},
            drafter_config={k: v for k, v in knobs.items() if k in DRAFTER_CONFIG_KNOBS},
            uses_assistant_model=self.needs_assistant,
        )
        if knobs.get("num_assistant_tokens_schedule") == COST_AWARE:
            args.draft_policy, args.max_draft = COST_AWARE, self.max_draft(preset)
            args.drafter_config.pop("num_assistant_tokens_schedule")
            if "prompt_lookup_num_tokens" not in args.kwargs:
                args.drafter_config.update(num_assistant_tokens_schedule="constant", num_assistant_tokens=args.max_draft)
        return args

    def max_draft(self, preset: Preset) -> int:
        """The most tokens a round may draft under the cost-aware schedule."""
        return preset.num_assistant_tokens or self.default_max_draft


class SameVocabularyDrafter(Method):
    """Shared check: a separate drafter must share the target's vocabulary."""

    def check_models(self, preset, target, assistant, target_tok, assistant_tok):
        if not _same_vocabulary(target_tok, assistant_tok, target, assistant):
            raise ArenaError(msg("The assistant {assistant} uses a different vocabulary than the target {target} "
                                 "({assistant_vocab} vs {target_vocab} tokens): use the uad method (universal assisted "
                                 "decoding), which translates between tokenizers.", assistant=preset.assistant,
                                 target=preset.target, assistant_vocab=_text_config(assistant).vocab_size,
                                 target_vocab=_text_config(target).vocab_size))


class Drafter(SameVocabularyDrafter):
    id = "drafter"
    title = "Separate drafter"
    summary = "A small model of the same family drafts k tokens; the target verifies them in one pass."
    needs_assistant = True
    knobs = DRAFTER_CONFIG_KNOBS


class Ensemble(SameVocabularyDrafter):
    id = "ensemble"
    title = "Ensemble verification"
    summary = "Verifies against a blend of target and drafter probabilities: faster, but lossy by design."
    lossless = False
    needs_assistant = True
    knobs = DRAFTER_CONFIG_KNOBS + ("assistant_ensemble_weight",)
    required_knobs = ("assistant_ensemble_weight",)


class PromptLookup(Method):
    id = "prompt-lookup"
    drafts_from_prompt = True
    length_knob = "prompt_lookup_num_tokens"
    title = "Prompt lookup"
    summary = "Drafts by copying the continuation of a matching n-gram from the prompt: no second model."
    knobs = ("prompt_lookup_num_tokens", "max_matching_ngram_size", "num_assistant_tokens_schedule")
    required_knobs = ("prompt_lookup_num_tokens",)

    def check_preset(self, preset):
        super().check_preset(preset)
        schedule = preset.num_assistant_tokens_schedule
        if schedule not in (None, "constant", COST_AWARE):
            raise ArenaError(msg("transformers' prompt lookup drafts a fixed length, so "
                                 "num_assistant_tokens_schedule={schedule} does not apply: use constant (transformers) or "
                                 "{COST_AWARE} (this app).", schedule=schedule, COST_AWARE=COST_AWARE))

    def max_draft(self, preset):
        return preset.prompt_lookup_num_tokens


class LayerSkip(Method):
    id = "layerskip"
    self_drafting = True
    title = "LayerSkip early exit"
    summary = "The target drafts with its own first layers, then verifies with all of them."
    knobs = DRAFTER_CONFIG_KNOBS + ("assistant_early_exit",)
    required_knobs = ("assistant_early_exit",)

    def check_models(self, preset, target, assistant, target_tok, assistant_tok):
        layers = _text_config(target).num_hidden_layers
        if preset.assistant_early_exit >= layers:
            raise ArenaError(msg("assistant_early_exit={assistant_early_exit} must be below the target's layer count "
                                 "({layers}): pick an exit layer between 1 and {last_layer}.",
                                 assistant_early_exit=preset.assistant_early_exit, layers=layers, last_layer=layers - 1))

    def generate_args(self, preset):
        args = super().generate_args(preset)
        # The target drafts for itself: draft-length knobs go on the target's own config.
        args.uses_assistant_model = False
        return args


class GlmMtp(Method):
    id = "glm-mtp"
    drafts_from_hidden_states = True
    length_knob = None
    gpu_time_factor = 6.0  # GLM-4.5-Air at 4-bit is a 106B MoE
    title = "GLM multi-token prediction"
    summary = "GLM's built-in MTP layers draft the next tokens from the target's last hidden state."

    def check_models(self, preset, target, assistant, target_tok, assistant_tok):
        layers = getattr(_text_config(target), "num_mtp_layers", None) or 0
        if type(target).__name__.startswith("Glm") is False or layers < 1:
            raise ArenaError(msg("{target} has no multi-token-prediction layers (num_mtp_layers={layers}, class {type}): "
                                 "use_mtp needs a checkpoint that ships them, such as zai-org/GLM-4.5-Air; for other models "
                                 "use drafter or prompt-lookup.", target=preset.target, layers=layers,
                                 type=type(target).__name__))

    def explain(self, exc):
        text = str(exc)
        if "MtpModel weights are missing" in text or "non-empty list of Tensors" in text:
            return (msg("This checkpoint declares MTP layers but does not ship their weights, so use_mtp cannot draft: use a "
                        "checkpoint with MTP weights (zai-org/GLM-4.5-Air) or another method."))
        return None

    def generate_args(self, preset):
        args = super().generate_args(preset)
        args.kwargs["use_mtp"] = True
        return args


class GemmaDrafter(Method):
    id = "gemma-drafter"
    drafts_from_hidden_states = True
    gpu_time_factor = 1.5  # Gemma 4 E4B is billions of parameters
    title = "Gemma 4 drafter"
    summary = "A Gemma 4 assistant drafts from the target's shared KV states and hidden state."
    needs_assistant = True
    knobs = ("num_assistant_tokens",)

    def check_models(self, preset, target, assistant, target_tok, assistant_tok):
        if not type(assistant).__name__.startswith(("Gemma4Assistant", "Gemma4UnifiedAssistant")):
            raise ArenaError(msg("{assistant} is a {type}, not a Gemma 4 assistant checkpoint (e.g. "
                                 "google/gemma-4-E4B-it-assistant); for an ordinary small model use the drafter method.",
                                 assistant=preset.assistant, type=type(assistant).__name__))
        if not type(target).__name__.startswith(("Gemma4", "Gemma3n")):
            raise ArenaError(msg("A Gemma 4 assistant needs a Gemma 4 (or Gemma 3n) target that shares its KV states; "
                                 "{target} is a {type}.", target=preset.target, type=type(target).__name__))


class UniversalAssisted(Method):
    id = "uad"
    translates_tokens = True
    gpu_time_factor = 2.0  # re-tokenizes every round
    title = "Universal assisted decoding"
    summary = "A drafter with a different tokenizer: drafts are re-tokenized into the target's vocabulary."
    needs_assistant = True
    knobs = DRAFTER_CONFIG_KNOBS

    def check_models(self, preset, target, assistant, target_tok, assistant_tok):
        if _text_config(target).vocab_size == _text_config(assistant).vocab_size:
            raise ArenaError(msg("{target} and {assistant} have the same vocabulary size: they share a tokenizer, so use the "
                                 "drafter method (uad is for drafters with a different tokenizer).", target=preset.target,
                                 assistant=preset.assistant))

    def generate_args(self, preset):
        args = super().generate_args(preset)
        args.uses_tokenizers = True
        return args


METHODS: dict[str, Method] = {m.id: m for m in (
    Drafter(), PromptLookup(), LayerSkip(), GlmMtp(), GemmaDrafter(), UniversalAssisted(), Ensemble()
)}


def get_method(method_id: str) -> Method:
    """The registered method for `method_id`."""
    try:
        return METHODS[method_id]
    except KeyError:
        raise ArenaError(msg("Unknown method '{method_id}'; known methods: {METHODS}.", method_id=method_id,
                             METHODS=', '.join(METHODS))) from None
