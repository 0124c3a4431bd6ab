#!/usr/bin/env python3
"""A first bot for `gin-bot bridge` (the protocol: README.md here). It knocks as soon as it
may; else it draws from the stock and discards its highest card that is not in a pair."""
import sys

RANKS = "A23456789TJQK"


def value(token):  # "discard:KS" -> 10
    return min(RANKS.index(token[8]) + 1, 10)


for line in sys.stdin:
    kind, *legal = line.split() or [""]
    if kind == "legal":  # the last line of our turn: answer with one of its tokens
        knocks = [t for t in legal if t == "big-gin" or t.startswith("knock:")]
        discards = [t for t in legal if t.startswith("discard:")]
        loose = [t for t in discards if [d[8] for d in discards].count(t[8]) == 1] or discards
        answer = knocks or sorted(loose, key=value)[-1:] or ["pass" if "pass" in legal else "stock"]
        print(answer[0], flush=True)
