"""``{% url %}`` with its answers kept (a template builtin that replaces Django's, see ``TEMPLATES``).

A page reverses the same few dozen routes on every request (the thread page: 26 ``{% url %}``, about
a tenth of its rendering, #21). ``reverse()`` is a pure function of the route's name, its arguments,
the current application, the URLconf, the script prefix and the language, so its answer is kept per
process under exactly those values; a route that does not reverse is never kept and raises as before.
Arguments that are not plain values (a model instance, a lazy string) are reversed each time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from django import template
from django.template.defaulttags import URLNode
from django.template.defaulttags import url as django_url
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString
from django.utils.translation import get_language

register = template.Library()

#: Distinct URLs kept per process.
MAX_URLS = 20_000
#: Exactly these types (a subclass such as an enum may print otherwise than it compares): template
#: literals resolve to SafeString, ids to int.
_PLAIN = frozenset({str, SafeString, int})


class Kept:
    """Answers kept per process, the oldest dropped past ``size`` (also {% include_pure %}'s, config.puretag)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[tuple[Any, ...], str] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: tuple[Any, ...]) -> str | None:
        return self.items.get(key)  # one dict read: atomic under the GIL (writes take the lock)

    def put(self, key: tuple[Any, ...], url: str) -> None:
        with self.lock:
            self.items[key] = url
            if len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()


KEPT = Kept(MAX_URLS)


def _plain(value: Any) -> bool:
    return value.__class__ in _PLAIN


class KeptURLNode(URLNode):
    def render(self, context: Any) -> str:
        args = [arg.resolve(context) for arg in self.args]
        kwargs = {k: v.resolve(context) for k, v in self.kwargs.items()}
        view_name = self.view_name.resolve(context)
        try:
            current_app = context.request.current_app
        except AttributeError:
            try:
                current_app = context.request.resolver_match.namespace
            except AttributeError:
                current_app = None
        key: tuple[Any, ...] | None = None
        if _plain(view_name) and all(_plain(a) for a in args) and all(_plain(v) for v in kwargs.values()):
            key = (
                view_name,
                tuple(args),
                tuple(sorted(kwargs.items())),
                current_app,
                get_urlconf(),
                get_script_prefix(),
                get_language(),
            )
        url = KEPT.get(key) if key is not None else None
        if url is None:
            url = ""
            try:
                url = reverse(view_name, args=args, kwargs=kwargs, current_app=current_app)
            except NoReverseMatch:
                if self.asvar is None:
                    raise
            else:
                if key is not None:
                    KEPT.put(key, url)
        if self.asvar:
            context[self.asvar] = url
            return ""
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser: Any, token: Any) -> KeptURLNode:
    """Django's ``{% url %}`` (same syntax, same output), its answers kept (see the module docstring)."""
    node = django_url(parser, token)
    return KeptURLNode(node.view_name, node.args, node.kwargs, node.asvar)


def _clear(**kwargs: Any) -> None:
    KEPT.clear()


try:  # tests that swap the URLconf or the script prefix get fresh answers anyway (they are in the key)
    from django.test.signals import setting_changed

    setting_changed.connect(_clear, dispatch_uid="tablee-urltag")
except ImportError:  # pragma: no cover
    pass
