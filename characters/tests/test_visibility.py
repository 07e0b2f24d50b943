"""Issue 16 item 3: one read model per resource, one table of visibility cases.

Every case (a PC draft, an approved PC, an NPC, an Ambre secret rank, a ledger)
is read by every role (anonymous, outsider, spectator, another player, the
owner, the co-GM, the GM) through the page (HTML) AND the API (JSON). The
expected level is written once per (case, role): ``none`` (404, nothing),
``public`` (the public part only) or ``full``; the test fails when either
transport shows more, or less, than that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from characters.ledger import append_entry
from characters.models import Character
from characters.tests.conftest import client_for, make_character, valid_ambre_sheet
from systems.ambre import services as auction_services

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "outsider", "spectator", "other_player", "owner", "cogm", "gm")
PC = {"anonymous": "none", "outsider": "none", "spectator": "public", "other_player": "public"} | {
    "owner": "full",
    "cogm": "full",
    "gm": "full",
}
NPC = {role: "none" for role in ROLES} | {"cogm": "full", "gm": "full"}

#: case -> expected level per role (the one table).
TABLE: dict[str, dict[str, str]] = {
    "pc_draft": PC,
    "pc_approved": PC,
    "npc": NPC,
    "secret_rank": PC,
    "ledger": PC,
}


@dataclass
class Case:
    """Markers of one case: ``public``/``private`` in both transports, then page-only and API-only ones."""

    character: Character
    public: list[str]  # seen by whoever sees the character
    private: list[str]  # seen by the owner and the GMs only
    public_page: tuple[str, ...] = ()
    private_page: tuple[str, ...] = ()
    public_api: tuple[str, ...] = ()
    private_api: tuple[str, ...] = ()
    ledger: bool = False  # also read through the ledger API

    def markers(self, transport: str) -> tuple[list[str], list[str]]:
        if transport == "page":
            return self.public + list(self.public_page), self.private + list(self.private_page)
        return self.public + list(self.public_api), self.private + list(self.private_api)


def _world(table: Any) -> dict[str, Case]:
    draft = make_character(table, table.player, name="Brouillon", status="draft")
    draft.public_description, draft.private_background = "PUB-DRAFT", "PRIV-DRAFT"
    draft.save()
    approved = make_character(table, table.player, name="Benedict", status="approved", sheet=valid_ambre_sheet("B"))
    approved.public_description, approved.private_background = "PUB-APPROVED", "PRIV-APPROVED"
    approved.save()
    npc = make_character(table, table.gm, name="Oberon", is_npc=True)
    npc.public_description, npc.private_background = "PUB-NPC", "PRIV-NPC"
    npc.save()
    # A secret rank (L18): Corwin buys up past Eric after the public ladder of Psyche closed.
    corwin = make_character(table, table.player, name="Corwin", sheet=valid_ambre_sheet("Corwin"))
    eric = make_character(table, table.player2, name="Eric", sheet=valid_ambre_sheet("Eric"))
    auction = auction_services.open_auction(table.gm, table.campaign, characters=[corwin, eric])
    for who, event in (
        (corwin, {"type": "bid", "attribute": "psy", "amount": 10}),
        (eric, {"type": "bid", "attribute": "psy", "amount": 15}),
        (corwin, {"type": "pass", "attribute": "psy"}),
        (corwin, {"type": "buy_up", "attribute": "psy", "amount": 8}),
    ):
        auction = auction_services.auction_act(who.owner, auction, character=who, event=event)
    corwin.refresh_from_db()
    hero = make_character(table, table.player, name="Random", status="approved", sheet=valid_ambre_sheet("R"))
    append_entry(hero, "karma", 7, "gm_award", created_by=table.gm, note="LEDGER-NOTE-7")
    return {
        "pc_draft": Case(draft, ["PUB-DRAFT", "Brouillon"], ["PRIV-DRAFT"], private_api=('"sheet": {',)),
        "pc_approved": Case(approved, ["PUB-APPROVED", "Benedict"], ["PRIV-APPROVED"], private_api=('"sheet": {',)),
        "npc": Case(npc, ["PUB-NPC", "Oberon"], ["PRIV-NPC"], private_api=('"sheet": {',)),
        # The public ladder position (#2) is public; the secret flag is the owner's and the GMs'.
        "secret_rank": Case(
            corwin,
            ["Corwin"],
            [],
            public_page=("#2",),
            private_page=("sf-ranks-known", "rang secret"),
            public_api=('"position": 2',),
            private_api=('"secret": true', '"ranks": ['),
        ),
        "ledger": Case(hero, ["Random"], ["LEDGER-NOTE-7"], private_api=('"balances": {"karma": 7}',), ledger=True),
    }


def _clients(table: Any) -> dict[str, Client]:
    users = {
        "anonymous": None,
        "outsider": table.outsider,
        "spectator": table.spectator,
        "other_player": table.player2,
        "owner": table.player,
        "cogm": table.cogm,
        "gm": table.gm,
    }
    return {role: client_for(user) for role, user in users.items()}


def _page(client: Client, case: Case) -> tuple[int, str]:
    response = client.get(f"/characters/{case.character.pk}/")
    return response.status_code, response.content.decode()


def _api(client: Client, case: Case) -> tuple[int, str]:
    response = client.get(f"/api/v1/characters/{case.character.pk}/")
    text = json.dumps(response.json(), ensure_ascii=False) if response.status_code == 200 else response.content.decode()
    if case.ledger:
        ledger = client.get(f"/api/v1/characters/{case.character.pk}/ledger/")
        if ledger.status_code == 200:
            text += json.dumps(ledger.json(), ensure_ascii=False)
    return response.status_code, text


def test_page_and_api_show_each_role_exactly_its_part(table: Any) -> None:
    world = _world(table)
    clients = _clients(table)
    problems: list[str] = []
    for name, expected in TABLE.items():
        case = world[name]
        for role in ROLES:
            level = expected[role]
            for transport, read in (("page", _page), ("api", _api)):
                status, text = read(clients[role], case)
                where = f"{name} / {role} / {transport}"
                public, private = case.markers(transport)
                if level == "none":
                    if status != 404 or any(m in text for m in public + private):
                        problems.append(f"{where}: expected 404 and nothing, got {status}")
                    continue
                if status != 200:
                    problems.append(f"{where}: expected 200, got {status}")
                    continue
                problems += [f"{where}: public marker {m!r} missing" for m in public if m not in text]
                if level == "public":
                    problems += [f"{where}: LEAK of {m!r}" for m in private if m in text]
                else:
                    problems += [f"{where}: private marker {m!r} missing" for m in private if m not in text]
    assert not problems, "\n".join(problems)


def test_the_api_public_part_has_no_full_fields(table: Any) -> None:
    """The public representation carries the same keys, with every full-only value empty."""
    case = _world(table)["secret_rank"]
    data = client_for(table.spectator).get(f"/api/v1/characters/{case.character.pk}/").json()
    full_only = ("version", "schema_version", "sheet", "derived", "budget", "errors", "valid")
    assert data["full"] is False
    assert all(data[key] is None for key in (*full_only, "private_background", "gm_comment", "balances"))
    assert data["parts"] == {"public_ranks": data["public_ranks"]}
    assert [r["position"] for r in data["public_ranks"]] == [2]
    owner = client_for(table.player).get(f"/api/v1/characters/{case.character.pk}/").json()
    assert owner["full"] is True and set(owner) == set(data)
    assert [r["secret"] for r in owner["parts"]["ranks"] if r["attribute"] == "psy"] == [True]


def test_the_live_channel_follows_the_full_sheet_rule(table: Any) -> None:
    """Sheet events go to whoever reads the full sheet (the same rule as page and API)."""
    from live.registry import authorize

    world = _world(table)
    users = {
        "outsider": table.outsider,
        "spectator": table.spectator,
        "other_player": table.player2,
        "owner": table.player,
        "cogm": table.cogm,
        "gm": table.gm,
    }
    for name, expected in TABLE.items():
        for role, user in users.items():
            allowed = authorize("character", user, world[name].character.pk) is not None
            assert allowed == (expected[role] == "full"), (name, role)
