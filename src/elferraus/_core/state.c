/* CoreState, the game state type (compiled PyState): making a state, its
 * legal moves, push and pop, reading it, copies and loaded positions, and
 * the type object. Its pickling is in pickle.c; the rules it asks are
 * er_legal_codes and er_apply (core.h), shared with the playouts.
 */

#include "core.h"

#include <stddef.h>
#include <string.h>

static PyObject *STR_ILLEGAL; /* "_illegal" */

static int check_ready(CoreState *self) {
    if (self->game.players > 0) {
        return 0;
    }
    PyErr_SetString(PyExc_RuntimeError, "the game state is not initialised: call __init__(hands, pile, ...) first");
    return -1;
}

static PyObject *CoreState_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    /* Arguments, if any, are for __init__ (as with object.__new__). */
    (void)args;
    (void)kwds;
    CoreState *self = (CoreState *)type->tp_alloc(type, 0);
    if (!self) {
        return NULL;
    }
    /* tp_alloc zeroed everything; players == 0 marks "not initialised". */
    self->game.winner = -1;
    self->game.last_drawn = -1;
    return (PyObject *)self;
}

static void CoreState_dealloc(CoreState *self) {
    Py_CLEAR(self->legal);
    PyMem_Free(self->stack);
    self->stack = NULL;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int CoreState_init(CoreState *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"hands", "pile", "colors", "max_draws", "must_play", "ends_after_draw", NULL};
    PyObject *hands_arg, *pile_arg, *must_play_arg, *ends_arg;
    int colors, max_draws;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOiiOO:CoreState", kwlist, &hands_arg, &pile_arg, &colors,
                                     &max_draws, &must_play_arg, &ends_arg)) {
        return -1;
    }
    if (colors < 1 || colors > MAX_COLORS) {
        PyErr_Format(PyExc_ValueError, "colors must be 1-%d, not %d", MAX_COLORS, colors);
        return -1;
    }
    if (max_draws < 0) {
        PyErr_Format(PyExc_ValueError, "max_draws must not be negative, not %d", max_draws);
        return -1;
    }
    int must_play, ends_after_draw;
    if (er_switch_args(must_play_arg, ends_arg, &must_play, &ends_after_draw) < 0) {
        return -1;
    }

    mask_t hands[MAX_PLAYERS];
    int8_t pile[DECK];
    Py_ssize_t players, pile_len;

    if (PyLong_Check(hands_arg) || PyUnicode_Check(hands_arg) || PyBytes_Check(hands_arg)) {
        PyErr_Format(PyExc_TypeError, "hands must be a sequence of int bitmasks, not %.100s",
                     Py_TYPE(hands_arg)->tp_name);
        return -1;
    }
    PyObject *seq = PySequence_Fast(hands_arg, "hands must be a sequence of int bitmasks");
    if (!seq) {
        return -1;
    }
    players = PySequence_Fast_GET_SIZE(seq);
    if (players < 1 || players > MAX_PLAYERS) {
        PyErr_Format(PyExc_ValueError, "hands must hold 1-%d hands, not %zd", MAX_PLAYERS, players);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t seat = 0; seat < players; seat++) {
        if (er_mask_from_pylong(PySequence_Fast_GET_ITEM(seq, seat), &hands[seat], "a hand") < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);

    if (PyLong_Check(pile_arg) || PyUnicode_Check(pile_arg)) {
        PyErr_Format(PyExc_TypeError, "pile must be a sequence of card indices, not %.100s",
                     Py_TYPE(pile_arg)->tp_name);
        return -1;
    }
    seq = PySequence_Fast(pile_arg, "pile must be a sequence of card indices");
    if (!seq) {
        return -1;
    }
    pile_len = PySequence_Fast_GET_SIZE(seq);
    if (pile_len > DECK) {
        PyErr_Format(PyExc_ValueError, "the pile has %zd cards; a deck has only %d", pile_len, DECK);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t i = 0; i < pile_len; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyLong_Check(item)) {
            PyErr_Format(PyExc_TypeError, "pile cards must be int card indices, not %.100s", Py_TYPE(item)->tp_name);
            Py_DECREF(seq);
            return -1;
        }
        long card = PyLong_AsLong(item);
        if (card == -1 && PyErr_Occurred()) {
            if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
                Py_DECREF(seq);
                return -1;
            }
            PyErr_Clear();
        }
        if (card < 0 || card >= DECK) {
            PyErr_Format(PyExc_ValueError, "pile card %R is not a card index 0-%d", item, DECK - 1);
            Py_DECREF(seq);
            return -1;
        }
        pile[i] = (int8_t)card;
    }
    Py_DECREF(seq);

    /* All checked: commit (a failed re-initialisation leaves the old state). */
    er_game_start(&self->game, (int)players, hands, pile, (int)pile_len, colors, max_draws, must_play,
                  ends_after_draw);
    self->stack_size = 0;
    Py_CLEAR(self->legal);
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Legal moves                                                            */

