"""``manage.py verify_rolls [slug ...]``: verify the dice hash chain of campaigns and recompute every die
from its committed seed (the server knows every seed, revealed or not)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from campaigns.dice import verify_chain
from campaigns.models import Campaign


class Command(BaseCommand):
    help = "Verify the hash chain of every roll of the given campaigns (all campaigns by default)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("slugs", nargs="*", help="campaign slugs (default: all)")

    def handle(self, *args: Any, **options: Any) -> None:
        campaigns = Campaign.objects.order_by("pk")
        if options["slugs"]:
            campaigns = campaigns.filter(slug__in=options["slugs"])
            missing = set(options["slugs"]) - set(campaigns.values_list("slug", flat=True))
            if missing:
                raise CommandError(f"unknown campaign(s): {', '.join(sorted(missing))}")
        broken = 0
        for campaign in campaigns:
            ok, problems = verify_chain(campaign)
            if ok:
                self.stdout.write(f"OK     {campaign.slug}")
            else:
                broken += 1
                self.stdout.write(f"BROKEN {campaign.slug}")
                for problem in problems:
                    self.stdout.write(f"       {problem}")
        if broken:
            raise CommandError(f"{broken} campaign(s) with a broken dice chain")
