"""The gettext catalogs of the sentences written below the page (docs/DESIGN.md §4.10), kept Babel's way. A
contributor who adds or rewords a ``msg(...)`` sentence runs::

    python -m app.core.words.catalogs

which does what these two commands do (from the repository's root)::

    pybabel extract -F babel.cfg -k msg --no-default-keywords --no-wrap --sort-by-file \\
        -o app/core/words/locale/messages.pot .
    pybabel update -i app/core/words/locale/messages.pot -d app/core/words/locale -D messages \\
        --previous --no-wrap --ignore-obsolete

A new template arrives in each language's ``messages.po`` untranslated; a reworded one arrives marked ``#, fuzzy``
with its nearest old translation and the old English (``#| msgid``), and stays English on the page until a translator
edits the ``msgstr`` and removes the fuzzy mark. tests/core/test_words_messages.py fails until every template has a
confirmed translation. :func:`extract` is the same extraction in process (the tests use it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from . import DOMAIN, LOCALE

ROOT = Path(__file__).resolve().parents[3]
#: The extraction's map of sources (app/ but app/cli, whose words are English: a contract) and its one keyword.
MAPPING = ROOT / "babel.cfg"
KEYWORD = "msg"
TEMPLATE = LOCALE / f"{DOMAIN}.pot"
#: The languages with a catalog (English is the templates themselves).
CATALOGS = ("ko", "id")


def extract() -> dict[str, list[str]]:
    """Every template of a ``msg(...)`` call under the mapping: message id -> where it is (file:line)."""
    from babel.messages.extract import extract_from_dir
    from babel.messages.frontend import parse_mapping_cfg

    with MAPPING.open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f)
    out: dict[str, list[str]] = {}
    for filename, lineno, message, _, _ in extract_from_dir(str(ROOT), method_map, options_map,
                                                            keywords={KEYWORD: None}):
        if isinstance(message, str):
            out.setdefault(message, []).append(f"{filename}:{lineno}")
    return out


def main() -> int:
    """Extract the templates into ``messages.pot`` and update each language's ``messages.po`` from it."""
    from babel.messages.frontend import CommandLineInterface

    os.chdir(ROOT)  # the catalogs name each place relative to the root
    LOCALE.mkdir(exist_ok=True)
    template, locale = (str(p.relative_to(ROOT)) for p in (TEMPLATE, LOCALE))
    cli = CommandLineInterface()
    cli.run(["pybabel", "-q", "extract", "-F", MAPPING.name, "-k", KEYWORD, "--no-default-keywords", "--no-wrap",
             "--sort-by-file", "--project", "assisted-decoding-arena", "-o", template, "."])
    for lang in CATALOGS:
        cli.run(["pybabel", "-q", "update", "-i", template, "-d", locale, "-D", DOMAIN, "-l", lang, "--previous",
                 "--no-wrap", "--ignore-obsolete"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