/* Fill self->legal (and legal_codes); 0 on success. PyState.legal_moves: the codes of
   er_legal_codes (the rules the playouts use too, with the state's opening) as moves. */
static int compute_legal(CoreState *self) {
    const game_t *g = &self->game;
    if (g->winner < 0 && !g->laid && g->draws && g->last_drawn < 0) {
        /* _load_position refuses this; push and pop never make it */
        PyErr_SetString(PyExc_RuntimeError, "cards were drawn this turn but no last drawn card is known");
        return -1;
    }
    int n = er_legal_codes(g, ER_OPEN_STARTER, self->legal_codes);
    if (!n && g->winner < 0) {
        /* the opening with no 11 in any hand (not a real deal): PyState's LAYS[-1] */
        self->legal_codes[0] = DECK - 1;
        n = 1;
    }
    PyObject *legal = er_moves_tuple(self->legal_codes, n);
    if (!legal) {
        return -1;
    }
    self->legal = legal;
    return 0;
}

static PyObject *CoreState_legal_moves(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    if (!self->legal) {
        if (check_ready(self) < 0 || compute_legal(self) < 0) {
            return NULL;
        }
    }
    Py_INCREF(self->legal);
    return self->legal;
}

static PyObject *CoreState_is_over(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    return PyBool_FromLong(self->game.winner >= 0);
}

static PyObject *CoreState_illegal(CoreState *self, PyObject *move) {
    (void)self;
    return PyObject_CallFunction(PyExc_ValueError, "N", PyUnicode_FromFormat("illegal move %R", move));
}

/* raise self._illegal(move) */
static PyObject *raise_illegal(CoreState *self, PyObject *move) {
    PyObject *error = PyObject_CallMethodObjArgs((PyObject *)self, STR_ILLEGAL, move, NULL);
    if (!error) {
        return NULL;
    }
    if (PyExceptionInstance_Check(error)) {
        PyErr_SetObject((PyObject *)Py_TYPE(error), error);
    }
    else if (PyExceptionClass_Check(error)) {
        PyErr_SetNone(error);
    }
    else {
        PyErr_SetString(PyExc_TypeError, "exceptions must derive from BaseException");
    }
    Py_DECREF(error);
    return NULL;
}

static int grow_stack(CoreState *self) {
    Py_ssize_t cap = self->stack_cap ? self->stack_cap * 2 : 256;
    entry_t *stack = PyMem_Realloc(self->stack, (size_t)cap * sizeof(entry_t));
    if (!stack) {
        PyErr_NoMemory();
        return -1;
    }
    self->stack = stack;
    self->stack_cap = cap;
    return 0;
}

static PyObject *CoreState_push(CoreState *self, PyObject *move) {
    if (!self->legal) {
        if (check_ready(self) < 0 || compute_legal(self) < 0) {
            return NULL;
        }
    }
    PyObject *legal = self->legal;
    Py_ssize_t n = PyTuple_GET_SIZE(legal), i;
    for (i = 0; i < n; i++) {
        if (PyTuple_GET_ITEM(legal, i) == move) {
            break;
        }
    }
    if (i == n) {
        /* Not one of the shared objects: an equal Move is accepted as in
           Python (`move in legal`), and the shared one goes on the stack. */
        Py_INCREF(legal); /* __eq__ may run any code, even on this state */
        for (i = 0; i < n; i++) {
            int equal = PyObject_RichCompareBool(PyTuple_GET_ITEM(legal, i), move, Py_EQ);
            if (equal < 0) {
                Py_DECREF(legal);
                return NULL;
            }
            if (equal) {
                break;
            }
        }
        int changed = self->legal != legal;
        Py_DECREF(legal);
        if (i == n) {
            return raise_illegal(self, move);
        }
        if (changed) {
            PyErr_SetString(PyExc_RuntimeError, "the game changed while comparing the move");
            return NULL;
        }
    }
    if (self->stack_size == self->stack_cap && grow_stack(self) < 0) {
        return NULL;
    }
    game_t *g = &self->game;
    int code = self->legal_codes[i];
    entry_t *entry = &self->stack[self->stack_size++];
    entry->code = (int8_t)code;
    entry->seat = (int8_t)g->to_move;
    entry->last_drawn = (int8_t)g->last_drawn;
    entry->unused = 0;
    entry->laid = (int16_t)g->laid;
    entry->draws = (int16_t)g->draws;
    self->legal = NULL;
    Py_DECREF(legal);
    er_apply(g, code); /* the rules of a move, as in a playout */
    Py_RETURN_NONE;
}

