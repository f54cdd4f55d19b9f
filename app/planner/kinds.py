"""How the planner measures each kind of draft (docs/DESIGN.md §5.5, §5.6): one small class per kind, chosen by the
attributes of the method's class (app/race/methods.py: ``drafts_from_prompt``, ``self_drafting``,
``translates_tokens``, ``drafts_from_hidden_states``, ``length_knob``), so no planner module compares method ids.

A kind knows how to count alpha by greedy agreement, which step to time against the target's for c, the knobs of its
check races and the notes its plan carries.
"""

from __future__ import annotations

import statistics
from typing import Any, ClassVar, Sequence

import torch

from ..core.errors import ArenaError
from ..core.presets import Preset
from ..core.words import msg
from ..race.methods import METHODS, Method, get_method
from ..race.prepare import RaceSetup
from .measure import (AgreementAlpha, borrowed_tokenizers, exit_view, lookup_agreement, teacher_forced,
                      uad_agreement)
from .timing import LookupStepper, ModelStepper, StepRatio, retokenize_seconds, step_ratio

#: transformers' dynamic draft length for a drafter (its default): stop below confidence 0.4, at most 20.
DYNAMIC_DEFAULT = {"num_assistant_tokens": 20, "num_assistant_tokens_schedule": "constant",
                   "assistant_confidence_threshold": 0.4}


class DraftKind:
    """A drafting model's kind (the base: a separate same-vocabulary drafter). how: how alpha by agreement is
    counted; space: in whose tokens; counts_proposals: alpha's lookup proposal rate is part of it; observes_alpha:
    the prediction uses alpha observed in a constant-gamma probe race instead (agreement is in the wrong tokens);
    notes: what the plan says about this kind's measurement."""

    how: ClassVar[str] = msg("drafter top-1 on the target's greedy text (teacher forcing)")
    c_what: ClassVar[str] = msg("drafter step / target step")
    space: ClassVar[str] = msg("target tokens")
    counts_proposals: ClassVar[bool] = False
    observes_alpha: ClassVar[bool] = False
    notes: ClassVar[tuple[str, ...]] = ()

    def __init__(self, method: Method):
        self.method = method

    @staticmethod
    def fits(method: Method) -> bool:
        """Whether this kind measures `method` (a registered method object)."""
        return method.needs_assistant and not method.drafts_from_hidden_states

    # ----- alpha by agreement -----------------------------------------------------------------------------------
    def describe(self, preset: Preset) -> str:
        """How alpha by agreement was counted, in words."""
        return self.how

    def prompt_agreement(self, setup: RaceSetup, ref: list[int]) -> tuple[int, int, int | None]:
        """(matches, positions, lookup proposals or None) on one prompt."""
        return (*teacher_forced(setup.assistant.model, setup, ref), None)

    def agreement_alpha(self, setups: Sequence[RaceSetup], refs: Sequence[list[int]]) -> AgreementAlpha:
        """alpha by greedy agreement over prompts: the mean of per-prompt agreement (as the article averages) and
        the pooled share (docs/DESIGN.md §5.5)."""
        per_prompt = []
        for setup, ref in zip(setups, refs):
            m, p, proposed = self.prompt_agreement(setup, ref)
            per_prompt.append({"matches": m, "positions": p, "alpha": m / p if p else None, "proposed": proposed})
        valid = [x["alpha"] for x in per_prompt if x["alpha"] is not None]
        positions = sum(x["positions"] for x in per_prompt)
        proposed_total = sum(x["proposed"] or 0 for x in per_prompt)
        return AgreementAlpha(
            value=statistics.mean(valid) if valid else None,
            pooled=sum(x["matches"] for x in per_prompt) / positions if positions else None,
            space=self.space, how=self.describe(setups[0].preset), per_prompt=per_prompt,
            proposal_rate=proposed_total / positions if positions and self.counts_proposals else None,
            is_lookup=self.counts_proposals)

    # ----- c ------------------------------------------------------------------------------------------------------
    def draft_stepper(self, setup: RaceSetup, ref: list[int]) -> Any:
        """What drafts one step, timed against the target's one-token step (the prefill not timed)."""
        return ModelStepper(setup.assistant.model, setup.input_ids)

    def what(self, preset: Preset) -> str:
        """Which two steps c compares, in words."""
        return self.c_what

    def add_costs(self, setup: RaceSetup, ref: list[int], out: StepRatio) -> None:
        """Add what a round costs beyond the draft step to `out` (in target steps; nothing for most kinds)."""

    def measure_c(self, setup: RaceSetup, ref: list[int], repeats: int = 5, steps: int = 8) -> StepRatio:
        """c for the setup's method: draft step / target step, median of `repeats` x `steps` steps (§5.6)."""
        target = ModelStepper(setup.target.model, setup.input_ids)
        out = step_ratio(self.draft_stepper(setup, ref), target, repeats, steps, setup.device)
        out.what = self.what(setup.preset)
        self.add_costs(setup, ref, out)
        return out

    # ----- the check races -----------------------------------------------------------------------------------------
    def constant_knobs(self, gamma: int) -> dict[str, Any]:
        """Knobs that make the method draft exactly `gamma` tokens a round (constant schedule, no confidence stop)."""
        return {self.method.length_knob: gamma, "num_assistant_tokens_schedule": "constant",
                "assistant_confidence_threshold": 0.0}

    def default_setting(self, preset: Preset) -> tuple[str, dict[str, Any], int | None]:
        """(label, knobs, fixed gamma or None) of the setting the best constant gamma is checked against."""
        return msg("dynamic default (confidence 0.4, at most 20)"), dict(DYNAMIC_DEFAULT), None


