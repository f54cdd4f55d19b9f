"""``app.py --endpoint NAME=URL[,plain=URL2][,engine=E][,model=M]``: parsed into the launch config by the parser the
command line shares (app/engine/target.py; docs/DESIGN.md §4.7)."""

from __future__ import annotations

import pytest

from app.core.errors import ArenaError
from app.engine.engines import ENGINES
from app.engine.target import ENGINE_NAMES, EngineTarget, parse_endpoint
from app.ui.config import parse_args


def test_endpoints_are_parsed_by_name():
    config = parse_args(["--endpoint", "llama=http://127.0.0.1:8080,plain=http://127.0.0.1:8081",
                         "--endpoint", "vllm-a=https://gpu.example:8000/v1,engine=vllm,model=org/Model-7B,"
                                       "plain=https://gpu.example:8001/v1"])
    assert config.endpoints == (
        EngineTarget("llama", "http://127.0.0.1:8080", "http://127.0.0.1:8081"),
        EngineTarget("vllm-a", "https://gpu.example:8000/v1", "https://gpu.example:8001/v1", "vllm", "org/Model-7B"))
    assert config.endpoints[0].engine == "llama.cpp" and config.endpoints[0].model is None
    assert parse_args([]).endpoints == ()


@pytest.mark.parametrize("bad", ["nourl", "=http://x", "a b=http://x", "x=ftp://host", "x=http://h,plain=",
                                 "x=http://h:notaport", "x=http://h,engine=tgi", "x=http://h,colour=red",
                                 "x=http://h,plain=http://a,plain=http://b", "x=,plain=http://a",
                                 "x=http://h,model=bad\x07name"])
def test_bad_endpoints_are_refused(bad, capsys):
    with pytest.raises(SystemExit):
        parse_args(["--endpoint", bad])
    last = capsys.readouterr().err.strip().splitlines()[-1]  # argparse's usage, then the one line
    assert last.startswith("python app.py: error: argument --endpoint: --endpoint")


def test_each_name_once(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--endpoint", "a=http://x", "--endpoint", "a=http://y"])
    assert "each NAME once" in capsys.readouterr().err


def test_the_parser_is_below_the_ui_and_names_every_engine():
    assert set(ENGINE_NAMES) == set(ENGINES)
    with pytest.raises(ArenaError, match="unknown engine 'tgi'; choose llama.cpp, vllm, sglang"):
        parse_endpoint("x=http://h,engine=tgi")


def test_the_command_line_names_its_own_flags(capsys):
    from app.cli import main

    assert main(["race", "--endpoint", "http://127.0.0.1:9", "--plain-endpoint", "ftp://x", "--prompt", "x"]) == 2
    assert "--plain-endpoint: 'ftp://x' is not an http:// or https:// URL." in capsys.readouterr().err
