"""The language a person reads the ledger in: Brazilian Portuguese (``pt``) or English
(``en``, the default and the language of the message ids).

Every text meant for a person is written in English inside ``_()`` (or ``ngettext``
for a count, ``pgettext`` where a short word needs context, ``N_`` to mark a text
translated later) with named ``{placeholders}``, and formatted after translation::

    _("card {card} is already in {zone}").format(card=card, zone=zone)
    ngettext("{n} card", "{n} cards", n).format(n=n)

The translations are gettext catalogs managed with Babel: ``ledger/locale/ledger.pot``
(extracted), ``ledger/locale/pt_BR/LC_MESSAGES/ledger.po`` (translated), compiled to
``ledger.mo`` when the package is built; a checkout compiles a missing or stale ``.mo``
on first use. ``python -m ledger.locale update`` re-extracts and merges the catalog
(``ledger/locale/__main__.py``).

Which language: ``--lang`` (the CLI), else ``$LEDGER_LANG``, else the locale
(``LC_ALL``, ``LC_MESSAGES``, ``LANG``), else English: ``from_environment``. The table
server speaks each request in its seat's language or its ``Accept-Language``
(``negotiate``); ``speaking`` sets the language of one request or command, a
``ContextVar`` so that requests served at once do not mix.
"""

from __future__ import annotations

import gettext
import inspect
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

ENGLISH = "en"
PORTUGUESE = "pt"
LANGUAGES = {ENGLISH: "English", PORTUGUESE: "Português (Brasil)"}
"""The languages the ledger speaks, by code, each named in itself."""
LOCALES = {PORTUGUESE: "pt_BR"}
"""The gettext locale of each translated language (English is the message ids)."""
DOMAIN = "ledger"
LOCALE_DIR = Path(__file__).with_name("locale")

_language: ContextVar[str] = ContextVar("ledger_language", default=ENGLISH)


def parse_language(value: str | None) -> str | None:
    """The language code a setting names (``pt``, ``pt_BR``, ``pt-BR``, ``pt_BR.UTF-8``,
    ``en_US``...), or None when it names none the ledger speaks (``C``, ``fr``, empty)."""
    if not value:
        return None
    code = value.strip().replace("-", "_").split(".")[0].split("@")[0].split("_")[0].lower()
    return code if code in LANGUAGES else None


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language a command speaks without ``--lang``: ``$LEDGER_LANG`` (which must name
    one the ledger speaks), else the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is
    set (a locale in another language means English), else English."""
    environ = os.environ if environ is None else environ
    chosen = environ.get("LEDGER_LANG", "").strip()
    if chosen:
        code = parse_language(chosen)
        if code is None:
            from .errors import BadInput  # here only: ledger.errors speaks through this module

            raise BadInput(f"LEDGER_LANG={chosen!r} is not a language the ledger speaks; use "
                           + " or ".join(LANGUAGES))
        return code
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if environ.get(name):
            return parse_language(environ[name]) or ENGLISH
    return ENGLISH


def negotiate(accept_language: str | None) -> str | None:
    """The language an HTTP ``Accept-Language`` header prefers among those the ledger
    speaks (highest ``q`` first, then order), or None when it accepts none of them."""
    best: tuple[float, int, str] | None = None
    for order, part in enumerate((accept_language or "").split(",")):
        tag, _sep, params = part.strip().partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _eq, value = param.strip().partition("=")
            if key.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        code = parse_language(tag)
        if code and quality > 0 and (best is None or (-quality, order) < (-best[0], best[1])):
            best = (quality, order, code)
    return best[2] if best else None


def language() -> str:
    """The language being spoken now (this request's, this command's)."""
    return _language.get()


@contextmanager
def speaking(code: str | None) -> Iterator[str]:
    """Speak ``code`` (None: keep the language) inside the block, then the one before."""
    token = _language.set(code if code in LANGUAGES else language())
    try:
        yield language()
    finally:
        _language.reset(token)


@cache
def translations(code: str) -> gettext.NullTranslations:
    """The compiled catalog of a language (English: the ids themselves)."""
    locale = LOCALES.get(code)
    if locale is None:
        return gettext.NullTranslations()
    folder = LOCALE_DIR / locale / "LC_MESSAGES"
    compiled, source = folder / f"{DOMAIN}.mo", folder / f"{DOMAIN}.po"
    try:
        stale = source.exists() and (not compiled.exists() or compiled.stat().st_mtime < source.stat().st_mtime)
    except OSError:
        stale = False
    if stale:  # a checkout: compile it now (the built package ships the .mo)
        from .locale.catalogs import compiled_catalog

        return gettext.GNUTranslations(compiled_catalog(source, compiled))
    if not compiled.exists():
        return gettext.NullTranslations()
    with compiled.open("rb") as mo:
        return gettext.GNUTranslations(mo)


def _(message: str) -> str:
    """``message`` in the language being spoken (English: the message itself, at once: a
    rebuild writes a summary per action)."""
    code = _language.get()
    return message if code == ENGLISH else translations(code).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural form for ``n``, as the language being spoken counts."""
    code = _language.get()
    if code == ENGLISH:
        return singular if n == 1 else plural
    return translations(code).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the sense ``context`` names (a short word, a label)."""
    return translations(language()).pgettext(context, message)


def N_(message: str) -> str:
    """Marks a text for translation where it is defined; ``_()`` translates it where shown."""
    return message


def N_plural(singular: str, plural: str) -> tuple[str, str]:
    """Marks a singular/plural pair for translation; ``ngettext`` translates it where shown."""
    return singular, plural


def help_text(text: str | None) -> str | None:
    """A help text (a docstring or a ``help=``), translated as extracted: docstrings are
    extracted as ``inspect.cleandoc`` gives them (``ledger.locale.catalogs``)."""
    if not text:
        return text
    return _(inspect.cleandoc(text))