/* Take back er_apply's move from the undo entry (only the state takes moves back). */
static PyObject *CoreState_pop(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    if (!self->stack_size) {
        PyErr_SetString(PyExc_IndexError, "no move to take back");
        return NULL;
    }
    game_t *g = &self->game;
    entry_t entry = self->stack[--self->stack_size];
    int code = entry.code;
    int seat = entry.seat;
    if (code >= 0) {
        mask_t bit = ER_BITS[code];
        g->hands[seat] = mask_or(g->hands[seat], bit);
        g->fit = mask_or(mask_xor(g->fit, ER_NEWLY_FITTING[code]), bit);
        g->counts[seat]++;
        g->winner = -1;
    }
    else if (code == DRAW_CODE) {
        g->pile_pos--;
        g->hands[seat] = mask_xor(g->hands[seat], ER_BITS[g->pile[g->pile_pos]]);
        g->counts[seat]--;
    }
    g->to_move = seat;
    g->laid = entry.laid;
    g->draws = entry.draws;
    g->last_drawn = entry.last_drawn;
    Py_CLEAR(self->legal);
    PyObject *move = er_move_of(code);
    Py_INCREF(move);
    return move;
}

/* ---------------------------------------------------------------------- */
/* Reading the state                                                      */

/* An index argument as for a list of `size` items (negative counts from the end). */
static int index_arg(PyObject *arg, Py_ssize_t size, const char *what, Py_ssize_t *out) {
    if (!PyIndex_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", what, Py_TYPE(arg)->tp_name);
        return -1;
    }
    Py_ssize_t index = PyNumber_AsSsize_t(arg, NULL); /* clamps on overflow */
    if (index == -1 && PyErr_Occurred()) {
        return -1;
    }
    Py_ssize_t resolved = index < 0 ? index + size : index;
    if (resolved < 0 || resolved >= size) {
        PyErr_Format(PyExc_IndexError, "%s %R out of range (%zd)", what, arg, size);
        return -1;
    }
    *out = resolved;
    return 0;
}

static PyObject *CoreState_hand_mask(CoreState *self, PyObject *arg) {
    Py_ssize_t seat;
    if (index_arg(arg, self->game.players, "seat", &seat) < 0) {
        return NULL;
    }
    return er_mask_to_pylong(self->game.hands[seat]);
}

static PyObject *CoreState_hand_count(CoreState *self, PyObject *arg) {
    Py_ssize_t seat;
    if (index_arg(arg, self->game.players, "seat", &seat) < 0) {
        return NULL;
    }
    return PyLong_FromLong(self->game.counts[seat]);
}

static PyObject *CoreState_fit_mask(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    return er_mask_to_pylong(self->game.fit);
}

static PyObject *CoreState_winner_seat(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromLong(self->game.winner);
}

static PyObject *CoreState_pile_indices(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    const game_t *g = &self->game;
    int n = g->pile_len - g->pile_pos;
    PyObject *tuple = PyTuple_New(n);
    if (!tuple) {
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        PyObject *card = PyLong_FromLong(g->pile[g->pile_pos + i]);
        if (!card) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, card);
    }
    return tuple;
}

static PyObject *CoreState_pile_left(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromLong(self->game.pile_len - self->game.pile_pos);
}

