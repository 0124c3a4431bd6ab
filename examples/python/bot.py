#!/usr/bin/env python3
"""A small Gin Rummy bot in Python: grpcio, stubs generated from proto/ at start.

It creates games against the server's house bots (or, with --quick-wait-ms, asks for a
quick match and plays house bots if nobody else asked in time), at two-player gin or, with
--format, at a table of any format (three players, teams, gin for 3 to 6, rummy: the house
bots take every other seat). It watches its seat's event stream and plays the legal actions
the server sends with each of its turns (with expected_seq, resyncing on ABORTED), to game
over. After each game it reads the record back (GetRecord) and checks that it agrees with
the game-over event: the same result, the target reached, the winners and places those of
the totals, and (at a table) the record's own result, our moves and one reveal per hand.
Signed in (--account-token, GIN_ACCOUNT_TOKEN, or --register NAME: a new bot account), the
lobby calls carry the account token, so each seat is the account's; after each game it also
checks that GetGame names the account (a bot) at our seat and that the account's
ListPlayerGames lists the game. Exit status 0 only if every game finished and every check
passed.

    python bot.py --server 127.0.0.1:50051 --vs-bot simple --games 3
    python bot.py --format '{"kind":"rummy","players":3,"end":{"hands":3}}' --vs-bot simple
    python bot.py --register my-python-bot   # the token goes to stderr, once
    GIN_ACCOUNT_TOKEN=gin_at_... python bot.py --games 3
    GIN_ACCOUNT_TOKEN=gin_at_... python bot.py --ladder --rules standard --games 10

With --ladder (signed in) each game is the server's rated ladder's instead: it joins the
pool (LadderService.JoinLadder), waits for its seat (printing its rating once), plays the
game with the seat token the ladder gave, checks it as any other, and joins again.
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "proto"))
GEN = os.path.join(HERE, "gen")
PROTOS = ["gin/v1/types.proto", "gin/v1/game.proto", "gin/v1/lobby.proto", "gin/v1/tournament.proto",
          "gin/v1/account.proto", "gin/v1/ladder.proto"]


def generate_stubs():
    """Generates the Python stubs from proto/ into gen/ (not committed) when they are
    missing or older than a .proto file."""
    outputs = [os.path.join(GEN, p.replace(".proto", "_pb2.py")) for p in PROTOS]
    newest_proto = max(os.path.getmtime(os.path.join(PROTO_ROOT, p)) for p in PROTOS)
    if all(os.path.exists(o) and os.path.getmtime(o) >= newest_proto for o in outputs):
        return
    from grpc_tools import protoc  # only needed to generate

    os.makedirs(GEN, exist_ok=True)
    args = ["protoc", f"-I{PROTO_ROOT}", f"--python_out={GEN}", f"--grpc_python_out={GEN}", *PROTOS]
    if protoc.main(args) != 0:
        sys.exit("generating the stubs from proto/ failed")


generate_stubs()
sys.path.insert(0, GEN)

import grpc  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from gin.v1 import account_pb2, account_pb2_grpc, ladder_pb2, ladder_pb2_grpc  # noqa: E402
from gin.v1 import game_pb2, game_pb2_grpc, lobby_pb2, lobby_pb2_grpc, types_pb2  # noqa: E402

K = types_pb2  # ActionKind, DrawSource, … values

RETRY_FOR = 60.0  # seconds of UNAVAILABLE in a row before giving up (a server restarting, a lease moving)


def nothing_done(e):
    """Whether the server refused the call before doing anything: UNAVAILABLE with the
    metadata retry-after-ms (a cluster server whose lease ran out, a game moving to another
    server, a proxy with no server to take it). Then even CreateGame may be sent again."""
    return e.code() == grpc.StatusCode.UNAVAILABLE and any(
        k == "retry-after-ms" for k, _ in (e.trailing_metadata() or ()))


def call(f, *args, once=False, **kwargs):
    """f(*args, **kwargs), retried with a backoff (0.1 s doubling to 2 s) while it fails
    UNAVAILABLE, for up to RETRY_FOR seconds: the server restarts, or in a cluster the call
    is moving to another server. A call made `once` (CreateGame, QuickMatch: a retry after a
    lost answer would seat us twice) is retried only when nothing was done (nothing_done)."""
    wait, deadline = 0.1, time.time() + RETRY_FOR
    while True:
        try:
            return f(*args, **kwargs)
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.UNAVAILABLE or (once and not nothing_done(e)) or time.time() > deadline:
                raise
            print(f"  {e.code().name} ({e.details()}): retrying", file=sys.stderr)
        time.sleep(wait)
        wait = min(wait * 2, 2.0)


class CheckFailed(Exception):
    """The result read back disagrees with the game-over event."""


def choose(turn):
    """Picks one of the legal actions the server sent, for any format. Rummy: lay a meld
    (the one with the most cards), else lay a card off. Knock when we may (big gin first,
    then the least deadwood); otherwise discard the server's suggested best discard; draw
    from the stock and pass the upcard."""
    legal = list(turn.legal_actions)
    melds = [a for a in legal if a.kind == K.ACTION_KIND_MELD]
    if melds:
        return max(melds, key=lambda a: len(a.cards))
    layoffs = [a for a in legal if a.kind == K.ACTION_KIND_LAY_OFF]
    if layoffs:
        return layoffs[0]
    knocks = [a for a in legal if a.kind == K.ACTION_KIND_KNOCK]
    if any(a.kind == K.ACTION_KIND_BIG_GIN for a in legal):
        return next(a for a in legal if a.kind == K.ACTION_KIND_BIG_GIN)
    if knocks:
        return min(knocks, key=lambda a: a.deadwood)
    discards = [a for a in legal if a.kind == K.ACTION_KIND_DISCARD]
    if discards:
        best = [a for a in discards if a.card == turn.best_discard]
        return (best or discards)[0]
    for kind in (K.ACTION_KIND_PASS_UPCARD, K.ACTION_KIND_DRAW_STOCK):
        for a in legal:
            if a.kind == kind:
                return a
    return legal[0]


def send(games, game_id, token, seq, action):
    """Sends one action with expected_seq = the last seq we saw."""
    md = [("authorization", f"Bearer {token}")]
    if action.kind == K.ACTION_KIND_TAKE_UPCARD:
        call(games.TakeUpcard, game_pb2.TakeUpcardRequest(game_id=game_id, expected_seq=seq), metadata=md, timeout=20)
    elif action.kind == K.ACTION_KIND_PASS_UPCARD:
        call(games.PassUpcard, game_pb2.PassUpcardRequest(game_id=game_id, expected_seq=seq), metadata=md, timeout=20)
    elif action.kind in (K.ACTION_KIND_DRAW_STOCK, K.ACTION_KIND_DRAW_PILE):
        source = K.DRAW_SOURCE_STOCK if action.kind == K.ACTION_KIND_DRAW_STOCK else K.DRAW_SOURCE_PILE
        call(games.Draw, game_pb2.DrawRequest(game_id=game_id, expected_seq=seq, source=source), metadata=md, timeout=20)
    elif action.kind == K.ACTION_KIND_DISCARD:
        call(games.Discard, game_pb2.DiscardRequest(game_id=game_id, expected_seq=seq, card=action.card), metadata=md, timeout=20)
    elif action.kind == K.ACTION_KIND_KNOCK:
        # No melds: the server lays down a minimum-deadwood arrangement.
        call(games.Knock, game_pb2.KnockRequest(game_id=game_id, expected_seq=seq, discard=action.card), metadata=md, timeout=20)
    elif action.kind == K.ACTION_KIND_BIG_GIN:
        call(games.Knock, game_pb2.KnockRequest(game_id=game_id, expected_seq=seq, discard=""), metadata=md, timeout=20)
    elif action.kind == K.ACTION_KIND_MELD:
        call(games.LayMeld, game_pb2.LayMeldRequest(game_id=game_id, expected_seq=seq, cards=action.cards),
                      metadata=md, timeout=20)
    elif action.kind == K.ACTION_KIND_LAY_OFF:
        call(games.LayOff, game_pb2.LayOffRequest(game_id=game_id, expected_seq=seq, card=action.card, meld=action.meld),
                     metadata=md, timeout=20)
    else:
        raise ValueError(f"unknown action kind {action.kind}")


def my_turn(snap, seat):
    """Whether a snapshot says our seat is to act (with its legal actions): two-player gin
    names one seat_to_act; the other formats list seats_to_act (team play: two at once)."""
    if not snap.HasField("turn"):
        return False
    return seat in snap.seats_to_act or (snap.HasField("seat_to_act") and snap.seat_to_act == seat)


def act(games, game_id, seat, token, turn, seq, stale):
    # stale: None, or the stale expected_seq to send first (to show the resync)
    """Plays our turn: one of its legal actions with expected_seq = seq. On ABORTED (the seq
    is stale: nothing was applied) it resyncs with GetGame: if it is still our turn, it
    decides again from the snapshot's legal actions and seq; if not, the stream brings what
    happened. Returns (the seq the action was accepted at or None, ABORTED refusals)."""
    md = [("authorization", f"Bearer {token}")]
    aborted = 0
    while True:
        try:
            send(games, game_id, token, seq if stale is None else stale, choose(turn))
            return seq, aborted
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.ABORTED:
                raise
        aborted += 1
        stale = None
        snap = call(games.GetGame, game_pb2.GetGameRequest(game_id=game_id), metadata=md, timeout=20).snapshot
        print(f"  ABORTED at seq {seq} (the game is at {snap.seq}): resyncing", file=sys.stderr)
        if not my_turn(snap, seat):
            return None, aborted
        turn, seq = snap.turn, snap.seq


def play(games, game_id, seat, token, stale_first=False, team_play=False):
    """Plays our seat to game over. Returns (game-over result, hands played, actions sent,
    ABORTED refusals). With stale_first, the first action goes with a stale expected_seq,
    to show the resync: the seq before the turn's, or in team play 0 (two seats act at
    once, one per table: the other table's moves do not make our expected_seq stale, and
    the event before our turn may be one of them)."""
    md = [("authorization", f"Bearer {token}")]
    last_seq = 0  # the last seq we have seen: the snapshot's, then each event's
    acted_at = 0  # the seq of the last turn we played (a resync may play it from a snapshot)
    hands = actions = aborted = 0
    while True:  # one pass per stream (a dropped stream resumes after last_seq)
        try:
            stream = games.WatchGame(game_pb2.WatchGameRequest(game_id=game_id, resume_after_seq=last_seq), metadata=md)
            for msg in stream:
                which = msg.WhichOneof("kind")
                if which == "snapshot":
                    snap = msg.snapshot
                    last_seq = snap.seq
                    # The hands ended before the stream opened (team play: the house bots'
                    # table may have finished one), then each hand-ended event counts one.
                    hands = len(snap.hands) + len(snap.table_hands)
                    if snap.phase == K.PHASE_GAME_OVER:
                        stream.cancel()
                        return snap.result, hands, actions, aborted
                    if not my_turn(snap, seat):
                        continue
                    turn = snap.turn
                elif which == "event":
                    ev = msg.event
                    if ev.seq <= last_seq:
                        continue  # already seen (after a resume)
                    last_seq = ev.seq
                    kind = ev.WhichOneof("kind")
                    if kind in ("hand_ended", "table_hand_ended"):
                        hands += 1
                    if kind == "game_over":
                        stream.cancel()
                        return ev.game_over.result, hands, actions, aborted
                    if kind != "turn_started" or ev.turn_started.seat != seat or not ev.turn_started.HasField("turn"):
                        continue
                    turn = ev.turn_started.turn
                else:
                    continue  # heartbeat
                if last_seq <= acted_at:
                    continue  # played already, from a snapshot after an ABORTED
                stale = (0 if team_play else last_seq - 1) if stale_first and actions == 0 else None
                done, n = act(games, game_id, seat, token, turn, last_seq, stale)
                if stale is not None and n == 0:  # (later ABORTEDs may have other causes)
                    raise CheckFailed(f"game {game_id}: the stale first action was not refused with ABORTED")
                aborted += n
                if done is not None:
                    acted_at = done
                    actions += 1
            # The stream ended without game over: reopen it after last_seq.
        except grpc.RpcError as e:
            if e.code() not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                raise
            print(f"  stream {e.code().name}: resuming after seq {last_seq}", file=sys.stderr)
        time.sleep(0.2)


def check(games, game_id, seat, result, rules):
    """Reads the record back and checks it against the game-over event."""
    rec = call(games.GetRecord, game_pb2.GetRecordRequest(game_id=game_id), timeout=20)
    problems = []
    if rec.result != result:
        problems.append(f"GetRecord's result {rec.result} differs from the game-over event's {result}")
    if result.reason != K.GAME_END_REASON_TARGET:
        problems.append(f"ended by {K.GameEndReason.Name(result.reason)}, not the target")
    if len(result.totals) != 2 or max(result.totals) < rules.target:
        problems.append(f"totals {list(result.totals)} below the target {rules.target}")
    elif not result.HasField("winner"):
        if result.totals[0] != result.totals[1]:  # no winner is a draw: equal totals
            problems.append(f"no winner with totals {list(result.totals)}")
    elif result.totals[result.winner] != max(result.totals):
        problems.append(f"winner {result.winner} has the lower total in {list(result.totals)}")
    elif result.margin != abs(result.totals[0] - result.totals[1]):
        problems.append(f"margin {result.margin} is not the difference of {list(result.totals)}")
    record = json.loads(rec.record_json)  # the engine's record: replayable with `gin replay`
    if not record:
        problems.append("empty record")
    if problems:
        raise CheckFailed(f"game {game_id}: " + "; ".join(problems))
    return len(rec.reveals)


def expected_places(totals):
    """Each seat's place from the totals: 1 for the best, equal totals share a place."""
    return [1 + sum(o > t for o in totals) for t in totals]


