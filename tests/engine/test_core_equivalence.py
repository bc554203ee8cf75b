"""The compiled core (``elferraus._core``) against its reference, ``PyState``.

Both cores are built from the same deal and driven through the same seeded
random games; after every step every observable part of the state must be
the same, down to the identity of the Move objects. Also: take-backs,
copies, loaded positions, illegal moves, bad arguments, refcounts, and the
compiled helpers of the deal (same deals as the pure-Python code).

Without a built ``_core`` these tests are skipped, unless the environment
variable CI is set: the CI machine has a C compiler, so there a missing
``_core`` is a failure.
"""

from __future__ import annotations

import copy
import gc
import hashlib
import os
import pickle
import random
import struct
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from elferraus import Game, Rules, format_position
from elferraus._pystate import PyState
from elferraus.core import py_key_order
from elferraus.deal import deal_cards
from elferraus.moves import DRAW, LAYS, PASS, Move

try:
    from elferraus import _core
except ImportError as error:  # not built: see _need_core
    _core = None
    _CORE_ERROR: ImportError | None = error
else:
    _CORE_ERROR = None

ALL_MOVES = (*LAYS, DRAW, PASS)

RULE_SETS = {
    "classic": Rules.preset("classic"),
    "ravensburger": Rules.preset("ravensburger"),
    "beginners": Rules.preset("beginners"),
    "continue": Rules(after_draw="continue"),
    "max_draws-1": Rules(max_draws=1),
    "max_draws-5": Rules(max_draws=5),
}
PLAYERS = (2, 3, 4, 5, 6)
GAMES_PER_CASE = 100  # 6 rule sets x 5 player counts x 100 = 3,000 games


def _need_core() -> Any:
    """The compiled module, or skip (fail under CI) when it was not built."""
    if _core is None:
        if os.environ.get("CI"):
            pytest.fail(f"elferraus._core is not built ({_CORE_ERROR}); the CI machine has a C compiler")
        pytest.skip(f"elferraus._core is not built ({_CORE_ERROR}): no C compiler at install time?")
    return _core


class RefusedError(Exception):
    """What the test subclasses' ``_illegal`` returns."""


def _make_classes() -> tuple[type, type]:
    core = _need_core()

    class CoreSub(core.CoreState):  # type: ignore[misc, name-defined]
        __slots__ = ("extra", "more")

        def _illegal(self, move: object) -> Exception:
            return RefusedError(move, self.turn)

    class PySub(PyState):
        __slots__ = ("extra", "more")

        def _illegal(self, move: object) -> Exception:
            return RefusedError(move, self.turn)

    return CoreSub, PySub


def _args(players: int, seed: int, rules: Rules) -> tuple[Any, ...]:
    deal = deal_cards(players, seed, rules)
    hands = [sum(1 << card for card in hand) for hand in deal.hands]
    return hands, deal.pile, len(rules.colors), rules.max_draws, rules.must_play, rules.after_draw == "end"


def _state(state: Any) -> tuple[Any, ...]:
    seats = range(state.players)
    return (
        state.players,
        state.turn,
        state.is_over(),
        state._winner_seat(),
        state._fit_mask(),
        state._phase(),
        tuple(state._hand_mask(seat) for seat in seats),
        tuple(state._hand_count(seat) for seat in seats),
        state._pile_indices(),
        state._pile_left(),
        state._stack_size(),
    )


def _ids(moves: tuple[Move, ...]) -> list[int]:
    return [id(move) for move in moves]


def _check(core: Any, py: Any, *, stack: bool = False) -> None:
    """Everything observable is the same (the whole undo stack if ``stack``)."""
    assert _state(core) == _state(py)
    assert _ids(core.legal_moves()) == _ids(py.legal_moves())
    size = py._stack_size()
    if stack:
        entries = [py._stack_entry(i) for i in range(size)]
        assert [core._stack_entry(i) for i in range(size)] == entries
        assert [id(e[0]) for e in entries] == [id(core._stack_entry(i)[0]) for i in range(size)]
    elif size:
        assert core._stack_entry(size - 1) == py._stack_entry(size - 1)
        assert core._stack_entry(-1)[0] is py._stack_entry(-1)[0]


