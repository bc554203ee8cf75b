/* The moves as Python objects: the shared singletons of elferraus.moves
 * (LAYS, DRAW, PASS), fetched once at import, and the legal-move tuples of
 * one or two moves built from them once, for the state to hand out.
 */

#include "core.h"

PyObject *ER_LAYS[DECK]; /* borrowed from LAYS_TUPLE */
PyObject *ER_DRAW;
PyObject *ER_PASS;

static PyObject *LAYS_TUPLE;
static PyObject *ONLY_DRAW;         /* (DRAW,) */
static PyObject *ONLY_PASS;         /* (PASS,) */
static PyObject *LAY_ONLY[DECK];    /* (LAYS[i],) */
static PyObject *LAY_OR_PASS[DECK]; /* (LAYS[i], PASS) */
static PyObject *LAY_OR_DRAW[DECK]; /* (LAYS[i], DRAW) */

/* move.code as a C long; -1 with an exception otherwise. */
int er_code_of(PyObject *move, long *out) {
    PyObject *code = PyObject_GetAttrString(move, "code");
    if (!code) {
        return -1;
    }
    *out = PyLong_AsLong(code);
    Py_DECREF(code);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* Fetch the moves (once: later calls do nothing); -1 with an exception (then call er_clear_moves). */
int er_load_moves(void) {
    if (LAYS_TUPLE) {
        return 0;
    }
    PyObject *moves = PyImport_ImportModule("elferraus.moves");
    if (!moves) {
        return -1;
    }
    LAYS_TUPLE = PyObject_GetAttrString(moves, "LAYS");
    ER_DRAW = PyObject_GetAttrString(moves, "DRAW");
    ER_PASS = PyObject_GetAttrString(moves, "PASS");
    Py_DECREF(moves);
    if (!LAYS_TUPLE || !ER_DRAW || !ER_PASS) {
        return -1;
    }
    if (!PyTuple_CheckExact(LAYS_TUPLE) || PyTuple_GET_SIZE(LAYS_TUPLE) != DECK) {
        PyErr_SetString(PyExc_ImportError, "elferraus.moves.LAYS is not a tuple of 80 moves");
        return -1;
    }
    long code;
    for (int i = 0; i < DECK; i++) {
        ER_LAYS[i] = PyTuple_GET_ITEM(LAYS_TUPLE, i);
        if (er_code_of(ER_LAYS[i], &code) < 0) {
            return -1;
        }
        if (code != i) {
            PyErr_Format(PyExc_ImportError, "elferraus.moves.LAYS[%d].code is %ld", i, code);
            return -1;
        }
    }
    if (er_code_of(ER_DRAW, &code) < 0) {
        return -1;
    }
    if (code != DRAW_CODE) {
        PyErr_SetString(PyExc_ImportError, "elferraus.moves.DRAW.code is not -1");
        return -1;
    }
    if (er_code_of(ER_PASS, &code) < 0) {
        return -1;
    }
    if (code != PASS_CODE) {
        PyErr_SetString(PyExc_ImportError, "elferraus.moves.PASS.code is not -2");
        return -1;
    }
    ONLY_DRAW = PyTuple_Pack(1, ER_DRAW);
    ONLY_PASS = PyTuple_Pack(1, ER_PASS);
    if (!ONLY_DRAW || !ONLY_PASS) {
        return -1;
    }
    for (int i = 0; i < DECK; i++) {
        LAY_ONLY[i] = PyTuple_Pack(1, ER_LAYS[i]);
        LAY_OR_PASS[i] = PyTuple_Pack(2, ER_LAYS[i], ER_PASS);
        LAY_OR_DRAW[i] = PyTuple_Pack(2, ER_LAYS[i], ER_DRAW);
        if (!LAY_ONLY[i] || !LAY_OR_PASS[i] || !LAY_OR_DRAW[i]) {
            return -1;
        }
    }
    return 0;
}

void er_clear_moves(void) {
    for (int i = 0; i < DECK; i++) {
        ER_LAYS[i] = NULL;
        Py_CLEAR(LAY_ONLY[i]);
        Py_CLEAR(LAY_OR_PASS[i]);
        Py_CLEAR(LAY_OR_DRAW[i]);
    }
    Py_CLEAR(ONLY_DRAW);
    Py_CLEAR(ONLY_PASS);
    Py_CLEAR(LAYS_TUPLE);
    Py_CLEAR(ER_DRAW);
    Py_CLEAR(ER_PASS);
}

/* The moves of `codes` (n of them, as er_legal_codes gives them) as a tuple: a new reference.
   One or two moves come from the tuples built at import, more in a new tuple. */
PyObject *er_moves_tuple(const int8_t *codes, int n) {
    PyObject *tuple;
    if (n == 1) {
        int code = codes[0];
        tuple = code >= 0 ? LAY_ONLY[code] : code == DRAW_CODE ? ONLY_DRAW : ONLY_PASS;
        Py_INCREF(tuple);
        return tuple;
    }
    if (n == 2 && codes[0] >= 0 && codes[1] < 0) {
        tuple = codes[1] == PASS_CODE ? LAY_OR_PASS[codes[0]] : LAY_OR_DRAW[codes[0]];
        Py_INCREF(tuple);
        return tuple;
    }
    tuple = PyTuple_New(n);
    if (!tuple) {
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        PyObject *move = er_move_of(codes[i]);
        Py_INCREF(move);
        PyTuple_SET_ITEM(tuple, i, move);
    }
    return tuple;
}
