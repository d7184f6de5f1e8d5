"""Match results: Zarlykov's (2023) statistics block with Wilson (1927) intervals."""
