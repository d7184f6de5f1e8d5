"""The rule-based players and the evaluations the searches share: ``random``, ``greedy``
and ``lowest`` (:mod:`.simple`), ``smart`` (:mod:`.smart`), their tactics
(:mod:`.tactics`) and the evaluation functions of depth-limited search (:mod:`.evals`)."""