class ModelDrafts(DraftKind):
    """A separate drafter sharing the target's vocabulary (drafter, ensemble): the base's ways."""


class TranslatedDrafts(ModelDrafts):
    """A drafter with another tokenizer (uad): agreement in drafter tokens, c with the re-tokenization."""

    how = (msg("drafter top-1 on the target's greedy text re-tokenized by the drafter; counted in drafter tokens, so not the "
               "per-target-token acceptance the formula uses"))
    c_what = msg("drafter step / target step + re-tokenization per drafted token")
    space = msg("drafter tokens")
    observes_alpha = True
    notes = (msg("Tokenizers differ, so alpha by agreement is counted in drafter tokens; the prediction uses alpha observed "
                 "in a constant-gamma run, and c includes the re-tokenization cost per drafted token."),)

    @staticmethod
    def fits(method: Method) -> bool:
        return method.translates_tokens

    def prompt_agreement(self, setup, ref):
        return (*uad_agreement(setup, ref), None)

    def draft_stepper(self, setup, ref):
        with borrowed_tokenizers(setup) as (tok, atok):
            prompt_text = tok.decode(setup.input_ids[0], skip_special_tokens=True)
            return ModelStepper(setup.assistant.model, atok(prompt_text, return_tensors="pt")["input_ids"])

    def add_costs(self, setup, ref, out):
        """The re-tokenization of one round, per drafted token, in target steps (c_model keeps the step ratio)."""
        gamma = setup.preset.num_assistant_tokens or 5
        extra = retokenize_seconds(setup, ref, gamma) / gamma / (out.target_step_ms / 1e3)
        out.c_model, out.c_retokenize, out.retokenize_gamma = out.value, extra, gamma
        out.value, out.low, out.high = out.value + extra, out.low + extra, out.high + extra


class EarlyExitDrafts(DraftKind):
    """The target drafting with its first layers (layerskip)."""

    @staticmethod
    def fits(method: Method) -> bool:
        return method.self_drafting

    def describe(self, preset):
        return msg("top-1 of the first {exit} layers on the target's greedy text", exit=preset.assistant_early_exit)

    def prompt_agreement(self, setup, ref):
        return (*teacher_forced(exit_view(setup.target.model, setup.preset.assistant_early_exit), setup, ref), None)

    def draft_stepper(self, setup, ref):
        return ModelStepper(exit_view(setup.target.model, setup.preset.assistant_early_exit), setup.input_ids)

    def what(self, preset):
        return msg("first-{layers}-layer step / full step", layers=preset.assistant_early_exit)


class LookupDrafts(DraftKind):
    """Drafts copied from the prompt (prompt lookup): an n-gram search per round, no model."""

    how = msg("first n-gram lookup proposal at each position of the target's greedy text (no match = miss)")
    c_what = msg("n-gram lookup / target step")
    counts_proposals = True
    notes = (msg("Prompt lookup copies runs from the prompt, so acceptance is bursty, not i.i.d. as Theorem 3.8 assumes; with "
                 "c close to 0 the formula favours long drafts."),)

    @staticmethod
    def fits(method: Method) -> bool:
        return method.drafts_from_prompt

    @staticmethod
    def sizes(preset: Preset) -> tuple[int, int]:
        """(tokens a lookup copies, the longest n-gram it matches: transformers' 2 when the preset sets none)."""
        return preset.prompt_lookup_num_tokens, preset.max_matching_ngram_size or 2

    def prompt_agreement(self, setup, ref):
        return lookup_agreement(setup, ref, *self.sizes(setup.preset))

    def draft_stepper(self, setup, ref):
        ids = torch.cat([setup.input_ids.cpu(), torch.tensor([ref])], dim=1)
        return LookupStepper(ids, *self.sizes(setup.preset))

    def constant_knobs(self, gamma):
        return {self.method.length_knob: gamma}

    def default_setting(self, preset):
        gamma = getattr(preset, self.method.length_knob)
        return msg("preset setting ({knob}={gamma})", knob=self.method.length_knob, gamma=gamma), {}, gamma


#: The kinds, the first that fits a method measures it.
KINDS: tuple[type[DraftKind], ...] = (LookupDrafts, EarlyExitDrafts, TranslatedDrafts, ModelDrafts)


def measurable(method: Method) -> bool:
    """Whether the planner can measure `method` (some kind fits it)."""
    return any(kind.fits(method) for kind in KINDS)


def draft_kind(method_id: str) -> DraftKind:
    """The kind that measures the method `method_id`; ArenaError for methods not measurable here."""
    method = get_method(method_id)
    for kind in KINDS:
        if kind.fits(method):
            return kind(method)
    names = ", ".join(m.id for m in METHODS.values() if measurable(m))
    raise ArenaError(msg("The planner measures {names} presets; '{method_id}' drafts from the target's own hidden states, so "
                         "use the calculator (--alpha A --c C) with alpha from a race.", names=names, method_id=method_id))
