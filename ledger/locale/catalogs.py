"""Extracting, merging, checking and compiling the ledger's gettext catalogs with Babel.

What is extracted (``extract``): every ``_``, ``N_``, ``ngettext``, ``pgettext`` call in
``ledger`` and ``projections``; the ``help=`` texts of click options and the docstrings
of click commands (the CLI's help, as ``inspect.cleandoc`` gives them); the ``{% trans %}``
blocks and ``_()`` calls of the server's Jinja2 templates. ``python -m ledger.locale
update`` writes ``ledger.pot`` and merges it into each ``.po``; ``check`` lists what is
missing, fuzzy or broken (tests/test_i18n.py fails on any); ``compile`` writes
the ``.mo`` files (the build does it too: setup.py).
"""

from __future__ import annotations

import ast
import inspect
import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir, extract_python
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

HERE = Path(__file__).parent
ROOT = HERE.parent.parent
TEMPLATE = HERE / "ledger.pot"
SOURCES = ("ledger", "projections")
LOCALES = ("pt_BR",)
METHODS = [
    ("**/locale/**", "ignore"),
    ("**/templates/**.html", "jinja2.ext:babel_extract"),
    ("**/static/**.js", "javascript"),
    ("**.py", "ledger.locale.catalogs:extract_ledger"),
]
OPTIONS = {"**/templates/**.html": {"extensions": "jinja2.ext.i18n", "trimmed": "true"}}
HELP_CALLS = {"option", "argument", "command", "group", "Option", "Argument", "password_option"}
"""Calls whose ``help=`` (and ``short_help=``) is a help text: click's decorators."""
KEYWORDS = {**DEFAULT_KEYWORDS, "N_plural": (1, 2), "pgettext_noop": ((1, "c"), 2)}
"""gettext's functions, ``N_plural`` (a singular/plural pair translated later) and
``pgettext_noop`` (a word with its context, translated later)."""


def po_path(locale: str) -> Path:
    return HERE / locale / "LC_MESSAGES" / "ledger.po"


def extract_ledger(fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any) -> Iterator[tuple]:
    """Babel's Python extraction, plus the CLI's help texts: ``help=``/``short_help=`` of
    click's decorators and the docstrings of functions decorated as commands or groups."""
    source = fileobj.read()
    yield from extract_python(io.BytesIO(source), keywords, comment_tags, options)
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _called(node) in HELP_CALLS:
            for keyword in node.keywords:
                if keyword.arg in ("help", "short_help") and isinstance(keyword.value, ast.Constant) \
                        and isinstance(keyword.value.value, str):
                    yield keyword.value.lineno, None, inspect.cleandoc(keyword.value.value), []
        elif isinstance(node, ast.FunctionDef):
            makers = [d for d in node.decorator_list if _called(d) in ("command", "group")]
            doc = ast.get_docstring(node, clean=True)
            if makers and doc and not any(_has_help(d) for d in makers):
                yield node.lineno, None, doc, []


def _called(call: ast.AST) -> str | None:
    if not isinstance(call, ast.Call):
        return None
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None


def _has_help(decorator: ast.AST) -> bool:
    return isinstance(decorator, ast.Call) and any(k.arg == "help" for k in decorator.keywords)


def extract() -> Catalog:
    """Every text of the sources, as a template catalog."""
    catalog = Catalog(project="campaign-ledger", msgid_bugs_address="", charset="utf-8")
    for package in SOURCES:
        for filename, lineno, message, comments, context in extract_from_dir(
                ROOT / package, METHODS, OPTIONS, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",),
                strip_comment_tags=True):
            _add(catalog, message, f"{package}/{filename}", lineno, comments, context)
    return catalog


def extract_files(paths: list[Path]) -> Catalog:
    """The texts of some source files only (a fragment's worth: ``fragment``), each
    extracted by the method ``METHODS`` gives it, as ``extract`` would."""
    from babel.messages.extract import extract_from_file, pathmatch

    catalog = Catalog(project="campaign-ledger", charset="utf-8")
    for path in paths:
        name = path.as_posix()
        method = next(method for pattern, method in METHODS if pathmatch(pattern, name))
        options = next((o for pattern, o in OPTIONS.items() if pathmatch(pattern, name)), {})
        if method == "ignore":
            continue
        for lineno, message, comments, context in extract_from_file(
                method, str(path), keywords=KEYWORDS, comment_tags=("TRANSLATORS:",), options=options,
                strip_comment_tags=True):
            _add(catalog, message, str(path), lineno, comments, context)
    return catalog


def _add(catalog: Catalog, message: Any, where: str, lineno: int, comments: list[str], context: str | None) -> None:
    """One extracted text into a catalog, marked as a ``str.format`` text when it has braces."""
    flags = {"python-brace-format"} if _braced(message) else set()
    catalog.add(message, None, [(where, lineno)], auto_comments=comments, context=context, flags=flags)


