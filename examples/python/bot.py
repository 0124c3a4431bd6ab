#!/usr/bin/env python3
"""A small Gin Rummy bot in Python: grpcio, stubs generated from proto/ at start.

It creates games against one of the server's house bots (or, with --quick-wait-ms, asks for
a quick match and plays that house bot if nobody else asked in time), watches its seat's
event stream,
and plays the legal actions the server sends with each of its turns (with expected_seq,
resyncing on ABORTED), to game over. After each game it reads the record back (GetRecord)
and checks that it agrees with the game-over event: a winner, the target reached, the same
totals. Exit status 0 only if every game finished and every check passed.

    python bot.py --server 127.0.0.1:50051 --vs-bot simple --games 3
"""

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "proto"))
GEN = os.path.join(HERE, "gen")
PROTOS = ["gin/v1/types.proto", "gin/v1/game.proto", "gin/v1/lobby.proto", "gin/v1/tournament.proto"]


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
from gin.v1 import game_pb2, game_pb2_grpc, lobby_pb2, lobby_pb2_grpc, types_pb2  # noqa: E402

K = types_pb2  # ActionKind, DrawSource, … values


class CheckFailed(Exception):
    """The result read back disagrees with the game-over event."""


def choose(turn):
    """Picks one of the legal actions the server sent. Knock when we may (gin first, then
    the least deadwood); otherwise discard the server's suggested best discard; draw from
    the stock and pass the upcard."""
    legal = list(turn.legal_actions)
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
        games.TakeUpcard(game_pb2.TakeUpcardRequest(game_id=game_id, expected_seq=seq), metadata=md, timeout=20)
    elif action.kind == K.ACTION_KIND_PASS_UPCARD:
        games.PassUpcard(game_pb2.PassUpcardRequest(game_id=game_id, expected_seq=seq), metadata=md, timeout=20)
    elif action.kind in (K.ACTION_KIND_DRAW_STOCK, K.ACTION_KIND_DRAW_PILE):
        source = K.DRAW_SOURCE_STOCK if action.kind == K.ACTION_KIND_DRAW_STOCK else K.DRAW_SOURCE_PILE
        games.Draw(game_pb2.DrawRequest(game_id=game_id, expected_seq=seq, source=source), metadata=md, timeout=20)
    elif action.kind == K.ACTION_KIND_DISCARD:
        games.Discard(game_pb2.DiscardRequest(game_id=game_id, expected_seq=seq, card=action.card), metadata=md, timeout=20)
    elif action.kind == K.ACTION_KIND_KNOCK:
        # No melds: the server lays down a minimum-deadwood arrangement.
        games.Knock(game_pb2.KnockRequest(game_id=game_id, expected_seq=seq, discard=action.card), metadata=md, timeout=20)
    elif action.kind == K.ACTION_KIND_BIG_GIN:
        games.Knock(game_pb2.KnockRequest(game_id=game_id, expected_seq=seq, discard=""), metadata=md, timeout=20)
    else:
        raise ValueError(f"unknown action kind {action.kind}")


def act(games, game_id, seat, token, turn, seq, stale):
    """Plays our turn: one of its legal actions with expected_seq = seq. On ABORTED (the seq
    is stale: nothing was applied) it resyncs with GetGame: if it is still our turn, it
    decides again from the snapshot's legal actions and seq; if not, the stream brings what
    happened. Returns (the seq the action was accepted at or None, ABORTED refusals)."""
    md = [("authorization", f"Bearer {token}")]
    aborted = 0
    while True:
        try:
            send(games, game_id, token, seq - 1 if stale else seq, choose(turn))
            return seq, aborted
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.ABORTED:
                raise
        aborted += 1
        stale = False
        snap = games.GetGame(game_pb2.GetGameRequest(game_id=game_id), metadata=md, timeout=20).snapshot
        print(f"  ABORTED at seq {seq} (the game is at {snap.seq}): resyncing", file=sys.stderr)
        if not (snap.HasField("seat_to_act") and snap.seat_to_act == seat and snap.HasField("turn")):
            return None, aborted
        turn, seq = snap.turn, snap.seq


