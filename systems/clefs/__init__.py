"""Les Clefs de l'Aube's plug-in: the server's creation roll (L517-L576)."""
