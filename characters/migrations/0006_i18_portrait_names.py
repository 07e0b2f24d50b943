"""Portraits get unguessable names and are served through an authorization check (issue 18).

Existing files (``portraits/YYYY/MM/character-<id>.jpg``, guessable) are moved to
``portraits/<random token>.jpg``.
"""

import secrets

from django.db import migrations, models

import characters.models


def rename_portraits(apps, schema_editor):
    from django.core.files.storage import FileSystemStorage

    storage = FileSystemStorage()  # MEDIA_ROOT, where the files already are
    Character = apps.get_model("characters", "Character")
    for character in Character.objects.exclude(portrait="").iterator():
        old = character.portrait.name
        if not old or not storage.exists(old):
            continue
        with storage.open(old, "rb") as handle:
            new = storage.save(f"portraits/{secrets.token_urlsafe(24)}.jpg", handle)
        Character.objects.filter(pk=character.pk).update(portrait=new)
        storage.delete(old)


class Migration(migrations.Migration):
    dependencies = [
        ("characters", "0005_i18_creation_roll"),
    ]

    operations = [
        migrations.AlterField(
            model_name="character",
            name="portrait",
            field=models.ImageField(
                blank=True,
                storage=characters.models.portrait_storage,
                upload_to=characters.models.portrait_name,
                verbose_name="portrait",
            ),
        ),
        migrations.RunPython(rename_portraits, migrations.RunPython.noop),
    ]