def check_table(games, game_id, seat, result, snap, hands, actions):
    """Reads the record of a table game (any format but two-player gin) back and checks it
    against the game-over event: the same result; the target (or the end the format sets)
    reached; one total per seat; the winners exactly the seats with the best total (team
    play: both partners of the better team, each seat with its team's total); the places
    those of the totals; the record's own result the same totals, as many moves by our seat
    as actions we sent, and one deal reveal per hand seen ended. Returns (our moves in the
    record, reveals)."""
    rec = call(games.GetRecord, game_pb2.GetRecordRequest(game_id=game_id), timeout=20)
    players = len(snap.seats)
    totals = list(result.table_totals)
    problems = []
    if rec.result != result:
        one = lambda r: text_format.MessageToString(r, as_one_line=True)  # noqa: E731
        problems.append(f"GetRecord's result {{{one(rec.result)}}} differs from the game-over event's {{{one(result)}}}")
    if result.reason != K.GAME_END_REASON_TARGET:
        problems.append(f"ended by {K.GameEndReason.Name(result.reason)}, not the target")
    if len(totals) != players:
        problems.append(f"{len(totals)} table totals {totals} for {players} seats")
    else:
        best = max(totals)
        if sorted(result.winners) != [s for s in range(players) if totals[s] == best]:
            problems.append(f"winners {list(result.winners)} are not the seats with the best of {totals}")
        if list(result.places) != expected_places(totals):
            problems.append(f"places {list(result.places)} do not follow the totals {totals}")
        teams = [s.team for s in snap.seats if s.HasField("team")]
        if snap.format.kind == "teams":
            team_totals = list(result.team_totals)
            if len(teams) != players or len(team_totals) != 2:
                problems.append(f"team play with teams {teams} and team totals {team_totals}")
            else:
                if totals != [team_totals[t] for t in teams]:
                    problems.append(f"seat totals {totals} are not their teams' {team_totals} (teams {teams})")
                won = [t for t in (0, 1) if team_totals[t] == max(team_totals)]
                if sorted(result.winners) != [s for s in range(players) if teams[s] in won]:
                    problems.append(f"winners {list(result.winners)} are not both partners of the best of "
                                    f"the team totals {team_totals}")
    record = json.loads(rec.record_json)  # a `table-record 2`: replayable with `gin replay`
    rec_result = record.get("result") or {}
    if record.get("version") != 2:
        problems.append(f"record version {record.get('version')}, not a table-record 2")
    if rec_result.get("totals") != totals:
        problems.append(f"the record's result totals {rec_result.get('totals')} differ from {totals}")
    if (rec_result.get("team_totals") or []) != list(result.team_totals):
        problems.append(f"the record's team totals {rec_result.get('team_totals')} differ from "
                        f"{list(result.team_totals)}")
    if rec_result.get("winners") != list(result.winners) or rec_result.get("places") != list(result.places):
        problems.append(f"the record's winners {rec_result.get('winners')} and places {rec_result.get('places')} "
                        f"differ from {list(result.winners)} and {list(result.places)}")
    ours = sum(1 for m in record.get("moves", []) if m.get("seat") == seat)
    if ours != actions:
        problems.append(f"the record has {ours} moves by seat {seat}, we sent {actions} actions")
    if len(rec.reveals) != hands:
        problems.append(f"{len(rec.reveals)} deal reveals for {hands} hands ended")
    if problems:
        raise CheckFailed(f"game {game_id}: " + "; ".join(problems))
    return ours, len(rec.reveals)


