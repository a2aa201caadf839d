"""A deliberately naive second enumeration of legal plays, written only for the tests.

It shares no code with engine/moves.py: it works on plain Python dicts of location
strings ("K", "T<i>", "H<j>") taken from a position's JSON form, walks every move one
step at a time and reads the rules straight from RULES.md §2–§4. It is slow on purpose
and has no memo tricks: the 7 is a plain recursive search over every way to spend the
points one single step at a time, any piece in any order, a piece free to move in
several separate parts (each step on an occupied track field burns that piece).

Results are canonical piece keys: a tuple per seat (None for an empty seat) of the
seat's sorted location strings.

Black DOG's partner card (`partner_plays`, RULES.md §6) is here too: the 4 points spent as
whole moves of distinct pieces, in every order, with the black dog and the disc. Only the
disc's layout (which fields, which paws, how far a quarter turn carries) is read from the
board data, as a player reads it off the board.
"""
from __future__ import annotations

import engine

SEGMENT = 16
HOME_SLOTS = {"classic": 4, "compact": 3, "black": 4}
SOLO_WIN = {"classic": 4, "compact": 3, "black": 4}
DECK = ("1/11", "2", "3", "4", "5", "6", "7", "8", "9", "10", "12", "13", "swap", "joker")
FORWARD = {"1/11": (1, 11), "2": (2,), "3": (3,), "4": (4,), "5": (5,), "6": (6,), "8": (8,),
           "9": (9,), "10": (10,), "12": (12,), "13": (13,)}


