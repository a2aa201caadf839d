"""Tables with hands known (phones, the simulated table), built from chosen hands for the tests."""
from __future__ import annotations

from collections import Counter

import engine
from companion import table as T


def dealt(finals: list[list[str]], variant: str = "classic", players: int = 4,
          mode: str = "highlight") -> tuple[T.Setup, list[T.Event], T.TableState]:
    """A game just after the first exchange in which seat s holds `finals[i]` (i: s's place).

    Each seat gives the last card its receiver should end with, so the deal is worked out
    backwards. Returns the setup, the events (as a journal would hold them) and the state.
    """
    setup = T.Setup(variant, players, mode)
    st = T.new_state(setup)
    events: list[T.Event] = [T.BoardSettled.of(T.occupancy(st.position))]
    st, _ = T.apply(st, events[0])
    final = {s: list(h) for s, h in zip(st.seats, finals)}
    hands: list[tuple[str, ...]] = []
    gifts: list[T.CardGiven] = []
    for s in range(len(st.position.pieces)):
        if s not in st.seats:
            hands.append(())
            continue
        gift = final[st.receiver(s)][-1]
        hands.append(tuple(final[s][:-1]) + (gift,))
        gifts.append(T.CardGiven(s, gift))
    left = Counter({c: n for c, n in st.variant.deck})
    left.subtract(c for h in hands for c in h)
    assert min(left.values()) >= 0, "more of a card than the deck holds"
    events.append(T.Deal(0, tuple(hands), tuple(sorted(left.elements()))))
    events += gifts
    for ev in events[1:]:
        st, _ = T.apply(st, ev)
    assert st.phase == "play" and all(sorted(st.hands[s]) == sorted(final[s]) for s in st.seats)
    return setup, events, st


class Game:
    """Events applied one by one, kept as a journal keeps them (refused ones are not kept)."""

    def __init__(self, setup: T.Setup, events: list[T.Event], state: T.TableState) -> None:
        self.setup, self.events, self.state = setup, list(events), state

    def do(self, ev: T.Event) -> T.TableState:
        self.state, _ = T.apply(self.state, ev)
        self.events.append(ev)
        return self.state

    def play(self, card: str, pick=None) -> T.TableState:
        """The seat whose turn it is shows `card` and sets out its first play (or `pick`'s)."""
        self.do(T.CardSeen(card, self.state.turn))
        plays = self.state.plays
        play = plays[0] if pick is None else next(p for p in plays if pick(p))
        return self.settle(play)

    def settle(self, play: engine.Play) -> T.TableState:
        if play.disc_turn:
            self.do(T.BoardSettled.of(T.occupancy(T.unturned(play))))
            for _ in range(abs(play.disc_turn)):
                self.do(T.DiscTurned(1 if play.disc_turn > 0 else -1))
        return self.do(T.BoardSettled.of(T.occupancy(play.result)))

    def journal(self) -> list[tuple[int, float, T.Event]]:
        return [(i, 0.0, ev) for i, ev in enumerate(self.events)]
