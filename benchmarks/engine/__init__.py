"""The game and its players: speed against other engines and frameworks, strength, what knowledge is worth."""
