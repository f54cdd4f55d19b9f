"""Every English sentence template the page can show from the floors below it (docs/DESIGN.md §4.10), harvested from
the source with Python's ast: the lines given to an ArenaError (or a subclass) anywhere in app/ outside app/cli, the
progress and loading messages (the first argument of a ``progress(...)`` call), and the sentences of the functions
in :data:`SENTENCE_FUNCTIONS` (the why panel's verdict, the trust verdicts, the download line, the divergence badge,
a side's failure, the sampling check's verdict, the line of an unexpected error).

An f-string becomes a template with ``{name}`` placeholders: the name of a simple name or of an attribute's last
part, else a stable name made from the expression (``{len(files)}`` -> ``{files}``, ``{i + 1}`` -> ``{i}``,
``{r["id"]}`` -> ``{r_id}``); the same expression twice is the same placeholder, a different one of the same name is
numbered (``{name_2}``). A conditional expression gives one template per branch. A line built from a variable the
harvest cannot read is a dynamic site: :data:`DYNAMIC` lists the known ones (each passes on a line made elsewhere).

Run as a script, it prints every template with where it comes from."""

from __future__ import annotations

import ast
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "app"
#: Folders whose lines are the command line's (English, a contract): not harvested.
EXCLUDED = ("app/cli/",)
#: The error classes (ArenaError's subclasses are found in the source and added).
ERRORS = {"ArenaError"}
#: Functions whose every sentence the page shows: file -> function names.
SENTENCE_FUNCTIONS = {
    "app/race/why.py": ("_rounds_sentence", "_advice", "_where_the_time_went", "_what_costs", "_what_to_try"),
    "app/race/trust.py": ("check_kept", "too_old", "failed_check", "conditions_differ", "unexplained"),
    "app/race/verdict.py": ("unmeasured_reason", "judge", "pooled"),
    "app/race/_sides.py": ("describe_error",),
    "app/core/download.py": ("progress_text",),
    "app/race/result.py": ("divergence_reason", "failure"),
    "app/ui/boundary.py": ("unexpected_error_text",),
    "app/deploy/build.py": ("unsupported_message",),
    "app/race/methods.py": ("explain",),
    "app/race/sampling_check_result.py": ("verdict_words", "warning"),
}
#: Calls whose first argument is a progress or loading message (a bare or attribute call of this name).
PROGRESS_CALLS = {"progress"}
#: Error sites that pass on a line made elsewhere: file -> how many. Each line is harvested where it is made, or
#: is made of harvested lines: a deploy refusal (``unsupported_message``), a planner race's side errors joined with
#: "; " (each an ArenaError line of its own), a race's failure (``RaceResult.failure``).
DYNAMIC: dict[str, int] = {"app/deploy/build.py": 1, "app/planner/check.py": 1, "app/race/result.py": 1}
#: A template is a sentence when its literal text holds a word of three letters and a space.
_WORDY = re.compile(r"[A-Za-z]{3,}")
#: Builtins and helpers whose call reads as their first argument's value.
_TRANSPARENT = {"str", "repr", "len", "round", "int", "float", "abs", "max", "min", "sorted", "list", "tuple", "set",
                "esc", "size_text", "format"}


@dataclass
class Harvest:
    """templates: English template -> the places (file:line) it comes from; dynamic: file:line of error sites whose
    line the harvest cannot read."""

    templates: dict[str, list[str]] = field(default_factory=dict)
    dynamic: list[str] = field(default_factory=list)

    def add(self, template: str, where: str) -> None:
        self.templates.setdefault(template, []).append(where)


