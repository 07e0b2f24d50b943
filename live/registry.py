"""Who may listen to which channel.

Each app registers an authorizer for its channel prefix (``thread``,
``encounter``...). An authorizer takes ``(user, object_id)`` and returns a
:class:`Viewer` or ``None`` (the stream answers 404, as for any page the
user may not see).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Viewer:
    user_id: int | None
    is_gm: bool = False


Authorizer = Callable[[Any, int], Viewer | None]

_authorizers: dict[str, Authorizer] = {}


def register(prefix: str, authorizer: Authorizer) -> None:
    _authorizers[prefix] = authorizer


def authorize(prefix: str, user: Any, object_id: int) -> Viewer | None:
    authorizer = _authorizers.get(prefix)
    if authorizer is None:
        return None
    return authorizer(user, object_id)


def user_channel_authorizer(user: Any, object_id: int) -> Viewer | None:
    """``user:<id>``: a member's own notifications."""
    if user.is_authenticated and user.pk == object_id:
        return Viewer(user.pk, False)
    return None


register("user", user_channel_authorizer)
