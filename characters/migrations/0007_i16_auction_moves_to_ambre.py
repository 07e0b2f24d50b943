"""Issue 16: the Ambre auction moves to its plug-in app (``systems.ambre``, label ``ambre``).

State only: the table ``characters_auction`` and its rows stay where they are;
``ambre.0001_initial`` takes the model over with ``Meta.db_table``.
"""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0006_i18_portrait_names"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="Auction")],
            database_operations=[],
        ),
    ]
