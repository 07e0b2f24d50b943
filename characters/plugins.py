"""System plug-ins: what only one rule system has, reached through one registry.

A plug-in is a Django app of its own under ``systems/<name>/`` (as Healthchecks
keeps each integration whole in ``hc/integrations/<kind>/``): its models,
services, views, URLs, API routes, templates, tasks and tests. In its
``AppConfig.ready()`` it calls :func:`register` with one :class:`SystemPlugin`
for its system's slug. The generic apps ask this registry (or the other
registries they define: :mod:`live.registry` for live channels,
:mod:`config.exporters` for "my data") and never name a system nor import a
plug-in (``tests/test_no_system_slugs.py``).

What a plug-in may add:

* ``urls``: a URLconf (dotted path, with its own ``app_name``) that
  ``config.urls`` mounts under ``/characters/``;
* ``api_urls``: a module whose ``urlpatterns`` join ``/api/v1/`` (names in the
  ``api`` namespace);
* ``wizard_panels(request, character, step, sheet)``: panels above a creation
  step's form (a server roll, a template chooser, a note);
* ``roster_panels(request, campaign)``: panels of a campaign's roster
  (``slot="toolbar"`` buttons, ``slot="main"`` sections below the list);
* ``sheet_parts(character, derived)``: its parts of the character read model
  (:mod:`characters.read`); ``full_only`` parts reach the owner and the GMs
  only, whatever the transport (page, fragment, API);
* ``sheet_context(character)``: what the rules must know beyond the sheet
  (:class:`rules.base.SheetContext` fields, e.g. ``in_auction``);
* ``already_paid(character, draft)``: what a creation ledger line was already
  charged by the plug-in (an auction's bids), written as the difference only;
* ``version_reasons``: the ``gettext_noop`` reasons it writes in sheet
  versions, shown again in the reader's language by the history page.

Adding a system: ``rules/<slug>/`` and, optionally, ``systems/<name>/`` (picked
up by ``config.settings``); nothing else changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import TYPE_CHECKING, Any

from django.urls import include, path

if TYPE_CHECKING:  # annotations only: the registry imports no model at load time
    from django.http import HttpRequest

    from campaigns.models import Campaign
    from characters.models import Character
    from rules.base import LedgerDraft


@dataclass(frozen=True)
class Panel:
    """A piece of a page a plug-in renders: ``template`` gets ``panel`` (this object) in its context."""

    template: str
    data: Mapping[str, Any] = field(default_factory=dict)
    #: Where the page puts it (roster: ``"toolbar"`` or ``"main"``; wizard: ``"main"``).
    slot: str = "main"


@dataclass(frozen=True)
class SheetPart:
    """A plug-in's part of the character read model.

    ``data`` is plain JSON (the API renders it as is, under ``parts.<key>``);
    ``template`` renders it on the sheet page (context: ``part``, ``character``).
    ``full_only`` parts are dropped for whoever does not see the full sheet.
    """

    key: str
    data: Any
    template: str = ""
    full_only: bool = False


WizardPanels = Callable[["HttpRequest", "Character", str, dict[str, Any]], list[Panel]]
RosterPanels = Callable[["HttpRequest", "Campaign"], list[Panel]]
SheetParts = Callable[["Character", Mapping[str, Any]], list[SheetPart]]
SheetContextExtra = Callable[["Character"], dict[str, Any]]
AlreadyPaid = Callable[["Character", "LedgerDraft"], int]


@dataclass(frozen=True)
class SystemPlugin:
    """Everything a system's plug-in adds to the generic apps (see the module docstring)."""

    system: str
    urls: str | None = None
    api_urls: str | None = None
    wizard_panels: WizardPanels | None = None
    roster_panels: RosterPanels | None = None
    sheet_parts: SheetParts | None = None
    sheet_context: SheetContextExtra | None = None
    already_paid: AlreadyPaid | None = None
    version_reasons: tuple[str, ...] = ()


_plugins: dict[str, SystemPlugin] = {}


def register(plugin: SystemPlugin) -> None:
    """Called once per plug-in, in its ``AppConfig.ready()``; a second plug-in for a system is an error."""
    existing = _plugins.get(plugin.system)
    if existing is not None and existing != plugin:
        raise ValueError(f"a plug-in is already registered for {plugin.system!r}")
    _plugins[plugin.system] = plugin


def plugin_for(system: str) -> SystemPlugin | None:
    """The plug-in of a system (a slug), or ``None``: most systems need none."""
    return _plugins.get(system)


def all_plugins() -> list[SystemPlugin]:
    return [_plugins[key] for key in sorted(_plugins)]


# ---------------------------------------------------------------------------
# What the generic apps call (each a no-op for a system without a plug-in)
# ---------------------------------------------------------------------------
def wizard_panels(request: HttpRequest, character: Character, step: str, sheet: dict[str, Any]) -> list[Panel]:
    plugin = plugin_for(character.system)
    if plugin is None or plugin.wizard_panels is None:
        return []
    return list(plugin.wizard_panels(request, character, step, sheet))


def roster_panels(request: HttpRequest, campaign: Campaign) -> list[Panel]:
    plugin = plugin_for(campaign.system)
    if plugin is None or plugin.roster_panels is None:
        return []
    return list(plugin.roster_panels(request, campaign))


def sheet_parts(character: Character, derived: Mapping[str, Any]) -> list[SheetPart]:
    plugin = plugin_for(character.system)
    if plugin is None or plugin.sheet_parts is None:
        return []
    return list(plugin.sheet_parts(character, derived))


def sheet_context(character: Character) -> dict[str, Any]:
    plugin = plugin_for(character.system)
    if plugin is None or plugin.sheet_context is None or character.pk is None:
        return {}
    return dict(plugin.sheet_context(character))


def already_paid(character: Character, draft: LedgerDraft) -> int:
    plugin = plugin_for(character.system)
    if plugin is None or plugin.already_paid is None:
        return 0
    return int(plugin.already_paid(character, draft))


def version_reasons() -> tuple[str, ...]:
    return tuple(reason for plugin in all_plugins() for reason in plugin.version_reasons)


def url_includes() -> list[Any]:
    """``path("characters/", include(...))`` for every plug-in's pages (``config.urls``)."""
    return [path("characters/", include(p.urls)) for p in all_plugins() if p.urls]


def api_urlpatterns() -> list[Any]:
    """Every plug-in's API routes, joined to ``/api/v1/`` by ``api.urls``."""
    patterns: list[Any] = []
    for plugin in all_plugins():
        if plugin.api_urls:
            patterns += list(import_module(plugin.api_urls).urlpatterns)
    return patterns
