"""Tests of the rules engine (pure Python: no Django)."""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def present(value: T | None) -> T:
    """``value``, which the test expects to be there (``odds()`` of a kind that has odds...)."""
    assert value is not None
    return value