def _push_both(core: Any, py: Any, move: Any) -> None:
    core.push(move)
    py.push(move)


def _try_illegal(core: Any, py: Any, rng: random.Random) -> None:
    """An illegal push raises what ``_illegal`` returns and changes nothing."""
    legal = py.legal_moves()
    move = rng.choice([m for m in ALL_MOVES if m not in legal] or [None])
    if move is None:
        return
    before = _state(py)
    results = []
    for state in (core, py):
        with pytest.raises((RefusedError, ValueError)) as caught:
            state.push(move)
        results.append((type(caught.value), caught.value.args))
    assert results[0] == results[1]
    assert results[0] in [(RefusedError, (move, py.turn)), (ValueError, (f"illegal move {move!r}",))]
    assert _state(core) == _state(py) == before


def _play(core: Any, py: Any, rng: random.Random, *, steps: int = 10_000) -> None:
    """Random moves, with take-backs, illegal tries and equal copies of moves."""
    while not py.is_over() and steps > 0:
        steps -= 1
        _check(core, py)
        roll = rng.random()
        size = py._stack_size()
        if roll < 0.04 and size:
            for _ in range(rng.randint(1, min(6, size))):
                popped = py.pop()
                assert core.pop() is popped
                assert popped in ALL_MOVES
            continue
        if roll < 0.08:
            _try_illegal(core, py, rng)
            continue
        move = rng.choice(py.legal_moves())
        if roll < 0.11:
            # An equal but distinct Move is accepted; the shared one goes on the stack.
            copy = Move(move.kind, move.card)
            assert copy is not move
            _push_both(core, py, copy)
            assert core._stack_entry(-1)[0] is move
            assert py._stack_entry(-1)[0] is move
        else:
            _push_both(core, py, move)
    _check(core, py, stack=True)


def _copies(core: Any, py: Any, rng: random.Random, history: bool) -> None:
    """Copies equal the originals, keep the type, and are independent of them."""
    before = _state(py)
    core_copy, py_copy = core._copy_state(history), py._copy_state(history)
    assert type(core_copy) is type(core)
    assert type(py_copy) is type(py)
    _check(core_copy, py_copy, stack=True)
    if history:
        assert _state(core_copy) == before
        _check(core_copy, core, stack=True)
    else:
        assert core_copy._stack_size() == 0
        assert core_copy._pile_indices() == core._pile_indices()
        with pytest.raises(IndexError, match="no move to take back"):
            core_copy.pop()
    _play(core_copy, py_copy, rng, steps=40)
    assert _state(core) == _state(py) == before


def _load(core: Any, py: Any, args: tuple[Any, ...], rng: random.Random) -> None:
    """A fresh state loaded with the current position plays like the original."""
    core_class, py_class = type(core), type(py)
    hands = [py._hand_mask(seat) for seat in range(py.players)]
    pile = py._pile_indices()
    position = (py.turn, *py._phase(), py._fit_mask())
    loaded_core = core_class(hands, pile, *args[2:])
    loaded_py = py_class(hands, pile, *args[2:])
    loaded_core._load_position(*position)
    loaded_py._load_position(*position)
    _check(loaded_core, loaded_py)
    assert _ids(loaded_core.legal_moves()) == _ids(core.legal_moves())
    assert loaded_core._winner_seat() == core._winner_seat()
    assert _state(loaded_core)[:10] == _state(core)[:10]
    _play(loaded_core, loaded_py, rng, steps=30)


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("rules_name", list(RULE_SETS))
def test_random_games_match(rules_name: str, players: int) -> None:
    core_class, py_class = _make_classes()
    rules = RULE_SETS[rules_name]
    rng = random.Random(f"{rules_name}-{players}")
    for game in range(GAMES_PER_CASE):
        args = _args(players, rng.randrange(2**32), rules)
        # Half the games through the plain classes, half through subclasses with slots (like Game).
        if game % 2:
            core, py = core_class(*args), py_class(*args)
            illegal_ok = True
        else:
            core, py = _need_core().CoreState(*args), PyState(*args)
            illegal_ok = False
        _check(core, py)
        stop = rng.randrange(250)
        if illegal_ok:
            _play(core, py, rng, steps=stop)
        else:
            for _ in range(stop):
                if py.is_over():
                    break
                _push_both(core, py, rng.choice(py.legal_moves()))
                _check(core, py)
        if game % 5 == 0:
            _copies(core, py, rng, history=bool(game % 10))
        if game % 5 == 1:
            _load(core, py, args, rng)
        if illegal_ok:
            _play(core, py, rng)
        else:
            while not py.is_over():
                _push_both(core, py, rng.choice(py.legal_moves()))
                _check(core, py)
        _check(core, py, stack=True)
        assert core.legal_moves() == () == py.legal_moves()
        # Take everything back: the deal again.
        while py._stack_size():
            assert core.pop() is py.pop()
        _check(core, py, stack=True)
        assert _state(core) == _state(type(core)(*args))


