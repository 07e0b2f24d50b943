"""Signals the combat app sends; higher apps connect to them in their ``AppConfig.ready()``.

Combat sits below the rhythm of play (README.md, "Architecture"): it never imports ``rhythm``.
What the rhythm does when a fight needs someone (tell a defender to choose) is a
receiver of these signals.

``defence_asked`` is sent inside the transaction of
:func:`combat.services.reveal_declarations`, once per player-controlled target asked to
choose a defence, with ``sender=Encounter`` and ``actor`` (the GM revealing),
``encounter`` and ``target`` (the :class:`~combat.models.Participant`). A receiver that
writes does so in that transaction: a rollback leaves no trace of it.
"""

from django.dispatch import Signal

defence_asked = Signal()
