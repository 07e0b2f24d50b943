"""Encounters, rounds and the append-only combat log."""
