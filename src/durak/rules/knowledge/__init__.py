"""The knowledge model (``docs/rules.md``, "Knowledge"): what a player may know of a state
(:mod:`~durak.rules.knowledge.observation`), the facts every observation satisfies
(:mod:`~durak.rules.knowledge.consistency`), and the worlds an observation allows, with
their odds and a uniform draw (:mod:`~durak.rules.knowledge.sampler`).
"""