@pytest.mark.parametrize("players", [2, 4, 6])
@pytest.mark.parametrize("rules_name", ["classic", "ravensburger", "max_draws-5"])
def test_putting_a_pile_card_on_top_matches(rules_name: str, players: int) -> None:
    """Before some draws a card from deep in the pile is put on top (as a framework that deals each draw as
    a chance event does): both cores swap it with the top, draw it next, take it back to the top, and a copy
    keeps its own order."""
    rng = random.Random(f"on-top-{rules_name}-{players}")
    for _ in range(40):
        args = _args(players, rng.randrange(2**32), RULE_SETS[rules_name])
        core, py = _need_core().CoreState(*args), PyState(*args)
        while not py.is_over():
            pile = py._pile_indices()
            if DRAW in py.legal_moves() and rng.random() < 0.7:
                where = rng.randrange(len(pile))
                before = (core._copy_state(True), py._copy_state(True))
                assert core._put_on_top(pile[where]) == py._put_on_top(pile[where]) == where
                expected = (pile[where], *pile[1:where], pile[0], *pile[where + 1 :]) if where else pile
                assert core._pile_indices() == py._pile_indices() == expected
                assert before[0]._pile_indices() == before[1]._pile_indices() == pile  # copies keep theirs
                _push_both(core, py, DRAW)
                assert core._phase()[2] == py._phase()[2] == pile[where]
                if rng.random() < 0.2:
                    assert core.pop() is py.pop() is DRAW
                    assert core._pile_indices() == py._pile_indices() == expected
                    continue
            else:
                _push_both(core, py, rng.choice(py.legal_moves()))
            _check(core, py)
        _check(core, py, stack=True)
        for state in (core, py):
            with pytest.raises(ValueError, match="card 99 is not on the pile"):
                state._put_on_top(99)


@pytest.mark.parametrize("rules_name", list(RULE_SETS))
def test_random_loaded_phases_match(rules_name: str) -> None:
    """Odd turn phases and tables set with _load_position, then random play: still the same."""
    core_module = _need_core()
    rules = RULE_SETS[rules_name]
    rng = random.Random(rules_name)
    for _ in range(150):
        args = _args(rng.choice(PLAYERS), rng.randrange(2**32), rules)
        core, py = core_module.CoreState(*args), PyState(*args)
        for _ in range(rng.randrange(80)):
            if py.is_over():
                break
            _push_both(core, py, rng.choice(py.legal_moves()))
        turn = rng.randrange(py.players)
        laid = rng.choice([0, 0, 1, 2, 7])
        draws = rng.choice([0, 0, 1, 2, 3, 6])
        last = rng.randrange(80) if (draws and not laid) or rng.random() < 0.5 else -1
        hand = py._hand_mask(turn)
        fit = rng.choice([py._fit_mask(), rng.getrandbits(80), py._fit_mask() | (rng.getrandbits(80) & hand)])
        core._load_position(turn, laid, draws, last, fit)
        py._load_position(turn, laid, draws, last, fit)
        _play(core, py, rng, steps=60)