def name_of(node: ast.expr) -> str:
    """A placeholder name for the expression `node` (stable: the same code gives the same name)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return name_of(node.value) if node.attr.startswith("__") else node.attr
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "join" and node.args:
            return name_of(node.args[0])
        if isinstance(func, ast.Name) and func.id == "getattr" and len(node.args) > 1 \
                and isinstance(node.args[1], ast.Constant):
            return str(node.args[1].value)
        if isinstance(func, ast.Name) and func.id in _TRANSPARENT and node.args:
            return name_of(next((a for a in node.args if not isinstance(a, ast.Constant)), node.args[0]))
        if isinstance(func, ast.Attribute) and not node.args and func.attr in ("lower", "upper", "strip", "title"):
            return name_of(func.value)
        return name_of(func)
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return name_of(node.value) + "_" + re.sub(r"\W", "_", key.value)
        return name_of(node.value)
    if isinstance(node, ast.BinOp):
        return name_of(node.left)
    if isinstance(node, ast.UnaryOp):
        return name_of(node.operand)
    if isinstance(node, (ast.GeneratorExp, ast.ListComp)):
        return name_of(node.elt)
    if isinstance(node, ast.Compare):
        return name_of(node.left)
    if isinstance(node, ast.IfExp):
        return name_of(node.body)
    if isinstance(node, ast.BoolOp):
        return name_of(node.values[0])
    return "value"


class _Names:
    """The placeholders of one template: the same expression -> the same name, another of that name -> numbered."""

    def __init__(self) -> None:
        self.by_code: dict[str, str] = {}

    def __call__(self, node: ast.expr) -> str:
        code = ast.unparse(node)
        if code not in self.by_code:
            base, taken = name_of(node), set(self.by_code.values())
            name = base if base not in taken else next(f"{base}_{i}" for i in itertools.count(2)
                                                       if f"{base}_{i}" not in taken)
            self.by_code[code] = name
        return "{" + self.by_code[code] + "}"


def _stringy(node: ast.expr) -> bool:
    """Whether `node` is text the harvest can read (a literal, an f-string, their sums and conditionals)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _stringy(node.left) or _stringy(node.right)
    if isinstance(node, ast.IfExp):
        return _stringy(node.body) and _stringy(node.orelse)
    return False


def alternatives(node: ast.expr, names: _Names, local: dict[str, ast.expr] | None = None) -> list[str]:
    """Every text `node` can be, as templates (one per branch of a conditional in it); `local`: the function's names
    bound once to a text (``hint = f" Did you mean {x}?" if close else ""``), read in place."""
    local = local or {}
    if isinstance(node, ast.Name) and node.id in local:
        return alternatives(local[node.id], names, local)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append([str(value.value)])
            elif isinstance(value, ast.FormattedValue) and value.format_spec is None and value.conversion == -1 \
                    and (_stringy(value.value) or isinstance(value.value, ast.Name) and value.value.id in local):
                parts.append(alternatives(value.value, names, local))
            else:
                parts.append([names(value.value)])  # type: ignore[attr-defined]
        return ["".join(p) for p in itertools.product(*parts)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and _stringy(node):
        return [a + b for a, b in itertools.product(alternatives(node.left, names, local),
                                                    alternatives(node.right, names, local))]
    if isinstance(node, ast.IfExp) and _stringy(node):
        return alternatives(node.body, names, local) + alternatives(node.orelse, names, local)
    return [names(node)]


def module_texts(tree: ast.Module) -> dict[str, ast.expr]:
    """A module's names bound once, at its top, to a literal text (``DOWNLOADING = "Downloading "``)."""
    bound: dict[str, list[ast.expr]] = {}
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
    return {name: values[0] for name, values in bound.items()
            if len(values) == 1 and isinstance(values[0], ast.Constant) and isinstance(values[0].value, str)}


def local_texts(fn: ast.AST) -> dict[str, ast.expr]:
    """The names a function binds exactly once, to a text, and never changes (`hint = ...`)."""
    bound: dict[str, list[ast.expr | None]] = {}
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(node.value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name):
            bound.setdefault(node.target.id, []).append(None)
        elif isinstance(node, (ast.For, ast.comprehension)):
            for target in ast.walk(node.target):
                if isinstance(target, ast.Name):
                    bound.setdefault(target.id, []).append(None)
    return {name: values[0] for name, values in bound.items()
            if len(values) == 1 and values[0] is not None and _stringy(values[0])}


def normal(text: str) -> str:
    """A template as the page shows it: whitespace collapsed (as ArenaError does), without the '; ' or ' ' a piece
    appended to a sentence starts with."""
    text = " ".join(text.split())
    return re.sub(r"^[;,]\s*", "", text)


def is_sentence(template: str) -> bool:
    """Whether `template`'s own words (its placeholders left out) make a sentence to translate."""
    literal = re.sub(r"\{\w+\}", "", template)
    return bool(_WORDY.search(literal)) and " " in literal.strip()


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _error_classes(trees: dict[str, ast.Module]) -> set[str]:
    """ArenaError and every class of app/ that derives from it (directly or not)."""
    found, bases = set(ERRORS), {}
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases[node.name] = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in node.bases}
    while True:
        more = {name for name, of in bases.items() if of & found} - found
        if not more:
            return found
        found |= more


