"""The server's creation roll moves into the campaign's dice chain (issue 18).

Existing sheets that hold a creation record (rolled by the server before this
migration) have it adopted as a chained ``creation`` roll, so they keep
validating against a stored roll.
"""

import json
import secrets

import django.db.models.deletion
from django.db import migrations, models
from django.utils import timezone


def adopt_creation_rolls(apps, schema_editor):
    from campaigns.dice import GENESIS, chain_hash, content_digest

    Character = apps.get_model("characters", "Character")
    Roll = apps.get_model("campaigns", "Roll")
    for character in Character.objects.filter(creation_roll__isnull=True).order_by("pk").iterator():
        sheet = character.sheet if isinstance(character.sheet, dict) else {}
        creation = sheet.get("creation") if isinstance(sheet.get("creation"), dict) else {}
        record = creation.get("roll")
        if not isinstance(record, dict) or not record:
            continue
        last = Roll.objects.filter(campaign_id=character.campaign_id).order_by("-sequence").first()
        roll = Roll(
            campaign_id=character.campaign_id,
            sequence=(last.sequence + 1) if last else 1,
            roller_id=character.owner_id,
            character_id=character.pk,
            kind="creation",
            system=character.system,
            label="creation (adopted)",
            request={"aspect_method": record.get("aspect_method"), "means_method": record.get("means_method")},
            resolution=json.loads(json.dumps(record, default=str)),
            secret=True,
            created=timezone.now(),
            prev_hash=last.hash if last else GENESIS,
            salt=secrets.token_hex(16),
        )
        roll.hash = chain_hash(roll.prev_hash, content_digest(roll))
        roll.save()
        Character.objects.filter(pk=character.pk).update(creation_roll=roll)


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0007_i22_fair_rolls"),
        ("characters", "0004_changerequest_purchase"),
    ]

    operations = [
        migrations.AddField(
            model_name="character",
            name="creation_roll",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="campaigns.roll",
            ),
        ),
        migrations.RunPython(adopt_creation_rolls, migrations.RunPython.noop),
    ]