def test_legal_moves_are_cached_until_push_or_pop() -> None:
    core = _need_core().CoreState(*_args(4, 7, RULE_SETS["classic"]))
    first = core.legal_moves()
    assert core.legal_moves() is first
    core.push(first[0])
    second = core.legal_moves()
    assert second is not first
    assert core.legal_moves() is second
    core.pop()
    assert core.legal_moves() == first


# -- illegal moves --------------------------------------------------------------------------------


def test_illegal_push_raises_what_illegal_returns() -> None:
    core_module = _need_core()
    args = _args(3, 11, RULE_SETS["classic"])
    for state in (core_module.CoreState(*args), PyState(*args)):
        with pytest.raises(ValueError, match=r"illegal move Move\.parse\('draw'\)"):
            state.push(DRAW)
        with pytest.raises(ValueError, match="illegal move 'R11'"):
            state.push("R11")
        assert state._stack_size() == 0


@pytest.mark.parametrize(
    ("returned", "expected"),
    [
        (KeyError, KeyError),
        (lambda move: KeyError, KeyError),
        (lambda move: "not an exception", TypeError),
    ],
    ids=["instance", "class", "not-an-exception"],
)
def test_illegal_result_is_raised_like_python_raise(returned: Callable[[object], Any], expected: type) -> None:
    core_module = _need_core()

    class CoreOdd(core_module.CoreState):  # type: ignore[misc, name-defined]
        def _illegal(self, move: object) -> Any:
            return returned(move)

    class PyOdd(PyState):
        def _illegal(self, move: object) -> Any:
            return returned(move)

    args = _args(2, 5, RULE_SETS["classic"])
    for state in (CoreOdd(*args), PyOdd(*args)):
        with pytest.raises(expected):
            state.push(PASS)


def test_illegal_propagates_errors_of_illegal() -> None:
    core_module = _need_core()

    class Broken(core_module.CoreState):  # type: ignore[misc, name-defined]
        def _illegal(self, move: object) -> Exception:
            raise LookupError("from _illegal")

    state = Broken(*_args(2, 5, RULE_SETS["classic"]))
    with pytest.raises(LookupError, match="from _illegal"):
        state.push(PASS)


def test_equal_foreign_object_is_accepted_as_the_shared_move() -> None:
    core_module = _need_core()

    class LooksLikeIt:
        def __init__(self, move: Move) -> None:
            self.move = move

        def __eq__(self, other: object) -> bool:
            return other is self.move

        __hash__ = None  # type: ignore[assignment]

    args = _args(4, 3, RULE_SETS["classic"])
    core, py = core_module.CoreState(*args), PyState(*args)
    opening = py.legal_moves()[0]
    for state in (core, py):
        state.push(LooksLikeIt(opening))
        assert state._stack_entry(0)[0] is opening
    _check(core, py, stack=True)


def test_errors_in_eq_propagate() -> None:
    core_module = _need_core()

    class Bad:
        def __eq__(self, other: object) -> bool:
            raise ArithmeticError("no comparing")

        __hash__ = None  # type: ignore[assignment]

    args = _args(4, 3, RULE_SETS["classic"])
    for state in (core_module.CoreState(*args), PyState(*args)):
        with pytest.raises(ArithmeticError, match="no comparing"):
            state.push(Bad())
        assert state._stack_size() == 0


def test_eq_that_changes_the_game_is_refused() -> None:
    core_module = _need_core()
    core = core_module.CoreState(*_args(4, 3, RULE_SETS["classic"]))

    class Sneaky:
        def __eq__(self, other: object) -> bool:
            if core._stack_size() == 0:
                core.push(core.legal_moves()[0])
            return True

        __hash__ = None  # type: ignore[assignment]

    with pytest.raises(RuntimeError, match="changed"):
        core.push(Sneaky())
    assert core._stack_size() == 1