def _sources() -> dict[str, ast.Module]:
    out = {}
    for path in sorted(APP.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if not rel.startswith(EXCLUDED):
            out[rel] = ast.parse(path.read_text(encoding="utf-8"))
    return out


def _add_texts(harvest: Harvest, node: ast.expr, where: str, local: dict[str, ast.expr] | None = None) -> None:
    for text in alternatives(node, _Names(), local):
        template = normal(text)
        if is_sentence(template):
            harvest.add(template, where)


def _function_texts(fn: ast.AST) -> list[ast.expr]:
    """The outermost text expressions of a function (its docstring left out)."""
    out: list[ast.expr] = []
    body = list(getattr(fn, "body", []))
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Compare):  # a text looked for ("... in text"), not one shown
            return
        if isinstance(node, ast.expr) and _stringy(node):
            out.append(node)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    for stmt in body:
        visit(stmt)
    return out


def _scopes(tree: ast.Module) -> Iterator[tuple[ast.AST, ast.AST]]:
    """(node, the innermost function around it, or the module) for every node of `tree`."""
    def visit(node: ast.AST, scope: ast.AST) -> Iterator[tuple[ast.AST, ast.AST]]:
        yield node, scope
        inner = node if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else scope
        for child in ast.iter_child_nodes(node):
            yield from visit(child, inner)
    yield from visit(tree, tree)


def _translated(node: ast.expr) -> bool:
    """A line already in the visitor's language (a ``t(key)`` of the words' tables)."""
    return isinstance(node, ast.Call) and _call_name(node) == "t"


def harvest(sources: dict[str, str] | None = None) -> Harvest:
    """Every template of app/ (outside app/cli) the page can show, with where each comes from; `sources` (file ->
    Python source) harvests those instead (the tests' own snippets)."""
    trees = _sources() if sources is None else {rel: ast.parse(text) for rel, text in sources.items()}
    out = Harvest()
    errors = _error_classes(trees)
    for rel, tree in trees.items():
        module = module_texts(tree)
        locals_of: dict[int, dict[str, ast.expr]] = {}
        for node, scope in _scopes(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name, arg = _call_name(node), node.args[0]
            if name not in errors and name not in PROGRESS_CALLS:
                continue
            local = locals_of.setdefault(id(scope), {**module, **(local_texts(scope) if scope is not tree else {})})
            where = f"{rel}:{node.lineno}"
            readable = _stringy(arg) or isinstance(arg, ast.Name) and arg.id in local
            if readable:
                _add_texts(out, arg, where, local)
            elif name in errors and not _translated(arg):
                out.dynamic.append(where)
        wanted = SENTENCE_FUNCTIONS.get(rel, ())
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) and fn.name in wanted:
                local = {**module, **local_texts(fn)}
                for text in _function_texts(fn):
                    _add_texts(out, text, f"{rel}:{text.lineno}", local)
    return out


def templates() -> dict[str, list[str]]:
    """English template -> where it comes from."""
    return harvest().templates


if __name__ == "__main__":
    found = harvest()
    for template, places in sorted(found.templates.items()):
        print(f"{template}\n    {', '.join(places)}")
    print(f"\n{len(found.templates)} templates; dynamic sites: {', '.join(found.dynamic) or 'none'}")
