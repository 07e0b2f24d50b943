"""Ambre's plug-in: the attribute auction (*enchères d'attributs*, L5, L17-L22) and its ladders."""
