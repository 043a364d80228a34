"""The ways in: the ``ledger`` command, the demo and the simulator (and, next, the
table server). They wire the write side (``ledger``) to the read side
(``projections``); neither of those imports anything from here."""
