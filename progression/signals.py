"""What progression tells the apps above it (the rhythm's notifications), without importing them."""

from django.dispatch import Signal

#: A GM confirmed a session's awards: ``actor``, ``session``, ``characters`` (those awarded, by id).
awards_confirmed = Signal()
