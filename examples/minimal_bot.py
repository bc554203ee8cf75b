#!/usr/bin/env python3
"""A complete elferraus-bot/1 player in a dozen lines, using only the standard library.

It lays the first legal card it is offered, else draws, else ends its turn.
Run it in the arena:

    elferraus arena --players 4 --bots "cmd:python3 examples/minimal_bot.py,greedy,greedy,greedy" --games 50
"""

import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "minimal"}), flush=True)
    elif message["type"] == "act":
        legal = message["legal"]
        lays = [move for move in legal if move not in ("draw", "pass")]
        move = lays[0] if lays else ("draw" if "draw" in legal else "pass")
        print(json.dumps({"move": move}), flush=True)
    elif message["type"] == "quit":
        break
