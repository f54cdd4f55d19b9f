"""Where and when a race ran: the Race tab's hardware panel and the recording's machine, versions and date."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ..core.sources import short_name
from ..core.words import t
from .html import esc


def fmt_params(n: int | None) -> str:
    """134515008 -> '134.5 M' parameters."""
    if not n:
        return "\u2013"
    return f"{n / 1e9:.2f} B" if n >= 1e9 else f"{n / 1e6:.1f} M"


def fmt_bytes(n: int | None) -> str:
    """Bytes in MB / GB (powers of 1024)."""
    if not n:
        return "\u2013"
    return f"{n / (1 << 30):.2f} GB" if n >= 1 << 30 else f"{n / (1 << 20):.0f} MB"


def hardware_html(facts: dict) -> str:
    """Device, dtype, parameter counts and weight memory; the CPU note when there is no GPU.

    facts: {"device": str, "gpu": str|None, "cpu_cores": int, "torch_threads": int,
    "models": [{"role", "spec", "n_params", "weight_bytes", "dtype", "device", "load_seconds"}],
    "peak_bytes": the process's measured peak memory (app/core/machine.py) or None}; an engine race's
    facts have "engine" instead (:func:`engine_hardware_html`).
    """
    if facts.get("engine"):
        return engine_hardware_html(facts)
    device = facts.get("device", "cpu")
    where = esc(facts.get("gpu") or t("hw.cpu", cores=facts.get("cpu_cores", "?"), threads=facts.get("torch_threads", "?")))
    rows = []
    for m in facts.get("models", []):
        model = f'<span class="mono" title="{esc(m["spec"])}">{esc(short_name(m["spec"]))}</span>'
        cells = (esc(t("hw.role." + m["role"])), model,
                 fmt_params(m.get("n_params")), fmt_bytes(m.get("weight_bytes")), esc(m.get("dtype", "")),
                 esc(m.get("device", "")))
        rows.append("".join(f"<span>{c}</span>" for c in cells))
    head = "".join(f'<span class="hw-th">{esc(t("hw.col." + h))}</span>'
                   for h in ("model", "id", "params", "weights", "dtype", "device"))
    table = (f'<div class="hw-grid" role="table">{head}{"".join(rows)}</div>' if rows
             else f'<div class="hw-pending">{esc(t("hw.pending"))}</div>')
    if rows and facts.get("peak_bytes"):
        weights = sum(m.get("weight_bytes") or 0 for m in facts.get("models", []))
        peak = t("hw.peak", peak=fmt_bytes(facts["peak_bytes"]), weights=fmt_bytes(weights))
        table += f'<div class="hw-peak">{esc(peak)}</div>'
    note = ""
    if not str(device).startswith("cuda"):
        note = f'<div class="hw-note" role="note">{t("hw.cpu_note")}</div>'  # the table's own markup (<b>)
    return (f'<div class="hw"><div class="hw-device">{esc(t("hw.device"))} <b>{esc(device)}</b> \u00b7 {where}</div>'
            f'{table}{note}</div>')


def engine_hardware_html(facts: dict) -> str:
    """The hardware panel of an engine race: the engine's build and model (the tokens are made on its server; the
    arena only sends the requests and reads the streams)."""
    e = facts["engine"]
    bits = [b for b in (e.get("version") and t("hw.engine_build", build=e["version"]),
                        e.get("model") and t("hw.engine_model", model=e["model"]),
                        e.get("speculative_type") and t("hw.engine_spec", spec=e["speculative_type"])) if b]
    what = ", ".join(bits) or t("hw.engine_unknown")
    return (f'<div class="hw"><div class="hw-device">{esc(t("hw.device"))} <b>{esc(facts.get("device", "engine"))}</b> '
            f'\u00b7 {esc(what)}</div><div class="hw-note" role="note">{esc(t("hw.engine_note"))}</div></div>')


def machine_text(env: dict[str, Any]) -> str:
    """A recording's machine: 'AMD EPYC 7763 (cpu, 2 cores, 1 torch thread per side, float32)'."""
    n = env.get("threads_per_side")
    bits = [str(env.get("device") or "?"), f"{env['cores']} cores" if env.get("cores") else "",
            f"{n} torch thread{'s' if n != 1 else ''} per side" if n else "", str(env.get("dtype") or "")]
    return f"{env.get('device_name') or 'an unnamed machine'} ({', '.join(b for b in bits if b)})"


def versions_text(env: dict[str, Any]) -> str:
    names = (("torch", "torch"), ("transformers", "transformers"), ("gradio", "gradio"), ("python", "Python"))
    return " \u00b7 ".join(f"{label} {env[key]}" for key, label in names if env.get(key))


def when_text(recorded_at: str) -> str:
    """'2025-06-01T12:00:00+00:00' -> '2025-06-01 12:00 UTC' (the offset kept when it is not UTC)."""
    try:
        moment = datetime.fromisoformat(recorded_at)
    except ValueError:
        return recorded_at
    offset = moment.utcoffset()
    zone = "UTC" if offset is not None and not offset.total_seconds() else moment.strftime("%z") or "local time"
    return f"{moment:%Y-%m-%d %H:%M} {zone}"