def play(games, game_id, seat, token, stale_first=False):
    """Plays our seat to game over. Returns (game-over result, hands played, actions sent,
    ABORTED refusals). With stale_first, the first action goes with a stale expected_seq,
    to show the resync."""
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
                    if snap.phase == K.PHASE_GAME_OVER:
                        stream.cancel()
                        return snap.result, len(snap.hands), actions, aborted
                    if not (snap.HasField("seat_to_act") and snap.seat_to_act == seat and snap.HasField("turn")):
                        continue
                    turn = snap.turn
                elif which == "event":
                    ev = msg.event
                    if ev.seq <= last_seq:
                        continue  # already seen (after a resume)
                    last_seq = ev.seq
                    kind = ev.WhichOneof("kind")
                    if kind == "hand_ended":
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
                done, n = act(games, game_id, seat, token, turn, last_seq, stale_first and actions == 0)
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
    rec = games.GetRecord(game_pb2.GetRecordRequest(game_id=game_id), timeout=20)
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


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--server", default=os.environ.get("GIN_SERVER", "127.0.0.1:50051"),
                   help="host:port (an http:// prefix is accepted)")
    p.add_argument("--vs-bot", default="simple", help="the house bot: random, simple or strong")
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--rules", default="standard", help="a preset name")
    p.add_argument("--name", default="python-example")
    p.add_argument("--quick-wait-ms", type=int, default=None,
                   help="seat each game by QuickMatch: a person asking for the same rules within this "
                        "many ms, else the --vs-bot house bot")
    p.add_argument("--stale-first-action", action="store_true",
                   help="send each game's first action with a stale expected_seq, to show the ABORTED resync")
    a = p.parse_args()
    target = a.server.removeprefix("http://")
    channel = grpc.insecure_channel(target)
    grpc.channel_ready_future(channel).result(timeout=15)
    lobby = lobby_pb2_grpc.LobbyServiceStub(channel)
    games = game_pb2_grpc.GameServiceStub(channel)
    won = 0
    started = time.time()
    for i in range(a.games):
        if a.quick_wait_ms is None:
            created = lobby.CreateGame(
                lobby_pb2.CreateGameRequest(rules=K.Rules(preset=a.rules), join=True, name=a.name,
                                            house_bot=a.vs_bot),
                timeout=20,
            )
        else:
            created = lobby.QuickMatch(
                lobby_pb2.QuickMatchRequest(rules=K.Rules(preset=a.rules), name=a.name, house_bot=a.vs_bot,
                                            house_bot_after_ms=a.quick_wait_ms),
                timeout=70,
            )
            if created.house_bot != a.vs_bot:
                raise CheckFailed(f"quick match: paired with {created.house_bot or 'a person'}, "
                                  f"expected the {a.vs_bot} house bot (nobody else is asking)")
        game_id, seat, token = created.game_id, created.seat, created.seat_token
        snap = games.GetGame(game_pb2.GetGameRequest(game_id=game_id), timeout=20).snapshot
        result, hands, actions, aborted = play(games, game_id, seat, token, a.stale_first_action)
        reveals = check(games, game_id, seat, result, snap.rules)
        if a.stale_first_action and aborted == 0:
            raise CheckFailed(f"game {game_id}: the stale first action was not refused with ABORTED")
        verdict = "drew" if not result.HasField("winner") else "won" if result.winner == seat else "lost"
        won += verdict == "won"
        print(f"[{i + 1}/{a.games}] {game_id} seat {seat} vs house bot {a.vs_bot}: {verdict} "
              f"{result.totals[seat]}-{result.totals[1 - seat]} ({hands} hands, {actions} actions, "
              f"{aborted} aborted; record checked, {reveals} deal reveals)", flush=True)
    print(f"{a.games} games: {won} won, {a.games - won} lost or drawn; every result checked against GetRecord; "
          f"{time.time() - started:.1f} s")


if __name__ == "__main__":
    try:
        main()
    except CheckFailed as e:
        sys.exit(f"check failed: {e}")
    except grpc.RpcError as e:
        sys.exit(f"error: {e.code().name}: {e.details()}")
