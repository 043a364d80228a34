"""The build compiles the translations (``ledger/locale/*/LC_MESSAGES/*.po`` → ``.mo``)
into the built package, so an installed ledger never compiles them itself
(ledger.locale.catalogs). Everything else about the project is in pyproject.toml."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class build_with_translations(build_py):
    def run(self) -> None:
        super().run()
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        for source in Path("ledger/locale").glob("*/LC_MESSAGES/*.po"):
            target = Path(self.build_lib) / source.with_suffix(".mo")
            if getattr(self, "editable_mode", False):  # an editable install runs from the checkout
                target = source.with_suffix(".mo")
            target.parent.mkdir(parents=True, exist_ok=True)
            with source.open("rb") as po, target.open("wb") as mo:
                write_mo(mo, read_po(po), use_fuzzy=False)


setup(cmdclass={"build_py": build_with_translations})