# -- construction, bounds, odd states -------------------------------------------------------------


def test_constructor_rejects_bad_arguments() -> None:
    state = _need_core().CoreState
    good = ([1 << 10, 1 << 30], (0, 1), 4, 3, False, True)

    def with_(index: int, value: object) -> tuple[object, ...]:
        args = list(good)
        args[index] = value
        return tuple(args)

    state(*good)
    type_errors = [
        with_(0, 5),
        with_(0, "ab"),
        with_(0, [1.5]),
        with_(0, [None]),
        with_(1, 7),
        with_(1, "ab"),
        with_(1, [1.0]),
        with_(2, "4"),
        with_(3, None),
    ]
    for args in type_errors:
        with pytest.raises(TypeError):
            state(*args)
    value_errors = [
        with_(0, []),
        with_(0, [1] * 7),
        with_(0, [-1]),
        with_(0, [1 << 80]),
        with_(0, [1 << 200]),
        with_(1, [80]),
        with_(1, [-1]),
        with_(1, [1 << 70]),
        with_(1, [*range(80), 0]),
        with_(2, 0),
        with_(2, 5),
        with_(3, -1),
    ]
    for args in value_errors:
        with pytest.raises(ValueError):  # noqa: PT011 - the message depends on the argument
            state(*args)
    with pytest.raises(TypeError):
        state(*good[:5])
    assert state(hands=good[0], pile=good[1], colors=4, max_draws=3, must_play=False, ends_after_draw=True).players == 2
    full = state([(1 << 80) - 1], list(range(80)), 4, 80, True, False)
    assert full._hand_count(0) == 80
    assert full._pile_left() == 80


def test_accessors_index_like_lists() -> None:
    core_module = _need_core()
    args = _args(3, 21, RULE_SETS["classic"])
    core, py = core_module.CoreState(*args), PyState(*args)
    for _ in range(12):
        _push_both(core, py, py.legal_moves()[-1])
    for seat in (-3, -1, 0, 2):
        assert core._hand_mask(seat) == py._hand_mask(seat)
        assert core._hand_count(seat) == py._hand_count(seat)
    for index in (-12, -1, 0, 11):
        assert core._stack_entry(index) == py._stack_entry(index)
    for state in (core, py):
        for bad in (3, -4, 10**30, -(10**30)):
            with pytest.raises(IndexError):
                state._hand_mask(bad)
            with pytest.raises(IndexError):
                state._hand_count(bad)
        for bad_index in (12, -13):
            with pytest.raises(IndexError):
                state._stack_entry(bad_index)
        for wrong in ("0", 1.0, None):
            with pytest.raises(TypeError):
                state._hand_mask(wrong)
            with pytest.raises(TypeError):
                state._stack_entry(wrong)
    with pytest.raises(AttributeError):
        core.players = 5
    with pytest.raises(AttributeError):
        core.turn = 1


def test_load_position_checks_its_arguments() -> None:
    core = _need_core().CoreState(*_args(4, 2, RULE_SETS["classic"]))
    fit = core._fit_mask()
    for bad in [(4, 0, 0, -1, fit), (-1, 0, 0, -1, fit), (0, -1, 0, -1, fit), (0, 81, 0, -1, fit)]:
        with pytest.raises(ValueError, match=r"^(turn|laid)"):
            core._load_position(*bad)
    for bad in [(0, 0, 1, 80, fit), (0, 0, 1, -2, fit), (0, 0, 1, -1, fit), (0, 0, 0, -1, -1), (0, 0, 0, -1, 1 << 80)]:
        with pytest.raises(ValueError):  # noqa: PT011 - several arguments, several messages
            core._load_position(*bad)
    with pytest.raises(TypeError):
        core._load_position(0, 0, 0, -1, "fit")
    core._load_position(turn=1, laid=0, draws=0, last_drawn=-1, fit=fit)
    assert core.turn == 1


