"""The append-only base of every history table (rolls, versions, ledgers, logs).

A history row is written once and never changed or removed: a correction is
a new row. :class:`AppendOnlyModel` refuses ``save()`` of a saved row and
``delete()``; its default manager's queryset refuses bulk ``update()`` and
``delete()`` (so ``bulk_update`` too, which goes through ``update``).

What it does not stop, on purpose: deleting a parent row whose foreign key
cascades (a post's versions go with the post; Django's collector deletes
through the plain ``_base_manager``), and a raw database edit (tests simulate
an attacker with ``Model._base_manager.filter(...).update(...)``; the roll
chain then detects it).
"""

from __future__ import annotations

from typing import Any, ClassVar, NoReturn

from django.db import models


class ImmutableRecordError(Exception):
    """Raised when code tries to change or delete an immutable record."""


class AppendOnlyQuerySet(models.QuerySet):
    """A queryset of history rows: read and insert, never bulk update or delete."""

    def update(self, **kwargs: Any) -> NoReturn:
        raise ImmutableRecordError(f"{self.model._meta.verbose_name_plural} are append-only: never updated.")

    def delete(self) -> NoReturn:
        raise ImmutableRecordError(f"{self.model._meta.verbose_name_plural} are append-only: never deleted.")


class AppendOnlyManager(models.Manager.from_queryset(AppendOnlyQuerySet)):  # type: ignore[misc]
    """Default manager of a history table (see :class:`AppendOnlyQuerySet`)."""


class AppendOnlyModel(models.Model):
    """Abstract base of a history table: rows are inserted, never edited or deleted."""

    #: Messages of the refusal; a table may say what to do instead ("append a correction").
    edit_refused: ClassVar[str] = "A history row is never edited."
    delete_refused: ClassVar[str] = "A history row is never deleted."

    objects = AppendOnlyManager()

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None:
            raise ImmutableRecordError(self.edit_refused)
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise ImmutableRecordError(self.delete_refused)
