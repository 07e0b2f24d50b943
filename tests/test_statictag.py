"""``{% static %}`` with its answers kept (config.statictag): Django's output, never stale."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.template import Context, Engine, engines
from django.test import override_settings

from config import statictag

ROOT = Path(__file__).resolve().parent.parent


def _render(source: str, **context: object) -> str:
    return engines["django"].from_string(source).render(context)


@pytest.fixture(autouse=True)
def _nothing_kept() -> object:
    statictag.KEPT.clear()
    yield
    statictag.KEPT.clear()


@pytest.mark.parametrize(
    "source,context",
    [
        ("{% static 'css/tablee.css' %}", {}),
        ("{% static path %}", {"path": "js/tablee.js"}),
        ("{% static 'css/tablee.css' as sheet %}[{{ sheet }}]", {}),
        ("{% static 'a file&name.css' %}", {}),
    ],
)
def test_it_answers_as_django_s_tag(source: str, context: dict[str, object]) -> None:
    django_tag = Engine(libraries={"static": "django.templatetags.static"}).from_string("{% load static %}" + source)
    expected = django_tag.render(Context(context))
    assert _render(source, **context) == expected  # computed
    assert len(statictag.KEPT.items) == 1
    assert _render(source, **context) == expected  # kept


def test_a_changed_static_url_is_not_served_from_what_was_kept() -> None:
    before = _render("{% static 'css/tablee.css' %}")
    with override_settings(STATIC_URL="/assets/"):
        after = _render("{% static 'css/tablee.css' %}")
    assert before.startswith("/static/") and after.startswith("/assets/")


def _site_templates() -> list[Path]:
    """The site's templates (``templates/`` and each app's), not the overrides of drf-spectacular's pages."""
    paths: list[Path] = []
    for top in sorted(ROOT.iterdir()):
        if not top.is_dir() or top.name.startswith("."):
            continue
        found = top.glob("**/*.html") if top.name == "templates" else top.glob("**/templates/**/*.html")
        paths += [path for path in found if "drf_spectacular" not in path.parts]
    return paths


def _loads_static(path: Path) -> bool:
    return any("static" in tag.split("%}")[0].split() for tag in path.read_text().split("{% load ")[1:])


def test_the_site_s_templates_use_the_kept_tag() -> None:
    """A template of the site that loads Django's ``static`` library gets the tag that resolves each time."""
    templates = _site_templates()
    assert ROOT / "templates" / "base.html" in templates
    assert [str(path.relative_to(ROOT)) for path in templates if _loads_static(path)] == []
    template = engines["django"].from_string("{% static 'css/tablee.css' %}")
    assert isinstance(template.template.nodelist[0], statictag.KeptStaticNode)
