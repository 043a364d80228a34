"""``python -m ledger`` runs the ``ledger`` command."""

from .cli import main

main()
