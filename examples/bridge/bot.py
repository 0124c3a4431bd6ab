#!/usr/bin/env python3
"""A Gin Rummy bot for `gin-bot bridge`: plain Python, no dependencies, no gRPC.

    gin-bot bridge --cmd "python3 examples/bridge/bot.py" --vs-bot simple --games 3

It reads the bridge's lines on stdin and, after each `legal` line, prints one action. Its
play: pass the upcard and draw from the stock unless the pile's top pairs with a card of its
hand; lay every meld and lay-off it can (rummy); knock as soon as it may; otherwise discard
its highest card that is not in a pair or a same-suit neighbour. It plays two-player gin and
every table of another format (`gin-bot bridge --rules rummy --players 3 …`). (Protocol:
README.md next to this file.)
"""

import sys

RANKS = "A23456789TJQK"


def value(card):
    return min(RANKS.index(card[0]) + 1, 10)


def connected(card, hand):
    """Whether `card` pairs with another card of `hand`, or sits next to one of its suit."""
    r, s = RANKS.index(card[0]), card[1]
    for other in hand:
        if other == card:
            continue
        if other[0] == card[0] or (other[1] == s and abs(RANKS.index(other[0]) - r) <= 1):
            return True
    return False


def choose(legal, hand, pile):
    if "big-gin" in legal:
        return "big-gin"
    # Rummy (a table of another format): lay the biggest meld, then any lay-off.
    melds = [t for t in legal if t.startswith("meld:")]
    if melds:
        return max(melds, key=lambda t: len(t.split(",")))
    layoffs = [t for t in legal if t.startswith("layoff:")]
    if layoffs:
        return layoffs[0]
    knocks = [t for t in legal if t.startswith("knock:")]
    if knocks:
        return knocks[0]
    discards = [t.split(":")[1] for t in legal if t.startswith("discard:")]
    if discards:
        loose = [c for c in discards if not connected(c, hand)] or discards
        return "discard:" + max(loose, key=value)
    if "pile" in legal and pile and connected(pile[-1], hand + [pile[-1]]):
        return "pile"
    return "pass" if "pass" in legal else "stock"


def main():
    hand, pile = [], []
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        kind, args = words[0], words[1:]
        if kind == "hand":
            hand = args
        elif kind == "pile":
            pile = args
        elif kind == "legal":
            print(choose(args, hand, pile), flush=True)
        elif kind == "gameover":
            print(f"bridge example bot: game over, winner {args[0]}, totals {args[1]}-{args[2]}", file=sys.stderr)
        # Every other line (bridge, game, deal, drew, discarded, passed, handover, turn, …)
        # is information this bot does not need.


if __name__ == "__main__":
    main()
