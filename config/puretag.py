"""``{% include_pure %}``: a fragment rendered from the values it is given, kept per process.

Some fragments are a pure function of a few values. The sheet page's headline and groups are laid
out from the sheet and the rules' derived values (``characters.sheetform.sheet_page``), and
rendering the two took about an eighth of the page (#21) although they change only when the sheet
does.

``{% include_pure "characters/_sheet_view.html" groups=page.groups %}`` renders the template with
those names only: nothing else from the page's context (no request, no member, no CSRF token), as
``{% include ... only %}`` does. Its output is then a function of the values, the template, the
active language and time zone alone, and it is kept under exactly those: the template's name, the
language, the time zone and a digest of the values' pickle. Equal values give the same HTML whoever
reads the page; a reader shown other values (a GM sees the creation groups) gets another key, so no
reader is ever served a fragment made from someone else's values.

Pass plain values (text, numbers, lists and dicts of them): a model instance would be pickled
whole, the related objects it holds included. A value that cannot be pickled renders each time.
With ``DEBUG`` (templates edited while the server runs) nothing is kept.
"""

from __future__ import annotations

import hashlib
import pickle
from typing import Any

from django import template
from django.conf import settings
from django.template import Context
from django.template.base import FilterExpression, Node
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from config.urltag import Kept

register = template.Library()

#: Fragments kept per process (a sheet's headline and groups are a few KB each).
MAX_FRAGMENTS = 2_000

KEPT = Kept(MAX_FRAGMENTS)


def _digest(values: dict[str, Any]) -> bytes | None:
    """A digest of the values' pickle, ``None`` when they cannot be pickled."""
    try:
        data = pickle.dumps(sorted(values.items()), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # a lazy object, an open file...: rendered each time
        return None
    return hashlib.blake2b(data, digest_size=20).digest()


class PureIncludeNode(Node):
    def __init__(self, template_name: str, values: dict[str, FilterExpression]) -> None:
        self.template_name = template_name
        self.values = values

    def render(self, context: Any) -> SafeString:
        values = {name: value.resolve(context) for name, value in self.values.items()}
        key: tuple[Any, ...] | None = None
        if not settings.DEBUG:
            digest = _digest(values)
            if digest is not None:
                key = (self.template_name, get_language(), timezone.get_current_timezone_name(), digest)
                kept = KEPT.get(key)
                if kept is not None:
                    return kept  # type: ignore[return-value]
        fragment = context.template.engine.get_template(self.template_name)
        html = mark_safe(
            fragment.render(
                Context(values, autoescape=context.autoescape, use_l10n=context.use_l10n, use_tz=context.use_tz)
            )
        )
        if key is not None:
            KEPT.put(key, html)
        return html


@register.tag
def include_pure(parser: Any, token: Any) -> PureIncludeNode:
    """``{% include_pure "template.html" name=value ... %}`` (see the module docstring)."""
    bits = token.split_contents()
    if len(bits) < 2 or bits[1][0] not in "\"'" or bits[1][-1] != bits[1][0]:
        raise template.TemplateSyntaxError(f"{bits[0]} takes a quoted template name, then name=value pairs")
    values: dict[str, FilterExpression] = {}
    for bit in bits[2:]:
        name, sep, expression = bit.partition("=")
        if not sep or not name.isidentifier():
            raise template.TemplateSyntaxError(f"{bits[0]}: {bit!r} is not name=value")
        values[name] = parser.compile_filter(expression)
    return PureIncludeNode(bits[1][1:-1], values)


def _clear(**kwargs: Any) -> None:
    KEPT.clear()


try:  # a test that changes a setting (formats, languages, DEBUG) starts from nothing kept
    from django.test.signals import setting_changed

    setting_changed.connect(_clear, dispatch_uid="tablee-puretag")
except ImportError:  # pragma: no cover
    pass
