"""``python -m ledger`` runs the ``ledger`` command."""

from .interface.cli import main

main()
