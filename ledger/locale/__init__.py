"""The ledger's translations: ``ledger.pot`` (every text extracted from the sources),
``pt_BR/LC_MESSAGES/ledger.po`` (Brazilian Portuguese) and the tools that extract,
merge, check and compile them (``catalogs``; ``python -m ledger.locale``)."""