def test_load_position_finds_the_winner() -> None:
    core_module = _need_core()
    hands = [1 << 10, 0, 1 << 30]
    for state in (core_module.CoreState(hands, (), 4, 3, False, True), PyState(hands, (), 4, 3, False, True)):
        assert state._winner_seat() == -1
        state._load_position(1, 1, 0, -1, (1 << 9) | (1 << 11) | (1 << 30) | (1 << 50) | (1 << 70))
        assert state._winner_seat() == 1
        assert state.is_over()
        assert state.legal_moves() == ()


def test_no_eleven_dealt_behaves_like_python() -> None:
    core_module = _need_core()
    args = ([1 << 0, 1 << 1], (2, 3), 4, 3, False, True)
    core, py = core_module.CoreState(*args), PyState(*args)
    assert core.turn == py.turn == 0
    _check(core, py)
    _push_both(core, py, py.legal_moves()[0])
    _check(core, py, stack=True)


def test_uninitialised_state_raises_instead_of_crashing() -> None:
    state = _need_core().CoreState.__new__(_need_core().CoreState)
    assert state.players == 0
    assert state.turn == 0
    assert not state.is_over()
    for call in (state.legal_moves, lambda: state.push(PASS), lambda: state._load_position(0, 0, 0, -1, 0)):
        with pytest.raises(RuntimeError, match="not initialised"):
            call()
    with pytest.raises(IndexError):
        state._hand_mask(0)
    with pytest.raises(IndexError):
        state.pop()
    assert state._pile_indices() == ()
    assert state._copy_state(True).players == 0


def test_reinitialising_starts_over_and_a_failed_init_keeps_the_state() -> None:
    core_module = _need_core()
    args = _args(4, 8, RULE_SETS["classic"])
    core, py = core_module.CoreState(*args), PyState(*args)
    for _ in range(30):
        _push_both(core, py, py.legal_moves()[0])
    with pytest.raises(ValueError, match="pile card"):
        core.__init__(args[0], [99], *args[2:])
    _check(core, py, stack=True)
    core.__init__(*args)
    _check(core, PyState(*args), stack=True)


def test_new_accepts_and_ignores_arguments() -> None:
    state_class = _need_core().CoreState
    assert state_class.__new__(state_class).players == 0
    assert state_class.__new__(state_class, 1, 2, three=3).players == 0


# -- Game on the compiled core --------------------------------------------------------------------


def test_backend_is_c_when_built() -> None:
    from elferraus import core

    if os.environ.get("ELFERRAUS_PURE"):
        assert core.BACKEND == "python"
        return
    core_module = _need_core()
    assert core.BACKEND == "c"
    assert issubclass(Game, core_module.CoreState)


def test_pure_environment_variable_selects_python() -> None:
    code = (
        "import elferraus.core as c; "
        "print(c.BACKEND, c.indices_mask is c.py_indices_mask, c.key_order is c.py_key_order, c.State is c.PyState)"
    )
    env = {**os.environ, "ELFERRAUS_PURE": "1"}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["python", "True", "True", "True"]


def test_game_copies_are_games_and_collectable() -> None:
    _need_core()
    if os.environ.get("ELFERRAUS_PURE"):
        pytest.skip("Game runs on PyState in this process")
    game = Game.deal(players=4, seed=9)
    for _ in range(20):
        game.push(game.legal_moves()[0])
    for history in (True, False):
        copy = game.copy(history=history)
        assert type(copy) is Game
        assert format_position(copy) == format_position(game)
        assert copy.legal_moves() == game.legal_moves()

    finalised = []

    class Sentinel:
        def __del__(self) -> None:
            finalised.append(True)

    # A reference cycle through the slots of the subclass must be collected.
    cyclic = Game.deal(players=3, seed=1)
    cyclic.metadata = {"self": cyclic, "sentinel": Sentinel()}
    cyclic_copy = cyclic.copy()
    cyclic_copy.metadata.update(self=cyclic_copy, sentinel=Sentinel())
    del cyclic, cyclic_copy
    gc.collect()
    assert finalised == [True, True]


