/* CoreState's pickling (and so copy.copy and copy.deepcopy): __getstate__
 * gives PyState's own form, (None, {slot: value}), and __setstate__ checks
 * and restores it, so that pickles load on either core.
 */

#include "core.h"

#include <limits.h>
#include <string.h>

/* The state in PyState's own form, (None, {slot: value}), with the slots of
   subclasses (Game's) in the same dict, so pickles load on either core. */
PyObject *er_state_getstate(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    const game_t *g = &self->game;
    PyObject *base = PyObject_CallMethod((PyObject *)&PyBaseObject_Type, "__getstate__", "O", self);
    if (!base) {
        return NULL;
    }
    PyObject *state = PyDict_New();
    if (!state) {
        Py_DECREF(base);
        return NULL;
    }
    if (PyTuple_Check(base) && PyTuple_GET_SIZE(base) == 2 && PyDict_Check(PyTuple_GET_ITEM(base, 1))) {
        if (PyDict_Update(state, PyTuple_GET_ITEM(base, 1)) < 0) {
            goto error;
        }
    }
    else if (PyDict_Check(base)) {
        if (PyDict_Update(state, base) < 0) {
            goto error;
        }
    }
    Py_CLEAR(base);
    if (g->players) {
        int n = g->players;
        PyObject *hands = PyList_New(n), *counts = PyList_New(n), *stack = PyList_New(self->stack_size);
        PyObject *pile = PyTuple_New(g->pile_len);
        PyObject *item;
        int ok = hands && counts && stack && pile;
        for (int seat = 0; ok && seat < n; seat++) {
            item = er_mask_to_pylong(g->hands[seat]);
            ok = item != NULL;
            if (ok) {
                PyList_SET_ITEM(hands, seat, item);
                item = PyLong_FromLong(g->counts[seat]);
                ok = item != NULL;
            }
            if (ok) {
                PyList_SET_ITEM(counts, seat, item);
            }
        }
        for (int i = 0; ok && i < g->pile_len; i++) {
            item = PyLong_FromLong(g->pile[i]);
            ok = item != NULL;
            if (ok) {
                PyTuple_SET_ITEM(pile, i, item);
            }
        }
        for (Py_ssize_t i = 0; ok && i < self->stack_size; i++) {
            entry_t *entry = &self->stack[i];
            item = Py_BuildValue("(Oiiii)", er_move_of(entry->code), entry->seat, entry->laid, entry->draws,
                                 entry->last_drawn);
            ok = item != NULL;
            if (ok) {
                PyList_SET_ITEM(stack, i, item);
            }
        }
        PyObject *fit = ok ? er_mask_to_pylong(g->fit) : NULL;
        PyObject *elevens = ok ? er_mask_to_pylong(g->elevens) : NULL;
        ok = ok && fit && elevens;
        if (ok) {
            PyObject *values = Py_BuildValue(
                "{s:i,s:O,s:O,s:O,s:i,s:O,s:O,s:i,s:O,s:O,s:i,s:i,s:i,s:i,s:i,s:O,s:O}", "players", n, "_hands",
                hands, "_counts", counts, "_pile", pile, "_pile_pos", g->pile_pos, "_elevens", elevens, "_fit",
                fit, "_max_draws", g->max_draws, "_must_play", g->must_play ? Py_True : Py_False,
                "_ends_after_draw", g->ends_after_draw ? Py_True : Py_False, "_to_move", g->to_move, "_laid",
                g->laid, "_draws", g->draws, "_last_drawn", g->last_drawn, "_winner", g->winner,
                "_stack", stack, "_legal", Py_None);
            ok = values && PyDict_Update(state, values) == 0;
            Py_XDECREF(values);
        }
        Py_XDECREF(hands);
        Py_XDECREF(counts);
        Py_XDECREF(stack);
        Py_XDECREF(pile);
        Py_XDECREF(fit);
        Py_XDECREF(elevens);
        if (!ok) {
            goto error;
        }
    }
    return Py_BuildValue("(ON)", Py_None, state);
error:
    Py_XDECREF(base);
    Py_DECREF(state);
    return NULL;
}

static const char *const STATE_KEYS[] = {"players", "_hands", "_counts", "_pile", "_pile_pos", "_elevens",
                                         "_fit", "_max_draws", "_must_play", "_ends_after_draw", "_to_move",
                                         "_laid", "_draws", "_last_drawn", "_winner", "_stack", "_legal", NULL};