class Game:
    """The facts a position JSON implies: board size, seats, teams, home size."""

    def __init__(self, obj: dict):
        self.variant = obj["variant"]
        self.pieces_json = obj["pieces"]
        self.segments = obj.get("board") or len(obj["pieces"])
        self.track = SEGMENT * self.segments
        self.slots = HOME_SLOTS[self.variant]
        seats = [s for s, p in enumerate(self.pieces_json) if p is not None]
        self.seats = seats
        self.team_game = len(seats) in (4, 6) and len(seats) == self.segments

    def partner(self, seat: int):
        if not self.team_game:
            return None
        return (seat + self.segments // 2) % self.segments

    def start(self, seat: int) -> int:
        return SEGMENT * seat

    def start_owner(self, field: int):
        if field % SEGMENT == 0:
            return field // SEGMENT
        return None

    def initial_state(self) -> dict:
        """{(seat, index): location string}"""
        state = {}
        for seat, locs in enumerate(self.pieces_json):
            if locs is None:
                continue
            for i, loc in enumerate(locs):
                state[(seat, i)] = loc
        return state

    def key(self, state: dict) -> tuple:
        out = []
        for seat, locs in enumerate(self.pieces_json):
            if locs is None:
                out.append(None)
            else:
                out.append(tuple(sorted(state[(seat, i)] for i in range(len(locs)))))
        return tuple(out)


def result_key(obj: dict) -> tuple:
    """Canonical key of a position JSON (for comparing with the engine's results)."""
    return tuple(None if p is None else tuple(sorted(p)) for p in obj["pieces"])


def on_track(loc: str) -> bool:
    return loc.startswith("T")


def in_home(loc: str) -> bool:
    return loc.startswith("H")


def field(loc: str) -> int:
    return int(loc[1:])


def who_is_on(state: dict, loc: str):
    """The piece on track field `loc`, or None (home slots are per seat: not asked here)."""
    for pid, where in state.items():
        if where == loc:
            return pid
    return None


def home_taken(state: dict, seat: int, slot: int) -> bool:
    for (s, _), where in state.items():
        if s == seat and where == f"H{slot}":
            return True
    return False


def protected(g: Game, state: dict, f: int) -> bool:
    owner = g.start_owner(f)
    if owner is None:
        return False
    pid = who_is_on(state, f"T{f}")
    return pid is not None and pid[0] == owner


def all_home(state: dict, seat: int) -> bool:
    return all(in_home(loc) for (s, _), loc in state.items() if s == seat)


def winner(g: Game, state: dict) -> bool:
    if g.team_game:
        return any(all_home(state, s) and all_home(state, g.partner(s)) for s in g.seats)
    for s in g.seats:
        if sum(1 for (t, _), loc in state.items() if t == s and in_home(loc)) >= SOLO_WIN[g.variant]:
            return True
    return False


def acting_seat(g: Game, state: dict, seat: int) -> int:
    if g.team_game and all_home(state, seat):
        return g.partner(seat)
    return seat


def one_step(g: Game, state: dict, pid, loc: str, has_moved: bool) -> list[str]:
    """Where piece `pid`, now at `loc`, may go with one forward step."""
    seat = pid[0]
    out = []
    if loc == "K":
        return out
    if in_home(loc):
        nxt = field(loc) + 1
        if nxt < g.slots and not home_taken(state, seat, nxt):
            out.append(f"H{nxt}")
        return out
    f = field(loc)
    nf = (f + 1) % g.track
    if not protected(g, state, nf):
        out.append(f"T{nf}")
    # Home is entered by passing over the own start field: never straight from it.
    if f == g.start(seat) and has_moved and not home_taken(state, seat, 0):
        out.append("H0")
    return out


def forward_destinations(g: Game, state: dict, pid, k: int) -> set[str]:
    """Every field piece `pid` reaches with exactly k forward steps (one single move)."""
    ends = set()

    def walk(loc: str, left: int, moved: bool) -> None:
        if left == 0:
            ends.add(loc)
            return
        for nxt in one_step(g, state, pid, loc, moved):
            walk(nxt, left - 1, True)

    walk(state[pid], k, False)
    return ends


def backward_destination(g: Game, state: dict, pid, k: int):
    loc = state[pid]
    if not on_track(loc):
        return None
    f = field(loc)
    for _ in range(k):
        f = (f - 1) % g.track
        if protected(g, state, f):
            return None
    return f"T{f}"


def land(state: dict, pid, dest: str) -> dict:
    """Copy of state with pid on dest; a piece already on a track field goes to its kennel."""
    new = dict(state)
    if on_track(dest):
        other = who_is_on(state, dest)
        if other is not None and other != pid:
            new[other] = "K"
    new[pid] = dest
    return new


def plays(obj: dict, card: str, seat: int) -> set[tuple]:
    """The set of canonical result keys of every legal play of `card` by `seat`."""
    g = Game(obj)
    state = g.initial_state()
    if winner(g, state):
        return set()
    if card == "joker":
        out = set()
        for other in DECK:
            if other != "joker":
                out |= plays(obj, other, seat)
        return out
    mover = acting_seat(g, state, seat)
    mine = [pid for pid in state if pid[0] == mover]
    out = set()
    if card in ("1/11", "13"):
        start = f"T{g.start(mover)}"
        if not protected(g, state, g.start(mover)):
            for pid in mine:
                if state[pid] == "K":
                    out.add(g.key(land(state, pid, start)))
    if card in FORWARD:
        for k in FORWARD[card]:
            for pid in mine:
                for dest in forward_destinations(g, state, pid, k):
                    out.add(g.key(land(state, pid, dest)))
    if card == "4":
        for pid in mine:
            dest = backward_destination(g, state, pid, 4)
            if dest is not None:
                out.add(g.key(land(state, pid, dest)))
    if card == "swap":
        for pid in mine:
            for qid in state:
                if qid[0] == mover:
                    continue
                a, b = state[pid], state[qid]
                if not (on_track(a) and on_track(b)):
                    continue
                if protected(g, state, field(a)) or protected(g, state, field(b)):
                    continue
                new = dict(state)
                new[pid], new[qid] = b, a
                out.add(g.key(new))
        if not out:
            out.add(g.key(state))  # classic/compact: laid down without effect
    if card == "7":
        seven(g, state, seat, 7, frozenset(), out)
    return out


def seven_movers(g: Game, state: dict, seat: int) -> list:
    own = acting_seat(g, state, seat)
    if all_home(state, own):
        # the acting seat's last piece went home part-way: its partner's pieces carry on
        partner = g.partner(own)
        if partner is None or all_home(state, partner):
            return []
        own = partner
    return [pid for pid in state if pid[0] == own]


def occupancy(state: dict) -> dict:
    """Who stands where: "T<i>" -> piece, and (seat, "H<j>") -> piece."""
    occ = {}
    for pid, loc in state.items():
        if on_track(loc):
            occ[loc] = pid
        elif in_home(loc):
            occ[(pid[0], loc)] = pid
    return occ


def seven(g: Game, state: dict, seat: int, left: int, moved: frozenset, out: set) -> None:
    """Spend the 7 one single step at a time: any own piece, any order, in as many parts as wanted.

    Every step onto an occupied track field burns that piece (passing and landing alike).
    """
    if left == 0:
        out.add(g.key(state))
        return
    occ = occupancy(state)
    for pid in seven_movers(g, state, seat):
        loc = state[pid]
        steps = []
        if in_home(loc):
            nxt = f"H{field(loc) + 1}"
            if field(loc) + 1 < g.slots and (pid[0], nxt) not in occ:
                steps.append(nxt)
        elif on_track(loc):
            f = field(loc)
            nf = f"T{(f + 1) % g.track}"
            owner = g.start_owner((f + 1) % g.track)
            blocker = occ.get(nf)
            if not (owner is not None and blocker is not None and blocker[0] == owner):
                steps.append(nf)
            if f == g.start(pid[0]) and pid in moved and (pid[0], "H0") not in occ:
                steps.append("H0")
        for dest in steps:
            new = dict(state)
            victim = occ.get(dest)
            if victim is not None and on_track(dest):
                new[victim] = "K"
            new[pid] = dest
            seven(g, new, seat, left - 1, moved | {pid}, out)


def partner_seats(g: Game, state: dict, seat: int) -> set[int]:
    """Black DOG: own and partner's pieces; once either of the two has all pieces home, both
    may use any seat's pieces (rulebook: "dürfen die Spieler dieses Teams ..."); solo: any seat."""
    if not g.team_game or all_home(state, seat) or all_home(state, g.partner(seat)):
        return set(g.seats)
    return {seat, g.partner(seat)}


def partner_plays(obj: dict, seat: int) -> set[tuple]:
    """Every result of Black DOG's partner card by `seat`: (piece key, black dog, disc).

    The 4 points go to distinct pieces, each in one whole forward move, in any order; a piece
    landing on another captures it, one landing on the black dog is captured itself (the dog
    never moves). If a piece that moved stands on a paw at the end, the disc turns a quarter
    either way, carrying every piece and the dog on it.
    """
    g = Game(obj)
    state = g.initial_state()
    if winner(g, state):
        return set()
    board = engine.load_board("black", g.segments)
    disc_fields = {f"T{f}" for f in board.disc_fields}
    paws = {f"T{f}" for f in board.paw_fields}
    dog = obj.get("black_dog")
    disc = obj.get("disc", 0) or 0
    seats = partner_seats(g, state, seat)
    out: set[tuple] = set()

    def turned(loc: str, d: int) -> str:
        if loc not in disc_fields:
            return loc
        return f"T{(field(loc) + d * board.disc_shift) % g.track}"

    def spend(cur: dict, left: int, used: frozenset) -> None:
        if left == 0:
            if any(cur[pid] in paws for pid in used):
                for d in (1, -1):
                    new = {pid: turned(loc, d) for pid, loc in cur.items()}
                    out.add((g.key(new), turned(dog, d) if dog else dog, (disc + d) % 4))
            else:
                out.add((g.key(cur), dog, disc))
            return
        for pid in cur:
            if pid[0] not in seats or pid in used:
                continue
            for k in range(1, left + 1):
                for dest in forward_destinations(g, cur, pid, k):
                    if dest == dog:
                        new = dict(cur)
                        new[pid] = "K"
                    else:
                        new = land(cur, pid, dest)
                    spend(new, left - k, used | {pid})

    spend(state, 4, frozenset())
    return out
