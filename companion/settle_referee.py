"""What the game knows, told to the camera's settle filter (`vision.settle.SettleFilter`).

The real table's devices and the simulated camera both read the board through the settle
filter; `SettleReferee` lets the filter commit a still board with a few fields unread
when exactly one legal play explains it.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import engine
from companion import table as T


class SettleReferee:
    """What the game knows, told to the camera's settle filter (vision.settle.SettleFilter).

    `tell(settle)` gives the filter the game's board after every accepted play (the filter
    compares a still board with a few fields unread against it), and `explains` is the
    filter's referee for such a board: exactly one legal play of the current state leads to
    a board that agrees with the reading on every field read, and that play leaves the
    unknown fields as they were. The unknown fields then keep the game's word, never a
    guess, and are read again on the next frames.
    """

    def __init__(self, state: Callable[[], T.TableState]) -> None:
        self.state = state
        self._last: T.TableState | None = None
        self._plays: tuple[engine.Position, int | None, str | None, list[engine.Play]] | None = None

    def tell(self, settle: Any) -> None:
        st, last = self.state(), self._last
        self._last = st
        if last is None or st.position == last.position:
            return
        # Only a play the game accepted: at the start the camera itself must see the pieces
        # set out, and after an undo the board the camera saw is not to be sent again.
        key = T.board_key(st.position)
        if not any(T.board_key(p.result) == key for p in last.plays):
            return
        board = st.position.field_occupancy()
        seen = settle.committed_board
        # the camera's own board of the same position (a captured piece may stand in another
        # kennel spot than the game's first free one) stays: it is what the camera sees
        if seen is None or not _same_board(seen, board):
            settle.expect(board)

    def explains(self, before: dict[str, str], after: dict[str, str], unknown: tuple[str, ...]) -> bool:
        st = self.state()
        if st.phase != "play":
            return False
        pos = st.position
        known = pos.field_occupancy()
        # the filter's word for an unknown track or home field is not the game's: read it first
        # (kennel spots are not told apart; the filter's piece counts cover them)
        if any(before.get(f) != known.get(f) for f in unknown if "K" not in f):
            return False
        hidden = set(unknown)
        want = {f: who for f, who in _track_and_home(after).items() if f not in hidden}
        boards = set()
        for play in self._candidates(st):
            results = [play.result]
            if play.disc_turn:  # the board shows the play before the disc is turned, too
                results.append(T.rotate_disc(play.result, -play.disc_turn))
            for res in results:
                occ = T.occupancy(res)
                if {f: who for f, who in occ.items() if f not in hidden} == want:
                    boards.add(tuple(sorted(occ.items())))
        if len(boards) != 1:
            return False  # no play, or several that differ on the unknown fields: read them first
        occ = dict(next(iter(boards)))
        return all(occ.get(f) == known.get(f) for f in hidden if "K" not in f)

    def _candidates(self, st: T.TableState) -> list[engine.Play]:
        """The plays of the card in play, or of every card while the pile is not read yet."""
        if st.card is not None:
            return list(st.plays)
        seat = st.card_seat if st.card_seat is not None else st.turn
        key = (st.position, seat, st.card)
        if self._plays is None or self._plays[:3] != key:
            cards = sorted(st.position.variant.cards)
            plays = [p for ps in engine.legal_moves_for_hand(st.position, cards, seat).values() for p in ps]
            self._plays = (*key, plays)
        return self._plays[3]


def _same_board(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    """The same pieces on the same track and home fields, and as many in each kennel."""
    return _track_and_home(a) == _track_and_home(b) and _kennels(a) == _kennels(b)


def _track_and_home(board: Mapping[str, str]) -> dict[str, str]:
    """A board without its kennel spots (as companion.table.occupancy: they are not told apart)."""
    return {f: who for f, who in board.items() if "K" not in f}


def _kennels(board: Mapping[str, str]) -> Counter[str]:
    """How many pieces stand in each kennel ("S2K0" and "S2K3" count for kennel "S2")."""
    return Counter(f.split("K")[0] for f in board if "K" in f)
