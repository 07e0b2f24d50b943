"""Signals other apps connect to.

``session_closed`` is sent after the transaction closing a play session
commits, with ``sender=PlaySession`` and ``session=<PlaySession>``. The
progression app connects to it to run the experience/karma job.
"""

from django.dispatch import Signal

session_closed = Signal()
