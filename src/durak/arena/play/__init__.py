"""One game and one match: the game loop, the referee, match plans, a person's game."""
