"""Prompt suites: the built-in suite's shape, user JSONL/CSV files, and one clear line for every malformed file."""

from __future__ import annotations

import json

import pytest

import app.bench.suite as suite_module
from app.bench.suite import (BUILTIN_CATEGORIES, BUILTIN_SUITE, SPLITS, categories_of, load_suite, parse_csv,
                             parse_jsonl, select)
from app.core.errors import ArenaError


def test_every_builtin_line_parses_with_all_fields():
    lines = [line for line in BUILTIN_SUITE.read_text(encoding="utf-8").splitlines() if line.strip()]
    for number, line in enumerate(lines, 1):
        record = json.loads(line)
        assert set(record) == {"prompt", "category", "split", "id"}, number
        assert record["category"] in BUILTIN_CATEGORIES and record["split"] in SPLITS, number
        assert record["prompt"].strip(), number
    assert len(load_suite()) == len(lines)


def test_builtin_suite_has_every_category_with_both_splits_and_varied_lengths():
    suite = load_suite()
    assert categories_of(suite) == list(BUILTIN_CATEGORIES)
    assert len({p.id for p in suite}) == len(suite)
    for category in BUILTIN_CATEGORIES:
        mine = [p for p in suite if p.category == category]
        assert len(mine) >= 8, category
        tune, test = (sum(p.split == s for p in mine) for s in SPLITS)
        assert tune >= 4 and test >= 4 and tune + test == len(mine), category
    words = sorted(len(p.prompt.split()) for p in suite)
    assert words[0] <= 10 and 200 <= words[-1] <= 300


def test_select_filters_categories_split_and_limit():
    suite = load_suite()
    chosen = select(suite, ["maths", "rag"], "test", 2)
    assert [p.category for p in chosen] == ["maths", "maths", "rag", "rag"]
    assert all(p.split == "test" for p in chosen)
    assert len(select(suite, None, "all", None)) == len(suite)
    with pytest.raises(ArenaError, match="unknown category poetry; this suite has multi-turn"):
        select(suite, ["poetry"])
    with pytest.raises(ArenaError, match="split must be one of all, tune, test"):
        select(suite, None, "train")


def test_user_jsonl_defaults_and_split_hint(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text('{"prompt": "Say hi."}\n\n{"prompt": "Count to 3.", "category": "maths", "id": 7}\n', encoding="utf-8")
    first, second = load_suite(path)
    assert (first.id, first.category, first.split) == ("prompt-1", "uncategorised", None)
    assert (second.id, second.category) == ("7", "maths")
    with pytest.raises(ArenaError, match="no split field: use split all"):
        select([first, second], None, "tune")


def test_user_csv_with_quoted_commas_and_newlines():
    text = 'prompt,category\n"Fix this, please: x = 1 +",code-editing\n"Line one\nline two",summarisation\n'
    prompts = parse_csv(text, "mine.csv")
    assert [p.category for p in prompts] == ["code-editing", "summarisation"]
    assert prompts[0].prompt == "Fix this, please: x = 1 +" and "line two" in prompts[1].prompt


@pytest.mark.parametrize("text, needle", [
    ('{"prompt": "a"}\n{"prompt": "b"\n', "x.jsonl line 2: not valid JSON"),
    ('{"prompt": "a"}\n\n["b"]\n', "x.jsonl line 3: must be a JSON object"),
    ('{"prompt": "a"}\n{"promt": "b"}\n', "x.jsonl line 2: needs a non-empty 'prompt' (text); fields found: promt"),
    ('{"prompt": "   "}\n', "x.jsonl line 1: needs a non-empty 'prompt'"),
    ('{"prompt": "a", "split": "train"}\n', "x.jsonl line 1: 'split' must be tune or test, got 'train'"),
    ('{"prompt": "a", "category": 3}\n', "x.jsonl line 1: 'category' must be text"),
    ('{"prompt": "a", "id": "q"}\n{"prompt": "b", "id": "q"}\n', "x.jsonl line 2: id 'q' is used twice (first at line 1)"),
    ("\n\n", "x.jsonl: the suite holds no prompts"),
])
def test_malformed_jsonl_names_the_line(text, needle):
    with pytest.raises(ArenaError) as err:
        parse_jsonl(text, "x.jsonl")
    assert needle in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("text, needle", [
    ("question,category\nWhat?,qa\n", "x.csv line 1: the header must name a 'prompt' column"),
    ("prompt,category\nHello,qa\nA, b,qa\n", "x.csv line 3: more fields than the header's 2"),
    ("prompt,category\nHello,qa\n,qa\n", "x.csv line 3: needs a non-empty 'prompt'"),
    ("prompt,split\nHello,train\n", "x.csv line 2: 'split' must be tune or test"),
    ("prompt\n", "x.csv: the suite holds no prompts"),
])
def test_malformed_csv_names_the_line(text, needle):
    with pytest.raises(ArenaError) as err:
        parse_csv(text, "x.csv")
    assert needle in str(err.value)


def test_byte_cap_applies_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.jsonl"
    path.write_text('{"prompt": "' + "x" * 200 + '"}\n', encoding="utf-8")
    monkeypatch.setattr(suite_module, "MAX_SUITE_BYTES", 100)
    with pytest.raises(ArenaError, match="larger than"):
        load_suite(path)


def test_format_follows_extension_then_content(tmp_path):
    path = tmp_path / "suite.txt"
    path.write_text('{"prompt": "JSON line"}\n', encoding="utf-8")
    assert load_suite(path)[0].prompt == "JSON line"
    path.write_text("prompt\nCSV line\n", encoding="utf-8")
    assert load_suite(path)[0].prompt == "CSV line"
    with pytest.raises(ArenaError, match="upload.jsonl line 1"):
        path.write_text("prompt\nCSV line\n", encoding="utf-8")
        load_suite(path, "upload.jsonl")
