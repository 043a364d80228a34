"""``python -m ledger.locale update|check|compile``: re-extract and merge the catalogs,
list what is missing or wrong in them, or compile them; ``fragment OUT.po FILE...``
writes the texts of some files to translate apart, ``merge FRAGMENT.po...`` takes
their translations into the catalog (ledger.locale.catalogs)."""

import sys
from pathlib import Path

from .catalogs import LOCALES, compile_all, fragment, merge, problems, update


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    if command == "update":
        update()
    if command in ("update", "check"):
        found = [f"{locale}: {p}" for locale in LOCALES for p in problems(locale)]
        print("\n".join(found) or "every text translated")
        return 1 if found and command == "check" else 0
    if command == "compile":
        for path in compile_all():
            print(path)
        return 0
    if command == "fragment" and len(argv) > 2:
        left = fragment(Path(argv[1]), [Path(p) for p in argv[2:]])
        print("\n".join(f"untranslated: {m!r}" for m in left) or "every text of those files translated")
        return 0
    if command == "merge" and len(argv) > 1:
        print(f"{merge([Path(p) for p in argv[1:]])} translations taken")
        return 0
    print("usage: python -m ledger.locale update|check|compile|fragment OUT.po FILE...|merge FRAGMENT.po...",
          file=sys.stderr)
    return 2


sys.exit(main(sys.argv[1:]))
