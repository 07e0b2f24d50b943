"""``{% static %}`` with its answers kept (a template builtin, see ``TEMPLATES``; the site's templates
do not ``{% load static %}``, which would put Django's tag back).

Every page's layout names seven static files, and the manifest storage resolves each of them
(hashed name, quoting, joining with ``STATIC_URL``) on every request: about a sixth of the layout's
rendering (#21). The answer is a function of the path, the storage (its manifest is read once per
process) and the script prefix, so it is kept per process under the path and the prefix. A path that
does not resolve (a file missing from the manifest) raises as before and is never kept. The library
is Django's own otherwise (``get_static_prefix``, ``get_media_prefix``).
"""

from __future__ import annotations

from typing import Any

from django import template
from django.templatetags import static as django_static
from django.urls import get_script_prefix
from django.utils.safestring import SafeString

from config.urltag import Kept

register = template.Library()
register.tags.update(django_static.register.tags)
register.filters.update(django_static.register.filters)

#: Distinct static paths kept per process.
MAX_PATHS = 2_000
KEPT = Kept(MAX_PATHS)


class KeptStaticNode(django_static.StaticNode):
    @classmethod
    def handle_simple(cls, path: Any) -> str:
        if path.__class__ not in (str, SafeString):
            return super().handle_simple(path)
        key = (path, get_script_prefix())
        url = KEPT.get(key)
        if url is None:
            url = super().handle_simple(path)
            KEPT.put(key, url)
        return url


@register.tag("static")
def do_static(parser: Any, token: Any) -> KeptStaticNode:
    """Django's ``{% static %}`` (same syntax, same output), its answers kept (see the module docstring)."""
    return KeptStaticNode.handle_token(parser, token)


def _clear(**kwargs: Any) -> None:
    KEPT.clear()


try:  # a test that changes STATIC_URL or the storages gets fresh answers
    from django.test.signals import setting_changed

    setting_changed.connect(_clear, dispatch_uid="tablee-statictag")
except ImportError:  # pragma: no cover
    pass