static int is_state_key(PyObject *key) {
    for (int i = 0; STATE_KEYS[i]; i++) {
        if (PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, STATE_KEYS[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

/* state[key] as a C long in [low, high]; -1 with an exception otherwise. */
static int state_long(PyObject *state, const char *key, long low, long high, long *out) {
    PyObject *value = PyDict_GetItemString(state, key); /* borrowed */
    if (!value) {
        PyErr_Format(PyExc_ValueError, "the pickled game state has no %s", key);
        return -1;
    }
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "pickled %s must be an int, not %.100s", key, Py_TYPE(value)->tp_name);
        return -1;
    }
    int overflow;
    long number = PyLong_AsLongAndOverflow(value, &overflow);
    if (number == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow || number < low || number > high) {
        PyErr_Format(PyExc_ValueError, "pickled %s out of range: %R", key, value);
        return -1;
    }
    *out = number;
    return 0;
}

static PyObject *state_item(PyObject *state, const char *key) { /* borrowed */
    PyObject *value = PyDict_GetItemString(state, key);
    if (!value) {
        PyErr_Format(PyExc_ValueError, "the pickled game state has no %s", key);
    }
    return value;
}

/* Read the core's part of a pickled state into `out` (not yet into self). */
static int read_core_state(PyObject *state, game_t *out, entry_t **stack_out, Py_ssize_t *size_out) {
    long players, number;
    PyObject *value;
    if (state_long(state, "players", 1, MAX_PLAYERS, &players) < 0) {
        return -1;
    }
    out->players = (int)players;
    /* hands and counts */
    const char *lists[] = {"_hands", "_counts"};
    for (int which = 0; which < 2; which++) {
        if (!(value = state_item(state, lists[which]))) {
            return -1;
        }
        PyObject *seq = PySequence_Fast(value, "pickled hands and counts must be sequences");
        if (!seq) {
            return -1;
        }
        if (PySequence_Fast_GET_SIZE(seq) != players) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "pickled %s must have one item per player", lists[which]);
            return -1;
        }
        for (int seat = 0; seat < players; seat++) {
            PyObject *item = PySequence_Fast_GET_ITEM(seq, seat);
            int failed;
            if (which == 0) {
                failed = er_mask_from_pylong(item, &out->hands[seat], "a pickled hand") < 0;
            }
            else {
                int overflow;
                number = PyLong_Check(item) ? PyLong_AsLongAndOverflow(item, &overflow) : -1;
                failed = !PyLong_Check(item) || overflow || number < 0 || number > DECK;
                if (failed && !PyErr_Occurred()) {
                    PyErr_Format(PyExc_ValueError, "pickled hand count %R is not 0-%d", item, DECK);
                }
                out->counts[seat] = (int)number;
            }
            if (failed) {
                Py_DECREF(seq);
                return -1;
            }
        }
        Py_DECREF(seq);
    }
    /* the pile */
    if (!(value = state_item(state, "_pile"))) {
        return -1;
    }
    PyObject *seq = PySequence_Fast(value, "the pickled pile must be a sequence");
    if (!seq) {
        return -1;
    }
    Py_ssize_t pile_len = PySequence_Fast_GET_SIZE(seq);
    if (pile_len > DECK) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "the pickled pile has more than 80 cards");
        return -1;
    }
    for (Py_ssize_t i = 0; i < pile_len; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        int overflow;
        number = PyLong_Check(item) ? PyLong_AsLongAndOverflow(item, &overflow) : -1;
        if (!PyLong_Check(item) || overflow || number < 0 || number >= DECK) {
            Py_DECREF(seq);
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_ValueError, "pickled pile card %R is not a card index", item);
            }
            return -1;
        }
        out->pile[i] = (int8_t)number;
    }
    Py_DECREF(seq);
    out->pile_len = (int)pile_len;
    if (state_long(state, "_pile_pos", 0, pile_len, &number) < 0) {
        return -1;
    }
    out->pile_pos = (int)number;
    /* masks, rules, phase */
    if (!(value = state_item(state, "_elevens")) || er_mask_from_pylong(value, &out->elevens, "pickled _elevens") < 0) {
        return -1;
    }
    int colors = 1;
    while (colors <= MAX_COLORS && !mask_eq(out->elevens, er_elevens_mask(colors))) {
        colors++;
    }
    if (colors > MAX_COLORS) {
        PyErr_SetString(PyExc_ValueError, "pickled _elevens is not the 11s of 1-4 colours");
        return -1;
    }
    if (!(value = state_item(state, "_fit")) || er_mask_from_pylong(value, &out->fit, "pickled _fit") < 0) {
        return -1;
    }
    if (state_long(state, "_max_draws", 0, INT_MAX, &number) < 0) {
        return -1;
    }
    out->max_draws = (int)number;
    if (!(value = state_item(state, "_must_play")) || (out->must_play = PyObject_IsTrue(value)) < 0) {
        return -1;
    }
    if (!(value = state_item(state, "_ends_after_draw")) || (out->ends_after_draw = PyObject_IsTrue(value)) < 0) {
        return -1;
    }
    if (state_long(state, "_to_move", 0, players - 1, &number) < 0) {
        return -1;
    }
    out->to_move = (int)number;
    if (state_long(state, "_laid", 0, 2 * DECK, &number) < 0) {
        return -1;
    }
    out->laid = (int)number;
    if (state_long(state, "_draws", 0, 2 * DECK, &number) < 0) {
        return -1;
    }
    out->draws = (int)number;
    if (state_long(state, "_last_drawn", -1, DECK - 1, &number) < 0) {
        return -1;
    }
    out->last_drawn = (int)number;
    if (state_long(state, "_winner", -1, players - 1, &number) < 0) {
        return -1;
    }
    out->winner = (int)number;
    /* the undo stack: (move, seat, laid, draws, last drawn) */
    if (!(value = state_item(state, "_stack"))) {
        return -1;
    }
    seq = PySequence_Fast(value, "the pickled undo stack must be a sequence");
    if (!seq) {
        return -1;
    }
    Py_ssize_t size = PySequence_Fast_GET_SIZE(seq);
    entry_t *stack = size ? PyMem_Malloc((size_t)size * sizeof(entry_t)) : NULL;
    if (size && !stack) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t drawn = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        PyObject *move;
        int seat, laid, draws, last;
        long code;
        if (!PyTuple_Check(item) ||
            !PyArg_ParseTuple(item, "Oiiii;a pickled undo entry is (move, seat, laid, draws, last drawn)", &move,
                              &seat, &laid, &draws, &last) ||
            er_code_of(move, &code) < 0) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "a pickled undo entry is (move, seat, laid, draws, last drawn)");
            }
            goto stack_error;
        }
        if (code < PASS_CODE || code >= DECK || seat < 0 || seat >= players || laid < 0 || laid > 2 * DECK ||
            draws < 0 || draws > 2 * DECK || last < -1 || last >= DECK) {
            PyErr_Format(PyExc_ValueError, "pickled undo entry %zd is out of range: %R", i, item);
            goto stack_error;
        }
        drawn += code == DRAW_CODE;
        stack[i].code = (int8_t)code;
        stack[i].seat = (int8_t)seat;
        stack[i].last_drawn = (int8_t)last;
        stack[i].unused = 0;
        stack[i].laid = (int16_t)laid;
        stack[i].draws = (int16_t)draws;
    }
    if (drawn > out->pile_pos) {
        PyErr_SetString(PyExc_ValueError, "the pickled undo stack draws more cards than left the pile");
        goto stack_error;
    }
    Py_DECREF(seq);
    *stack_out = stack;
    *size_out = size;
    return 0;
