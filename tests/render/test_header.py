"""The page header's chip says where generation runs: transformers on the machine's device, or the serving engine
while the Race tab races one (app/ui/page.py swaps it when the preset picks an engine)."""

from __future__ import annotations

import pytest

from app.core.words import LANGUAGES, speaking
from app.render.page import header_html


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_the_chip_names_the_engine_during_an_engine_race(lang):
    with speaking(lang):
        plain, engine = header_html("cpu"), header_html("cpu", "llama.cpp", "local")
    assert "generate()" in plain
    assert "llama.cpp" in engine and "local" in engine and "generate()" not in engine