ACCOUNT_TOKEN_PREFIX = "gin_at_"


def register(channel, name):
    """Registers a bot account (AccountService.Register, ACCOUNT_KIND_BOT) and returns its
    first token, printed once to stderr: the server keeps only its hash, so keep it (as
    GIN_ACCOUNT_TOKEN or --account-token) to play as the account again. Sent again only when
    nothing was done (the account may exist although the answer was lost)."""
    accounts = account_pb2_grpc.AccountServiceStub(channel)
    r = call(accounts.Register, account_pb2.RegisterRequest(name=name, kind=K.ACCOUNT_KIND_BOT,
                                                            token_label="python-example"), timeout=20, once=True)
    print(f"registered bot account {r.account.name}; its token, shown this once: {r.token}", file=sys.stderr)
    return r.token


def check_account(games, accounts, game_id, seat, md):
    """Signed in: our seat in GetGame names the account, marked a bot (ACCOUNT_KIND_BOT), and
    the account's ListPlayerGames lists the game at our seat, finished. Returns the name."""
    snap = call(games.GetGame, game_pb2.GetGameRequest(game_id=game_id), metadata=md, timeout=20).snapshot
    mine = snap.seats[seat]
    problems = []
    if not mine.account:
        problems.append(f"GetGame names no account at our seat {seat}")
    if mine.account_kind != K.ACCOUNT_KIND_BOT:
        problems.append(f"our seat's account kind is {K.AccountKind.Name(mine.account_kind)}, not ACCOUNT_KIND_BOT")
    listed = call(accounts.ListPlayerGames, account_pb2.ListPlayerGamesRequest(), metadata=md, timeout=20)
    if listed.account.name != mine.account:
        problems.append(f"the token's account is {listed.account.name!r}, the seat's {mine.account!r}")
    if listed.account.kind != K.ACCOUNT_KIND_BOT:
        problems.append(f"ListPlayerGames: the account's kind is {K.AccountKind.Name(listed.account.kind)}")
    ours = [g for g in listed.games if g.game_id == game_id]  # newest first: on the first page
    if not ours:
        problems.append(f"ListPlayerGames of {listed.account.name!r} does not list the game "
                        f"(it lists {[g.game_id for g in listed.games]})")
    elif ours[0].seat != seat or ours[0].finished_unix_ms == 0:
        problems.append(f"ListPlayerGames lists the game at seat {ours[0].seat} (ours: {seat}), "
                        f"finished at {ours[0].finished_unix_ms}")
    if problems:
        raise CheckFailed(f"game {game_id}, signed in: " + "; ".join(problems))
    return mine.account


