"""GIN index on the posts' full-text vector, on PostgreSQL only."""

from django.db import migrations


def create_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(
            "CREATE INDEX IF NOT EXISTS campaigns_post_search_gin ON campaigns_post USING gin (search_vector)"
        )


def drop_index(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("DROP INDEX IF EXISTS campaigns_post_search_gin")


class Migration(migrations.Migration):
    dependencies = [("campaigns", "0003_forum_notifications")]

    operations = [migrations.RunPython(create_index, drop_index)]
