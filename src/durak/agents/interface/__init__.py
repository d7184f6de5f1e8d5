"""What an agent offers its callers: the protocols (:mod:`.protocol`), an explicit policy
(:mod:`.policies`) and the analysis of one decision (:mod:`.analysis`)."""
