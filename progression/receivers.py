"""Signal receivers: a closed play session opens its award sheet and runs the job."""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)


def on_session_closed(sender: Any, session: Any = None, **kwargs: Any) -> None:
    from progression.services import start_session_review

    if session is None:
        return
    start_session_review(session)


def connect() -> None:
    try:
        from campaigns.signals import session_closed
    except ImportError:  # the campaigns app does not send it (yet)
        logger.warning("campaigns.signals.session_closed is missing: progression will not start on close")
        return
    session_closed.connect(on_session_closed, dispatch_uid="progression.on_session_closed")