def test_shared_moves_keep_their_refcounts() -> None:
    core_module = _need_core()
    watched = (*LAYS, DRAW, PASS)
    gc.collect()
    before = [sys.getrefcount(move) for move in watched]
    rng = random.Random(5)
    for seed in range(60):
        state = core_module.CoreState(*_args(rng.choice(PLAYERS), seed, RULE_SETS["classic"]))
        while not state.is_over():
            state.push(rng.choice(state.legal_moves()))
            if rng.random() < 0.1:
                state.pop()
            if rng.random() < 0.05:
                copy = state._copy_state(rng.random() < 0.5)
                copy.legal_moves()
                entries = [copy._stack_entry(i) for i in range(copy._stack_size())]
                del copy, entries
        del state
    gc.collect()
    assert [sys.getrefcount(move) for move in watched] == before


# -- pickle and copy ------------------------------------------------------------------------------


def _played(players: int, seed: int, moves: int) -> Any:
    core = _need_core().CoreState(*_args(players, seed, RULE_SETS["continue"]))
    rng = random.Random(seed)
    for _ in range(moves):
        if core.is_over():
            break
        core.push(rng.choice(core.legal_moves()))
    return core


def test_pickle_and_copy_keep_the_state() -> None:
    for seed in range(40):
        core = _played(2 + seed % 5, seed, seed * 7)
        for other in (pickle.loads(pickle.dumps(core)), copy.copy(core), copy.deepcopy(core)):
            assert type(other) is type(core)
            _check(other, core, stack=True)
            if other._stack_size():
                twin = core._copy_state(True)
                assert other.pop() is twin.pop()
                _check(other, twin, stack=True)
    blank = _need_core().CoreState.__new__(_need_core().CoreState)
    assert pickle.loads(pickle.dumps(blank)).players == 0


def test_pickled_games_load_on_the_other_core() -> None:
    _need_core()
    game = Game.deal(players=3, seed=12)
    rng = random.Random(12)
    for _ in range(50):
        game.push(rng.choice(game.legal_moves()))
    here = pickle.dumps(game)
    code = (
        "import pickle, sys; from elferraus import Game, format_position; "
        "game = pickle.loads(sys.stdin.buffer.read()); game.pop(); "
        "sys.stdout.buffer.write(pickle.dumps((format_position(game), game.record_moves(), game)))"
    )
    game.pop()
    for pure in ("1", ""):
        env = {**os.environ, "ELFERRAUS_PURE": pure}
        result = subprocess.run([sys.executable, "-c", code], env=env, input=here, capture_output=True, check=True)
        position, moves, back = pickle.loads(result.stdout)
        assert (position, moves) == (format_position(game), game.record_moves())
        assert (format_position(back), back.record_moves(), back.metadata) == (position, moves, game.metadata)
        assert back.legal_moves() == game.legal_moves()


def test_bad_pickled_states_are_refused() -> None:
    core = _played(4, 3, 30)
    _, good = core.__getstate__()
    broken: list[dict[str, Any]] = [
        {**good, "players": 7},
        {**good, "_hands": good["_hands"][:-1]},
        {**good, "_hands": [*good["_hands"][:-1], 1 << 80]},
        {**good, "_counts": [*good["_counts"][:-1], 81]},
        {**good, "_pile": [*good["_pile"], 80]},
        {**good, "_pile_pos": len(good["_pile"]) + 1},
        {**good, "_pile_pos": 0, "_stack": [(DRAW, 0, 0, 0, -1)]},
        {**good, "_to_move": 4},
        {**good, "_winner": -2},
        {**good, "_last_drawn": 80},
        {**good, "_elevens": (1 << 80) - 1},
        {**good, "_fit": -1},
        {**good, "_stack": [(PASS, 9, 0, 0, -1)]},
        {**good, "_stack": [(PASS, 0, 0, 0)]},
        {**good, "_stack": [("pass", 0, 0, 0, -1)]},
        {**good, "_stack": 5},
        {key: value for key, value in good.items() if key != "_fit"},
    ]
    for state in broken:
        fresh = type(core).__new__(type(core))
        with pytest.raises((TypeError, ValueError, AttributeError)):
            fresh.__setstate__((None, state))
        assert fresh.players == 0
    with pytest.raises(TypeError):
        core.__setstate__((None, 5))
    with pytest.raises(ValueError, match="__dict__"):
        core.__setstate__(({"x": 1}, good))
    _check(core, _played(4, 3, 30), stack=True)


