"""QA tour fixes: no dead auction link for visitors; auction lots in their own words."""

from __future__ import annotations

from typing import Any

import pytest

from characters.tests.conftest import client_for, make_character, valid_ambre_sheet
from conftest import make_table
from systems.ambre.models import Auction

pytestmark = pytest.mark.django_db


def _ambre_table_with_auction() -> Any:
    table = make_table("ambre", is_public=True, prefix="qa")
    corwin = make_character(table, table.player, name="Corwin", sheet=valid_ambre_sheet("Corwin"))
    eric = make_character(table, table.player2, name="Eric", sheet=valid_ambre_sheet("Eric"))
    client_for(table.gm).post(
        f"/characters/campaign/{table.campaign.pk}/auction/new/", {"characters": [corwin.pk, eric.pk], "mode": "open"}
    )
    return table, Auction.objects.get(campaign=table.campaign)


def test_it_hides_the_auction_link_from_visitors_of_a_public_roster() -> None:
    table, auction = _ambre_table_with_auction()
    link = f'href="/characters/auctions/{auction.pk}/"'
    url = f"/characters/campaign/{table.campaign.pk}/"
    for visitor in (None, table.outsider):
        response = client_for(visitor).get(url)
        assert response.status_code == 200
        assert link not in response.content.decode()
        # ... since that page would be a 404 for them.
        assert client_for(visitor).get(f"/characters/auctions/{auction.pk}/").status_code == 404
    for member in (table.spectator, table.player, table.gm):
        assert link in client_for(member).get(url).content.decode()


def test_it_labels_auction_lots_with_their_own_words() -> None:
    """'open'/'closed' are shared msgids (sessions say 'ouverte'/'fermée'); lots keep theirs."""
    table, auction = _ambre_table_with_auction()
    html = client_for(table.player).get(f"/characters/auctions/{auction.pk}/").content.decode()
    assert "<td>en cours</td>" in html and "<td>à venir</td>" in html
    assert "fermée le" not in html
