"""``{% url %}`` with its answers kept (config.urltag): the same output as Django's, never stale."""

from __future__ import annotations

from typing import Any

import pytest
from django.template import Context, Engine, engines
from django.urls import NoReverseMatch, reverse, set_script_prefix
from django.utils import translation

from config import urltag


def _render(source: str, **context: Any) -> str:
    return engines["django"].from_string(source).render(context)


def test_the_site_s_templates_use_the_kept_url_tag() -> None:
    template = engines["django"].from_string("{% url 'home' %}")
    assert any(isinstance(node, urltag.KeptURLNode) for node in template.template.nodelist)


@pytest.mark.parametrize(
    "source,context",
    [
        ("{% url 'campaigns:thread' 7 %}", {}),
        ("{% url 'campaigns:thread' thread_id=n %}", {"n": 12}),
        ("{% url 'campaigns:board' slug 3 %}", {"slug": "la-table"}),
        ("{% url 'home' as there %}[{{ there }}]", {}),
        ("{% url 'moderation:report_create' 'post' n %}", {"n": 5}),
    ],
)
def test_it_answers_as_django_s_tag(source: str, context: dict[str, Any]) -> None:
    urltag.KEPT.clear()
    plain = Engine(libraries={}, builtins=[]).from_string(source)  # Django's own {% url %}
    expected = plain.render(Context(context))
    assert _render(source, **context) == expected  # computed
    assert len(urltag.KEPT.items) == 1  # a literal route name (a SafeString) and plain ids: kept
    assert _render(source, **context) == expected  # kept


def test_a_changed_script_prefix_or_language_is_another_answer() -> None:
    urltag.KEPT.clear()
    source = "{% url 'campaigns:thread' 7 %}"
    assert _render(source) == reverse("campaigns:thread", args=[7])
    try:
        set_script_prefix("/tablee/")
        assert _render(source) == "/tablee" + reverse("campaigns:thread", args=[7]).removeprefix("/tablee")
        assert _render(source).startswith("/tablee/")
    finally:
        set_script_prefix("/")
    assert not _render(source).startswith("/tablee/")
    with translation.override("en"):
        assert _render(source) == reverse("campaigns:thread", args=[7])


def test_a_route_that_does_not_reverse_still_raises_and_is_not_kept() -> None:
    urltag.KEPT.clear()
    with pytest.raises(NoReverseMatch):
        _render("{% url 'campaigns:thread' 'not-a-number' %}")
    assert _render("{% url 'campaigns:thread' 'x' as there %}[{{ there }}]") == "[]"
    assert not urltag.KEPT.items


def test_values_that_are_not_plain_are_reversed_each_time() -> None:
    urltag.KEPT.clear()

    class Id(int):
        pass

    assert _render("{% url 'campaigns:thread' n %}", n=Id(4)) == reverse("campaigns:thread", args=[4])
    assert not urltag.KEPT.items
