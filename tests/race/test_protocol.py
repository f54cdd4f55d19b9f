"""The race's words and shapes (app/race/protocol.py): the enums carry the JSON's strings, both runs are a ``Run``, and a
dict keyed by them still leaves the process as gradio sends it."""

from __future__ import annotations

import inspect
import json

import orjson

from app.engine.run import EngineRun
from app.race.lifecycle import RaceRun
from app.race.protocol import Mode, Run, Side, Status, Token


def test_the_enums_are_the_json_strings():
    assert [s.value for s in Side] == ["baseline", "assisted"]
    assert [s.value for s in Status] == ["accepted", "resampled", "bonus", "target"]
    assert [m.value for m in Mode] == ["concurrent", "sequential"]
    token = Token(7, "x", Status.BONUS).to_dict()
    assert json.loads(json.dumps(token))["status"] == "bonus" and orjson.loads(orjson.dumps(token))["status"] == "bonus"
    assert f"status.{Status.RESAMPLED}.label" == "status.resampled.label" and {"assisted": 1}[Side.ASSISTED] == 1


def test_a_member_is_no_key_for_orjson_so_dicts_that_leave_use_the_values():
    """orjson (gradio's encoder) refuses a str subclass as a key: the records, frames and tables use ``.value``."""
    try:
        orjson.dumps({Side.PLAIN: 1})
        refused = False
    except TypeError:
        refused = True
    assert refused, "orjson takes enum keys now: the .value keys may go"
    assert orjson.loads(orjson.dumps({s.value: s for s in Side})) == {"baseline": "baseline", "assisted": "assisted"}


def _members(cls) -> set[str]:
    return {n for n in vars(cls) if not n.startswith("_")} | set(getattr(cls, "__annotations__", {}))


def test_both_runs_implement_the_run_protocol_with_its_signatures():
    wanted = _members(Run)
    assert {"prepare", "run", "snapshot", "stop", "running", "join", "close", "json", "facts", "sequential",
            "progress"} <= wanted
    for cls in (RaceRun, EngineRun):
        for name in wanted:
            if callable(getattr(Run, name, None)):
                params = list(inspect.signature(getattr(cls, name)).parameters)
                assert params == list(inspect.signature(getattr(Run, name)).parameters), (cls.__name__, name)
    race = RaceRun(None)
    assert race.sequential is False and race.progress is None and race.snapshot() is None and not race.running()
    assert race.join(0)
