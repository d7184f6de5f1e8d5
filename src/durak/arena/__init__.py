"""Running games between agents: the match runner, seeding and the benchmark."""
