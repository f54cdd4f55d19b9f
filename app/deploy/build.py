"""From a preset to a serving command: the engine module (docs/DESIGN.md §4.7), the draft length and the method
(or the closest one the engine has)."""

from __future__ import annotations

from types import ModuleType

from ..core.errors import ArenaError
from ..core.presets import Preset, get_preset
from ..core.words import msg
from . import llamacpp, sglang, vllm
from .spec import Deployment, SavedPlan, draft_length, endpoint_note, ngram_size

ENGINES: dict[str, ModuleType] = {m.ENGINE: m for m in (vllm, sglang, llamacpp)}


def engine_module(engine: str) -> ModuleType:
    """The engine's module; ArenaError naming the engines for an unknown one."""
    try:
        return ENGINES[engine]
    except KeyError:
        raise ArenaError(msg("Unknown engine {engine}: choose one of {ENGINES}.", engine=repr(engine),
                             ENGINES=', '.join(ENGINES))) from None


def unsupported_message(preset: Preset, engine: str) -> str | None:
    """One line when `engine` has no equivalent of the preset's method (naming the closest), else None."""
    module = engine_module(engine)
    if preset.method not in module.MISSING:
        return None
    why, closest = module.MISSING[preset.method]
    return (msg("{why}. Closest supported: {ENGINE_METHODS}; print it with python -m app deploy --preset {id} --engine "
                "{engine} --closest.", why=why, ENGINE_METHODS=module.ENGINE_METHODS[closest], id=preset.id, engine=engine))


def deploy(preset: Preset | str, engine: str, plan: SavedPlan | None = None, closest: bool = False) -> Deployment:
    """The serving command for `preset` on `engine` (docs/DESIGN.md §4.2): plan (a saved plan, :func:`read_plan`) sets
    the draft length; closest: build the engine's closest method (labelled) instead of raising for a missing one."""
    preset = get_preset(preset) if isinstance(preset, str) else preset
    module = engine_module(engine)
    method = preset.method
    if method in module.MISSING:
        if not closest:
            raise ArenaError(unsupported_message(preset, engine))
        method = module.MISSING[method][1]
    gamma = draft_length(preset, plan, method)
    argv, notes = module.command(method, preset, gamma.value, ngram_size(preset))
    supported = method == preset.method
    if not supported:
        notes.insert(0, module.MISSING[preset.method][0])
    notes.append(endpoint_note(preset))
    return Deployment(preset=preset.id, method=preset.method, engine=module.ENGINE, engine_title=module.TITLE,
                      engine_method=module.ENGINE_METHODS[method], argv=argv, draft_length=gamma,
                      supported=supported, alternative_for=None if supported else preset.method, notes=notes,
                      checked_against=module.CHECKED)


def deploy_all(preset: Preset | str, plan: SavedPlan | None = None) -> dict[str, Deployment | str]:
    """Every engine for one preset: its Deployment, or the one-line reason it has no equivalent."""
    preset = get_preset(preset) if isinstance(preset, str) else preset
    return {engine: unsupported_message(preset, engine) or deploy(preset, engine, plan) for engine in ENGINES}