def fragment(target: Path, paths: list[Path], locale: str = LOCALES[0]) -> list[str]:
    """Writes (or refreshes) a translation fragment: the texts of ``paths``, with the
    translations ``target`` already has, else those of the locale's catalog. Returns
    the ids still untranslated. ``merge`` brings fragments into the catalog."""
    template = extract_files(paths)
    known = [read(target, locale)] if target.exists() else []
    if po_path(locale).exists():
        known.append(read(po_path(locale), locale))
    out = Catalog(locale=locale, project="campaign-ledger", charset="utf-8")
    out._num_plurals, out._plural_expr = 2, "(n != 1)"
    for message in template:
        if not message.id:
            continue
        string = next((m.string for c in known if (m := c.get(message.id, message.context)) is not None
                       and _translated(m) and _same_shape(m, message)), None)
        out.add(message.id, string, message.locations, flags=message.flags, context=message.context,
                auto_comments=message.auto_comments)
    write(out, target)
    return [m.id for m in out if m.id and not _translated(m)]


def _same_shape(one, other) -> bool:
    """Both a singular text, or both a singular/plural pair (a text that became a count
    keeps no translation of its old shape)."""
    return isinstance(one.id, tuple) == isinstance(other.id, tuple)


def _translated(message) -> bool:
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    return bool(message.string) and all(strings) and not message.fuzzy


def merge(fragments: list[Path], locale: str = LOCALES[0]) -> int:
    """Re-extracts the catalog (``update``) and takes every translation the fragments
    give, under a lock (several people may merge at once). Returns how many it took."""
    import fcntl

    with (HERE / ".merge.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        update()
        catalog = read(po_path(locale), locale)
        taken = 0
        for path in fragments:
            for message in read(path, locale):
                ours = catalog.get(message.id, message.context) if message.id else None
                if ours is not None and _translated(message) and _same_shape(message, ours) \
                        and ours.string != message.string:
                    ours.string, taken = message.string, taken + 1
                    ours.flags.discard("fuzzy")
        write(catalog, po_path(locale))
        compiled_catalog(po_path(locale), po_path(locale).with_suffix(".mo"))
    return taken


def _braced(message: str | tuple[str, ...]) -> bool:
    return any("{" in m for m in ((message,) if isinstance(message, str) else message))


def read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=100, sort_output=False, omit_header=False, ignore_obsolete=True)


def update() -> None:
    """Re-extract ``ledger.pot`` and merge it into each locale's ``.po`` (new texts empty,
    texts gone dropped: the history keeps them)."""
    template = extract()
    write(template, TEMPLATE)
    for locale in LOCALES:
        path = po_path(locale)
        catalog = read(path, locale) if path.exists() else Catalog(locale=locale, project="campaign-ledger")
        catalog.update(template, update_header_comment=False, no_fuzzy_matching=True)
        catalog.fuzzy = False  # the header: it is ours, and a fuzzy header is left out of the .mo
        write(catalog, path)


def problems(locale: str) -> list[str]:
    """What is wrong with a locale's catalog against the sources: texts not in it, not
    translated, fuzzy, with a plural form missing, or breaking a format check."""
    catalog = read(po_path(locale), locale)
    found: list[str] = []
    for message in extract():
        if not message.id:
            continue
        ours = catalog.get(message.id, context=message.context)
        if ours is None:
            found.append(f"missing: {message.id!r}")
        elif ours.fuzzy:
            found.append(f"fuzzy: {message.id!r}")
        elif not all(ours.string if isinstance(ours.string, tuple) else (ours.string,)):
            found.append(f"untranslated: {message.id!r}")
        elif ours.pluralizable and len(ours.string) != catalog.num_plurals:
            found.append(f"plural forms: {message.id!r}")
    for message, errors in catalog.check():
        found.extend(f"check: {message.id!r}: {error}" for error in errors)
    for message in catalog:
        if message.id and message.string and not message.fuzzy:
            found.extend(f"placeholders: {message.id!r}: {p}" for p in _placeholder_problems(message))
    return found


def _placeholder_problems(message) -> list[str]:
    """A translation must use exactly the ``{names}`` of its id (str.format would fail or
    drop a value otherwise)."""
    import string

    def names(text: str) -> set[str]:
        try:
            return {field for _lit, field, _spec, _conv in string.Formatter().parse(text) if field is not None}
        except ValueError:
            return {"<malformed>"}

    ids = (message.id,) if isinstance(message.id, str) else message.id
    strings = (message.string,) if isinstance(message.string, str) else message.string
    wanted = set().union(*(names(i) for i in ids))
    return [f"{s!r} uses {sorted(names(s))}, not {sorted(wanted)}" for s in strings
            if "{" in "".join(ids) and names(s) - wanted]


def compiled_catalog(source: Path, target: Path | None = None) -> io.BytesIO:
    """A ``.po`` compiled to ``.mo`` bytes, also written to ``target`` when it can be."""
    buffer = io.BytesIO()
    write_mo(buffer, read(source), use_fuzzy=False)
    if target is not None:  # whole or not at all: other processes may be reading it at once
        scratch = target.with_name(f".{target.name}.{os.getpid()}.partial")
        try:
            scratch.write_bytes(buffer.getvalue())
            os.replace(scratch, target)
        except OSError:  # an installed package may be read-only: use it from memory
            scratch.unlink(missing_ok=True)
    buffer.seek(0)
    return buffer


def compile_all(folder: Path = HERE) -> list[Path]:
    """Compile every ``.po`` under ``folder`` next to itself (the build calls this)."""
    written = []
    for source in sorted(folder.glob("*/LC_MESSAGES/*.po")):
        compiled_catalog(source, source.with_suffix(".mo"))
        written.append(source.with_suffix(".mo"))
    return written
