"""Steps of a character's play loop, for the apps above (rhythm tells the right people).

Sent by :mod:`characters.services` inside the write's transaction (a receiver's
notification rolls back with it), with ``actor`` and the ``character`` or the
``change`` request. The characters app never imports who listens.
"""

from __future__ import annotations

from django.dispatch import Signal

#: The owner handed a draft to the GMs (``actor``, ``character``).
sheet_submitted = Signal()
#: A GM sent a submitted sheet back to draft (``actor``, ``character``).
sheet_returned = Signal()
#: A GM approved a sheet (``actor``, ``character``).
sheet_approved = Signal()
#: A change request (or a purchase) was opened (``actor``, ``change``).
change_opened = Signal()
#: A change request was approved or rejected (``actor``, ``change``).
change_decided = Signal()