static PyObject *CoreState_put_on_top(CoreState *self, PyObject *arg) {
    game_t *g = &self->game;
    long card = PyLong_AsLong(arg);
    if (card == -1 && PyErr_Occurred()) {
        return NULL;
    }
    for (int i = g->pile_pos; i < g->pile_len; i++) {
        if (g->pile[i] == card) {
            g->pile[i] = g->pile[g->pile_pos];
            g->pile[g->pile_pos] = (int8_t)card;
            return PyLong_FromLong(i - g->pile_pos);
        }
    }
    PyErr_Format(PyExc_ValueError, "card %ld is not on the pile", card);
    return NULL;
}

static PyObject *CoreState_phase(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    return Py_BuildValue("(iii)", self->game.laid, self->game.draws, self->game.last_drawn);
}

static PyObject *CoreState_stack_size(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromSsize_t(self->stack_size);
}

static PyObject *CoreState_stack_entry(CoreState *self, PyObject *arg) {
    Py_ssize_t index;
    if (index_arg(arg, self->stack_size, "stack index", &index) < 0) {
        return NULL;
    }
    entry_t *entry = &self->stack[index];
    return Py_BuildValue("(Oiiii)", er_move_of(entry->code), entry->seat, entry->laid, entry->draws,
                         entry->last_drawn);
}

static PyObject *CoreState_copy_state(CoreState *self, PyObject *history_arg) {
    int history = PyObject_IsTrue(history_arg);
    if (history < 0) {
        return NULL;
    }
    entry_t *stack = NULL;
    Py_ssize_t stack_size = history ? self->stack_size : 0;
    if (stack_size) {
        stack = PyMem_Malloc((size_t)stack_size * sizeof(entry_t));
        if (!stack) {
            return PyErr_NoMemory();
        }
        memcpy(stack, self->stack, (size_t)stack_size * sizeof(entry_t));
    }
    PyTypeObject *type = Py_TYPE(self);
    CoreState *other = (CoreState *)type->tp_alloc(type, 0);
    if (!other) {
        PyMem_Free(stack);
        return NULL;
    }
    other->game = self->game;
    memcpy(other->legal_codes, self->legal_codes, sizeof(self->legal_codes));
    other->legal = self->legal;
    Py_XINCREF(other->legal);
    other->stack = stack;
    other->stack_size = stack_size;
    other->stack_cap = stack_size;
    if (!history) {
        game_t *g = &other->game;
        int left = g->pile_len - g->pile_pos;
        memmove(g->pile, g->pile + g->pile_pos, (size_t)left);
        g->pile_len = left;
        g->pile_pos = 0;
    }
    return (PyObject *)other;
}

/* PyState._load_position, with its checks and messages. The rollouts load a position too
   (er_root_args, args.c), but check more (the deck, the table, the last drawn card in hand),
   with rollout._root's messages: each follows its own Python reference, so they stay apart. */
static PyObject *CoreState_load_position(CoreState *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"turn", "laid", "draws", "last_drawn", "fit", NULL};
    int turn, laid, draws, last_drawn;
    PyObject *fit_arg;
    mask_t fit;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiiiO:_load_position", kwlist, &turn, &laid, &draws, &last_drawn,
                                     &fit_arg)) {
        return NULL;
    }
    if (check_ready(self) < 0) {
        return NULL;
    }
    game_t *g = &self->game;
    if (turn < 0 || turn >= g->players) {
        PyErr_Format(PyExc_ValueError, "turn %d is not a seat 0-%d", turn, g->players - 1);
        return NULL;
    }
    if (laid < 0 || laid > MAX_TURN_COUNT || draws < 0 || draws > MAX_TURN_COUNT) {
        PyErr_Format(PyExc_ValueError, "laid and draws must be 0-%d, not %d and %d", MAX_TURN_COUNT, laid, draws);
        return NULL;
    }
    if (last_drawn < -1 || last_drawn >= DECK) {
        PyErr_Format(PyExc_ValueError, "last_drawn must be a card index 0-%d or -1, not %d", DECK - 1, last_drawn);
        return NULL;
    }
    if (draws && !laid && last_drawn < 0) {
        PyErr_SetString(PyExc_ValueError, "cards were drawn this turn, so last_drawn must name the last one");
        return NULL;
    }
    if (er_mask_from_pylong(fit_arg, &fit, "fit") < 0) {
        return NULL;
    }
    g->to_move = turn;
    g->laid = laid;
    g->draws = draws;
    g->last_drawn = last_drawn;
    g->fit = fit;
    Py_CLEAR(self->legal);
    g->winner = -1;
    for (int seat = 0; seat < g->players; seat++) {
        if (!g->counts[seat]) {
            g->winner = seat;
            break;
        }
    }
    Py_RETURN_NONE;
}