def ladder_pool(a):
    """The ladder pool of --rules / --format / --players (RatingService's pool ids)."""
    if not a.format:
        return f"gin/{a.rules}"
    if a.format in ("three-player", "teams"):
        return a.format
    if a.format in ("gin-7", "rummy") and a.players:
        return f"{a.format}/{a.players}"
    sys.exit("--ladder: --format three-player, teams, or gin-7 / rummy with --players")


def join_ladder(channel, pool, md):
    """Queues the account in the pool's ladder and waits for its seat: the LadderMatched
    (game, seat, seat token, everyone at the table). Prints where it stands once."""
    ladder = ladder_pb2_grpc.LadderServiceStub(channel)
    told = False
    for m in ladder.JoinLadder(ladder_pb2.JoinLadderRequest(pool=pool), metadata=md):
        if m.HasField("queued") and not told:
            q, told = m.queued, True
            print(f"ladder {q.pool}: rating {q.rating:.0f} ±{q.deviation:.0f}"
                  f"{' provisional' if q.provisional else ''} after {q.games} rated games; {q.waiting} waiting",
                  flush=True)
        elif m.HasField("matched"):
            return m.matched
    raise CheckFailed("the ladder's stream ended before seating us")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", default=os.environ.get("GIN_SERVER", "127.0.0.1:50051"),
                   help="host:port (an http:// prefix is accepted)")
    p.add_argument("--vs-bot", default="simple", help="the house bot: random, simple or strong")
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--rules", default="standard", help="a preset name (two-player gin)")
    p.add_argument("--format", default="",
                   help="a table of another format: a preset (three-player, teams, gin-7, rummy) or a "
                        "format as a JSON document; the house bots take every other seat")
    p.add_argument("--players", type=int, default=0, help="with --format: the table size (0: the format's own)")
    p.add_argument("--name", default="python-example")
    p.add_argument("--quick-wait-ms", type=int, default=None,
                   help="seat each game by QuickMatch: a person asking for the same rules within this "
                        "many ms, else the --vs-bot house bot (house bots in every empty seat)")
    p.add_argument("--stale-first-action", action="store_true",
                   help="send each game's first action with a stale expected_seq, to show the ABORTED resync")
    signin = p.add_mutually_exclusive_group()
    signin.add_argument("--account-token", default=os.environ.get("GIN_ACCOUNT_TOKEN") or None, metavar="TOKEN",
                        help="play as this account (gin_at_…; default GIN_ACCOUNT_TOKEN): its token goes "
                             "with the lobby calls, so each seat is the account's")
    signin.add_argument("--register", metavar="NAME",
                        help="register a bot account NAME, print its token once to stderr, play as it")
    p.add_argument("--ladder", action="store_true",
                   help="signed in: play the server's rated ladder (the pool of --rules, or --format and "
                        "--players) instead of house bots")
    a = p.parse_args()
    if a.account_token and not a.account_token.startswith(ACCOUNT_TOKEN_PREFIX):
        p.error(f"--account-token: not an account token (those start with {ACCOUNT_TOKEN_PREFIX})")
    if a.players and not a.format:
        p.error("--players needs --format (two-player gin has two)")
    # Two-player gin takes `rules`; another format takes `format` and `players` (not both).
    table = {"format": a.format, "players": a.players} if a.format else {"rules": K.Rules(preset=a.rules)}
    target = a.server.removeprefix("http://")
    channel = grpc.insecure_channel(target)
    grpc.channel_ready_future(channel).result(timeout=15)
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    games = game_pb2_grpc.GameServiceStub(channel)
    accounts = account_pb2_grpc.AccountServiceStub(channel)
    token = register(channel, a.register) if a.register else a.account_token
    # Signed in: the account token goes with the lobby calls (the seat is the account's) and
    # with the checks; the seat token still plays the seat.
    account_md = [("authorization", f"Bearer {token}")] if token else []
    if a.ladder and not token:
        p.error("--ladder: the ladder is an account's: --account-token, GIN_ACCOUNT_TOKEN or --register")
    pool = ladder_pool(a) if a.ladder else None
    account = None
    won = 0
    started = time.time()
    for i in range(a.games):
        against = f"house bot {a.vs_bot}"
        if pool:
            created = join_ladder(channel, pool, account_md)
            against = "ladder: " + ", ".join(f"{s.name} ({s.rating:.0f})" for k, s in enumerate(created.seats)
                                             if k != created.seat)
        elif a.quick_wait_ms is None:
            created = call(
                lobby.CreateGame,
                lobby_pb2.CreateGameRequest(**table, join=True, name=a.name, house_bot=a.vs_bot),
                metadata=account_md,
                timeout=20,
                once=True,
            )
        else:
            created = call(
                lobby.QuickMatch,
                lobby_pb2.QuickMatchRequest(**table, name=a.name, house_bot=a.vs_bot,
                                            house_bot_after_ms=a.quick_wait_ms),
                metadata=account_md,
                timeout=70,
                once=True,
            )
            if created.house_bot != a.vs_bot:
                raise CheckFailed(f"quick match: paired with {created.house_bot or 'a person'}, "
                                  f"expected the {a.vs_bot} house bot (nobody else is asking)")
        game_id, seat, seat_token = created.game_id, created.seat, created.seat_token
        snap = call(games.GetGame, game_pb2.GetGameRequest(game_id=game_id), timeout=20).snapshot
        result, hands, actions, aborted = play(games, game_id, seat, seat_token, a.stale_first_action,
                                               team_play=snap.format.kind == "teams")
        signed = ""
        if token:
            account = check_account(games, accounts, game_id, seat, account_md)
            signed = f"; account {account} (bot) checked"
        if snap.format.kind not in ("", "gin"):
            moves, reveals = check_table(games, game_id, seat, result, snap, hands, actions)
            won += seat in result.winners
            f = snap.format
            team = f", team {snap.seats[seat].team}" if snap.seats[seat].HasField("team") else ""
            teams = f", team totals {list(result.team_totals)}" if result.team_totals else ""
            print(f"[{i + 1}/{a.games}] {game_id} seat {seat} of {f.players} ({f.kind}{team}) vs {against}: "
                  f"{'won' if seat in result.winners else 'lost'}, place {result.places[seat]}, "
                  f"totals {list(result.table_totals)}{teams} ({hands} hands, {actions} actions, {aborted} "
                  f"aborted; record checked: {moves} moves of seat {seat}, {reveals} deal reveals{signed})", flush=True)
            continue
        reveals = check(games, game_id, seat, result, snap.rules)
        verdict = "drew" if not result.HasField("winner") else "won" if result.winner == seat else "lost"
        won += verdict == "won"
        print(f"[{i + 1}/{a.games}] {game_id} seat {seat} vs {against}: {verdict} "
              f"{result.totals[seat]}-{result.totals[1 - seat]} ({hands} hands, {actions} actions, "
              f"{aborted} aborted; record checked, {reveals} deal reveals{signed})", flush=True)
    signed = f"; signed in as bot account {account}: every seat its, every game in its ListPlayerGames" if account else ""
    print(f"{a.games} games: {won} won, {a.games - won} lost or drawn; every result checked against GetRecord"
          f"{signed}; {time.time() - started:.1f} s")


if __name__ == "__main__":
    try:
        main()
    except CheckFailed as e:
        sys.exit(f"check failed: {e}")
    except grpc.RpcError as e:
        sys.exit(f"error: {e.code().name}: {e.details()}")
