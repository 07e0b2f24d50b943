"""SMS's plug-in: race and archetype templates in the creation wizard (``rules.sms.creation``)."""