static PyObject *CoreState_get_turn(CoreState *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(self->game.to_move);
}

static PyObject *CoreState_get_players(CoreState *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(self->game.players);
}

/* ---------------------------------------------------------------------- */
/* The type                                                               */

static PyMethodDef CoreState_methods[] = {
    {"is_over", (PyCFunction)CoreState_is_over, METH_NOARGS, "True once a player has laid his last card."},
    {"legal_moves", (PyCFunction)CoreState_legal_moves, METH_NOARGS,
     "The moves the player to move may make now (empty once the game is over)."},
    {"push", (PyCFunction)CoreState_push, METH_O,
     "Make ``move`` for the player to move (raises ``self._illegal(move)`` if not allowed)."},
    {"pop", (PyCFunction)CoreState_pop, METH_NOARGS,
     "Take back the last move and return it.\n\nRaises:\n    IndexError: there is no move to take back."},
    {"_illegal", (PyCFunction)CoreState_illegal, METH_O, "The exception push raises for an illegal move."},
    {"_hand_mask", (PyCFunction)CoreState_hand_mask, METH_O, "The bitmask of seat's hand."},
    {"_hand_count", (PyCFunction)CoreState_hand_count, METH_O, "How many cards seat holds."},
    {"_fit_mask", (PyCFunction)CoreState_fit_mask, METH_NOARGS, "The bitmask of the cards that fit now."},
    {"_winner_seat", (PyCFunction)CoreState_winner_seat, METH_NOARGS, "The winner's seat, -1 while running."},
    {"_pile_indices", (PyCFunction)CoreState_pile_indices, METH_NOARGS, "The cards left on the pile, top first."},
    {"_pile_left", (PyCFunction)CoreState_pile_left, METH_NOARGS, "How many cards are left on the pile."},
    {"_put_on_top", (PyCFunction)CoreState_put_on_top, METH_O,
     "Swap card index ``card`` of the pile with the pile's top; returns where it was (0: the top)."},
    {"_phase", (PyCFunction)CoreState_phase, METH_NOARGS, "(laid, draws, last drawn or -1) of this turn."},
    {"_stack_size", (PyCFunction)CoreState_stack_size, METH_NOARGS, "How many moves can be taken back."},
    {"_stack_entry", (PyCFunction)CoreState_stack_entry, METH_O,
     "(move, seat, laid, draws, last drawn) of undo entry ``index``, as before that move."},
    {"_copy_state", (PyCFunction)CoreState_copy_state, METH_O,
     "An independent copy of the same type; without history: no undo, pile trimmed."},
    {"_load_position", (PyCFunction)(void (*)(void))CoreState_load_position, METH_VARARGS | METH_KEYWORDS,
     "Set the turn, the turn phase and the table (fit mask) of a position."},
    {"__getstate__", (PyCFunction)er_state_getstate, METH_NOARGS,
     "The state for pickle and copy, in the form of PyState's (pickles load on either core)."},
    {"__setstate__", (PyCFunction)er_state_setstate, METH_O, "Restore a state made by __getstate__."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef CoreState_getset[] = {
    {"turn", (getter)CoreState_get_turn, NULL, "The seat to move (after the game ended: the winner's seat).", NULL},
    {"players", (getter)CoreState_get_players, NULL, "The number of seats.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject er_state_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "elferraus._core.CoreState",
    .tp_doc = PyDoc_STR("The mutable core of a game: hands, table, pile, turn phase, undo stack (compiled)."),
    .tp_basicsize = sizeof(CoreState),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = CoreState_new,
    .tp_init = (initproc)CoreState_init,
    .tp_dealloc = (destructor)CoreState_dealloc,
    .tp_methods = CoreState_methods,
    .tp_getset = CoreState_getset,
};

int er_state_ready(void) {
    if (!STR_ILLEGAL) {
        STR_ILLEGAL = PyUnicode_InternFromString("_illegal");
        if (!STR_ILLEGAL) {
            return -1;
        }
    }
    return PyType_Ready(&er_state_type);
}
