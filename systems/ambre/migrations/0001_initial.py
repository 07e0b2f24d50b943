"""The Ambre auction, taken over from the characters app (issue 16) without touching its table.

The model's state is created here on the existing table ``characters_auction``
(no database operation: every auction and its id sequence are kept); the
content type is renamed so permissions and admin history follow the model.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def rename_content_type(apps, schema_editor):  # type: ignore[no-untyped-def]
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not ContentType.objects.using(db).filter(app_label="ambre", model="auction").exists():
        ContentType.objects.using(db).filter(app_label="characters", model="auction").update(app_label="ambre")


def restore_content_type(apps, schema_editor):  # type: ignore[no-untyped-def]
    ContentType = apps.get_model("contenttypes", "ContentType")
    db = schema_editor.connection.alias
    if not ContentType.objects.using(db).filter(app_label="characters", model="auction").exists():
        ContentType.objects.using(db).filter(app_label="ambre", model="auction").update(app_label="characters")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("campaigns", "0007_i22_fair_rolls"),
        ("characters", "0007_i16_auction_moves_to_ambre"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Auction",
                    fields=[
                        ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                        ("state", models.JSONField(default=dict)),
                        (
                            "status",
                            models.CharField(
                                choices=[("running", "running"), ("paused", "paused"), ("closed", "closed")],
                                default="running",
                                max_length=10,
                            ),
                        ),
                        ("timeout_seconds", models.PositiveIntegerField(blank=True, null=True)),
                        ("deadline", models.DateTimeField(blank=True, null=True)),
                        ("results_applied", models.BooleanField(default=False)),
                        ("created", models.DateTimeField(auto_now_add=True)),
                        ("updated", models.DateTimeField(auto_now=True)),
                        (
                            "campaign",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="auctions",
                                to="campaigns.campaign",
                            ),
                        ),
                        (
                            "created_by",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "auction",
                        "verbose_name_plural": "auctions",
                        "ordering": ["-created"],
                        "db_table": "characters_auction",
                    },
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(rename_content_type, restore_content_type),
    ]
