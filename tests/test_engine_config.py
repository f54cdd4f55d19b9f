"""``app.py --endpoint NAME=URL[,plain=URL2]``: parsed into the launch config (docs/DESIGN.md §4.7); the page
wiring comes later."""

from __future__ import annotations

import pytest

from app.ui.config import EngineTarget, parse_args


def test_endpoints_are_parsed_by_name():
    config = parse_args(["--endpoint", "llama=http://127.0.0.1:8080,plain=http://127.0.0.1:8081",
                         "--endpoint", "vllm-a=https://gpu.example:8000/v1"])
    assert config.endpoints == (EngineTarget("llama", "http://127.0.0.1:8080", "http://127.0.0.1:8081"),
                                EngineTarget("vllm-a", "https://gpu.example:8000/v1"))
    assert parse_args([]).endpoints == ()


@pytest.mark.parametrize("bad", ["nourl", "=http://x", "a b=http://x", "x=ftp://host", "x=http://h,plain=",
                                 "x=http://h:notaport"])
def test_bad_endpoints_are_refused(bad, capsys):
    with pytest.raises(SystemExit):
        parse_args(["--endpoint", bad])
    assert "--endpoint" in capsys.readouterr().err


def test_each_name_once(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--endpoint", "a=http://x", "--endpoint", "a=http://y"])
    assert "each NAME once" in capsys.readouterr().err