# -- the compiled helpers of the deal -------------------------------------------------------------


def _reference_deal(players: int, seed: int, rules: Rules) -> tuple[Any, ...]:
    """The deal as the first version of deal.py made it (a compatibility promise)."""
    size = rules.cards_per_player(players)
    elevens = {colour * 20 + 10 for colour in range(len(rules.colors))}
    attempt = 0
    while True:
        data = hashlib.shake_256(f"elferraus-deal:{seed}:{attempt}".encode()).digest(8 * rules.deck_size)
        keys = struct.unpack(f"<{rules.deck_size}Q", data)
        deck = sorted(range(rules.deck_size), key=keys.__getitem__)
        dealt = deck[: size * players]
        if not elevens.isdisjoint(dealt):
            hands = tuple(tuple(sorted(dealt[seat * size : (seat + 1) * size])) for seat in range(players))
            return hands, tuple(deck[size * players :]), attempt
        attempt += 1


def test_deals_are_unchanged() -> None:
    fingerprint = hashlib.sha256()
    for seed in range(300):
        for name, rules in RULE_SETS.items():
            players = PLAYERS[seed % len(PLAYERS)]
            reference = _reference_deal(players, seed, rules)
            deal = deal_cards(players, seed, rules)
            assert (deal.hands, deal.pile, deal.redeals) == reference
            game = Game.deal(players, seed, rules)
            masks = tuple(sum(1 << card for card in hand) for hand in reference[0])
            assert tuple(game._hand_mask(seat) for seat in range(players)) == masks
            assert game._pile_indices() == reference[1]
            hands, pile = game.dealt or ([], [])
            assert Game(hands, pile, rules).dealt == (hands, pile)
            if name == "classic":
                fingerprint.update(repr(reference).encode())
    # Seeds 0-299 of the classic rules, as dealt by the first release.
    assert fingerprint.hexdigest() == "754e68a4cd04051813c94b1176b23be48a6e44590a17f3757b168e2f5b9e48b5"


def test_key_order_matches_python() -> None:
    core_module = _need_core()
    rng = random.Random(3)
    for size in [0, 1, 2, 3, 7, 8, 59, 60, 79, 80, 81, 200, 1000]:
        for spread in (2, 5, 2**64):  # small spreads force equal keys: ties keep index order
            data = struct.pack(f"<{size}Q", *(rng.randrange(spread) for _ in range(size)))
            assert core_module.key_order(data) == py_key_order(data)
            assert core_module.key_order(bytearray(data)) == py_key_order(data)
    data = hashlib.shake_256(b"x").digest(640)
    assert core_module.key_order(memoryview(data)) == py_key_order(data)
    with pytest.raises(ValueError, match="8-byte"):
        core_module.key_order(b"123")
    with pytest.raises(TypeError):
        core_module.key_order("text")


def test_mask_of_matches_python() -> None:
    core_module = _need_core()
    from elferraus.core import py_indices_mask

    rng = random.Random(4)
    for size in range(0, 81, 5):
        indices = rng.sample(range(80), size)
        assert core_module.mask_of(indices) == py_indices_mask(indices)
        assert core_module.mask_of(tuple(indices)) == py_indices_mask(iter(indices))
    assert core_module.mask_of([79, 79, 0]) == (1 << 79) | 1
    for bad in ([80], [-1], [1 << 70]):
        with pytest.raises(ValueError, match="card index"):
            core_module.mask_of(bad)
    for wrong in ([1.0], ["1"], 5):
        with pytest.raises(TypeError):
            core_module.mask_of(wrong)