stack_error:
    PyMem_Free(stack);
    Py_DECREF(seq);
    return -1;
}

PyObject *er_state_setstate(CoreState *self, PyObject *state) {
    PyObject *slots = state;
    if (PyTuple_Check(state) && PyTuple_GET_SIZE(state) == 2) {
        PyObject *dict_state = PyTuple_GET_ITEM(state, 0);
        if (dict_state != Py_None && !(PyDict_Check(dict_state) && PyDict_GET_SIZE(dict_state) == 0)) {
            PyErr_SetString(PyExc_ValueError, "the game state has no __dict__ to restore");
            return NULL;
        }
        slots = PyTuple_GET_ITEM(state, 1);
    }
    if (slots == Py_None) {
        Py_RETURN_NONE;
    }
    if (!PyDict_Check(slots)) {
        PyErr_Format(PyExc_TypeError, "a pickled game state is (None, dict), not %.100s", Py_TYPE(state)->tp_name);
        return NULL;
    }
    if (PyDict_GetItemString(slots, "_hands")) {
        game_t data;
        entry_t *stack = NULL;
        Py_ssize_t size = 0;
        memset(&data, 0, sizeof(data));
        if (read_core_state(slots, &data, &stack, &size) < 0) {
            return NULL;
        }
        self->game = data;
        Py_CLEAR(self->legal);
        PyMem_Free(self->stack);
        self->stack = stack;
        self->stack_size = self->stack_cap = size;
    }
    /* The other slots (a subclass's) by setattr, from a list: setters may run any code. */
    PyObject *items = PyDict_Items(slots);
    if (!items) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
        PyObject *key = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 0);
        PyObject *value = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 1);
        if (!is_state_key(key) && PyObject_SetAttr((PyObject *)self, key, value) < 0) {
            Py_DECREF(items);
            return NULL;
        }
    }
    Py_DECREF(items);
    Py_RETURN_NONE;
}
