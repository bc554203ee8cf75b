/* elferraus._core: the game's hot core, compiled.
 *
 * CoreState implements exactly the interface and the semantics of
 * elferraus._pystate.PyState (the reference; read its docstring first).
 * The test suite (tests/test_core_equivalence.py) plays the same games
 * through both and compares every position.
 *
 * Representation: a card is an index 0..79 (colour * 20 + number - 1); a
 * hand and the ``fit`` set are 80-bit masks kept in two 64-bit words; the
 * pile is a byte array with a read position; the undo stack is a growable
 * array of small fixed-size entries. Moves are the shared singletons of
 * elferraus.moves (LAYS, DRAW, PASS), fetched once at import.
 *
 * Rollouts (search, sample_deals, playout, random_playouts; the section
 * "Rollouts" below) are the C twin of the package elferraus/rollout/, with the same
 * rules engine on a plain struct and bit-identical results
 * (tests/test_rollout.py).
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#endif

#define NUMBERS 20
#define ELEVEN 11
#define DECK 80
#define MAX_PLAYERS 6
#define MAX_COLORS 4
#define MAX_TURN_COUNT 80 /* bound on "laid" and "draws" given to _load_position */
#define DRAW_CODE (-1)
#define PASS_CODE (-2)
#define MAX_LEGAL (DECK + 1) /* every card of a mask, plus draw or pass */

/* ---------------------------------------------------------------------- */
/* 80-bit masks                                                           */

typedef struct {
    uint64_t lo; /* cards 0..63 */
    uint64_t hi; /* cards 64..79 in bits 0..15 */
} mask_t;

#define HI_LIMIT ((uint64_t)1 << (DECK - 64))

static inline mask_t mask_bit(int index) {
    mask_t m;
    m.lo = index < 64 ? (uint64_t)1 << index : 0;
    m.hi = index >= 64 ? (uint64_t)1 << (index - 64) : 0;
    return m;
}

static inline int mask_test(mask_t m, int index) {
    return index < 64 ? (int)(m.lo >> index & 1) : (int)(m.hi >> (index - 64) & 1);
}

static inline mask_t mask_and(mask_t a, mask_t b) {
    mask_t m = {a.lo & b.lo, a.hi & b.hi};
    return m;
}

static inline mask_t mask_or(mask_t a, mask_t b) {
    mask_t m = {a.lo | b.lo, a.hi | b.hi};
    return m;
}

static inline mask_t mask_xor(mask_t a, mask_t b) {
    mask_t m = {a.lo ^ b.lo, a.hi ^ b.hi};
    return m;
}

static inline int mask_eq(mask_t a, mask_t b) { return a.lo == b.lo && a.hi == b.hi; }

static inline int mask_empty(mask_t m) { return !(m.lo | m.hi); }

static inline int popcount64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    while (x) {
        x &= x - 1;
        n++;
    }
    return n;
#endif
}

static inline int ctz64(uint64_t x) { /* x != 0 */
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(x);
#else
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
#endif
}

static inline int mask_count(mask_t m) { return popcount64(m.lo) + popcount64(m.hi); }

/* The card indices of ``m`` in increasing order; returns how many. */
static inline int mask_indices(mask_t m, int8_t *out) {
    int n = 0;
    uint64_t w = m.lo;
    while (w) {
        out[n++] = (int8_t)ctz64(w);
        w &= w - 1;
    }
    w = m.hi;
    while (w) {
        out[n++] = (int8_t)(64 + ctz64(w));
        w &= w - 1;
    }
    return n;
}

static PyObject *mask_to_pylong(mask_t m) {
    if (!m.hi) {
        return PyLong_FromUnsignedLongLong(m.lo);
    }
    unsigned char buf[16];
    for (int i = 0; i < 8; i++) {
        buf[i] = (unsigned char)(m.lo >> (8 * i));
        buf[8 + i] = (unsigned char)(m.hi >> (8 * i));
    }
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(buf, sizeof(buf), Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(buf, sizeof(buf), 1, 0);
#endif
}

/* A Python int 0 <= value < 2**80 as a mask; -1 with an exception set otherwise. */
static int mask_from_pylong(PyObject *value, mask_t *out, const char *what) {
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int bitmask over card indices, not %.100s", what,
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    int overflow;
    long long small = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (small == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow < 0 || (!overflow && small < 0)) {
        PyErr_Format(PyExc_ValueError, "%s must not be negative, got %R", what, value);
        return -1;
    }
    if (!overflow) {
        out->lo = (uint64_t)small;
        out->hi = 0;
        return 0;
    }
    uint64_t lo = PyLong_AsUnsignedLongLongMask(value);
    if (lo == (uint64_t)-1 && PyErr_Occurred()) {
        return -1;
    }
    PyObject *shift = PyLong_FromLong(64);
    if (!shift) {
        return -1;
    }
    PyObject *high = PyNumber_Rshift(value, shift);
    Py_DECREF(shift);
    if (!high) {
        return -1;
    }
    uint64_t hi = PyLong_AsUnsignedLongLong(high);
    Py_DECREF(high);
    if (hi == (uint64_t)-1 && PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
            return -1;
        }
        PyErr_Clear();
        hi = HI_LIMIT;
    }
    if (hi >= HI_LIMIT) {
        PyErr_Format(PyExc_ValueError, "%s has a bit at or above 80 (cards are 0-79): %R", what, value);
        return -1;
    }
    out->lo = lo;
    out->hi = hi;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Shared objects, fetched from elferraus.moves at import                 */

static PyObject *LAYS[DECK]; /* borrowed from LAYS_TUPLE */
static PyObject *LAYS_TUPLE;
static PyObject *DRAW;
static PyObject *PASS;
static PyObject *ONLY_DRAW;           /* (DRAW,) */
static PyObject *ONLY_PASS;           /* (PASS,) */
static PyObject *DRAWN_MAY[DECK];     /* (LAYS[i], PASS) */
static PyObject *DRAWN_MUST[DECK];    /* (LAYS[i],) */
static PyObject *STR_ILLEGAL;         /* "_illegal" */
static mask_t BITS[DECK];
static mask_t NEWLY_FITTING[DECK];    /* the cards that fit after laying card i */

static inline PyObject *move_of(int code) { /* borrowed */
    return code >= 0 ? LAYS[code] : code == DRAW_CODE ? DRAW : PASS;
}

static mask_t elevens_mask(int colors) {
    mask_t m = {0, 0};
    for (int c = 0; c < colors; c++) {
        m = mask_or(m, BITS[c * NUMBERS + ELEVEN - 1]);
    }
    return m;
}

/* ---------------------------------------------------------------------- */
/* The state                                                              */

typedef struct {
    int8_t code;       /* card index, DRAW_CODE or PASS_CODE */
    int8_t seat;
    int8_t last_drawn; /* as it was before the move */
    uint8_t unused;
    int16_t laid;      /* as it was before the move */
    int16_t draws;     /* as it was before the move */
} entry_t;

typedef struct {
    PyObject_HEAD
    /* Everything from `players` up to `legal` is plain data, copied
       wholesale by _copy_state; only `legal` and `stack` need care. */
    int players; /* 0 until __init__ ran */
    int to_move;
    int winner;
    int laid;
    int draws;
    int last_drawn;
    int max_draws;
    int must_play;
    int ends_after_draw;
    int pile_len;
    int pile_pos;
    mask_t fit;
    mask_t elevens;
    mask_t hands[MAX_PLAYERS];
    int counts[MAX_PLAYERS];
    uint8_t pile[DECK];
    int8_t legal_codes[MAX_LEGAL + 1]; /* the codes of the items of `legal` */
    PyObject *legal;                   /* cached legal-move tuple or NULL */
    entry_t *stack;
    Py_ssize_t stack_size;
    Py_ssize_t stack_cap;
} CoreState;

static PyTypeObject CoreState_Type;
static int code_of(PyObject *move, long *out);

static int check_ready(CoreState *self) {
    if (self->players > 0) {
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
    self->winner = -1;
    self->last_drawn = -1;
    return (PyObject *)self;
}

static void CoreState_dealloc(CoreState *self) {
    Py_CLEAR(self->legal);
    PyMem_Free(self->stack);
    self->stack = NULL;
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The seat holding the highest-priority 11 and that 11's index ((0, -1) if none). */
static void starter(CoreState *self, int *seat_out, int *index_out) {
    int8_t indices[DECK];
    int n = mask_indices(self->elevens, indices);
    for (int k = 0; k < n; k++) {
        for (int seat = 0; seat < self->players; seat++) {
            if (mask_test(self->hands[seat], indices[k])) {
                *seat_out = seat;
                *index_out = indices[k];
                return;
            }
        }
    }
    *seat_out = 0;
    *index_out = -1;
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
    int must_play = PyObject_IsTrue(must_play_arg);
    if (must_play < 0) {
        return -1;
    }
    int ends_after_draw = PyObject_IsTrue(ends_arg);
    if (ends_after_draw < 0) {
        return -1;
    }

    mask_t hands[MAX_PLAYERS];
    int counts[MAX_PLAYERS];
    uint8_t pile[DECK];
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
        if (mask_from_pylong(PySequence_Fast_GET_ITEM(seq, seat), &hands[seat], "a hand") < 0) {
            Py_DECREF(seq);
            return -1;
        }
        counts[seat] = mask_count(hands[seat]);
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
        pile[i] = (uint8_t)card;
    }
    Py_DECREF(seq);

    /* All checked: commit (a failed re-initialisation leaves the old state). */
    self->players = (int)players;
    memcpy(self->hands, hands, sizeof(mask_t) * (size_t)players);
    memcpy(self->counts, counts, sizeof(int) * (size_t)players);
    for (int seat = (int)players; seat < MAX_PLAYERS; seat++) {
        self->hands[seat].lo = self->hands[seat].hi = 0;
        self->counts[seat] = 0;
    }
    memcpy(self->pile, pile, (size_t)pile_len);
    self->pile_len = (int)pile_len;
    self->pile_pos = 0;
    self->elevens = elevens_mask(colors);
    self->fit = self->elevens;
    self->max_draws = max_draws;
    self->must_play = must_play;
    self->ends_after_draw = ends_after_draw;
    self->laid = 0;
    self->draws = 0;
    self->last_drawn = -1;
    self->winner = -1;
    self->stack_size = 0;
    Py_CLEAR(self->legal);
    int seat, index;
    starter(self, &seat, &index);
    self->to_move = seat;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Legal moves                                                            */

/* A new tuple: the lays of the cards in `fitting` (increasing index), then `last` if not NULL. */
static PyObject *lays_tuple(CoreState *self, mask_t fitting, PyObject *last, int8_t last_code) {
    int8_t *codes = self->legal_codes;
    int n = mask_indices(fitting, codes);
    PyObject *tuple = PyTuple_New(n + (last != NULL));
    if (!tuple) {
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        PyObject *move = LAYS[codes[i]];
        Py_INCREF(move);
        PyTuple_SET_ITEM(tuple, i, move);
    }
    if (last) {
        codes[n] = last_code;
        Py_INCREF(last);
        PyTuple_SET_ITEM(tuple, n, last);
    }
    return tuple;
}

static inline PyObject *constant(CoreState *self, PyObject *tuple, int8_t first, int8_t second) {
    self->legal_codes[0] = first;
    self->legal_codes[1] = second;
    Py_INCREF(tuple);
    return tuple;
}

/* Fill self->legal (and legal_codes); 0 on success. Mirrors PyState.legal_moves. */
static int compute_legal(CoreState *self) {
    PyObject *legal;
    if (self->winner >= 0) {
        legal = PyTuple_New(0);
    }
    else if (self->laid) {
        legal = lays_tuple(self, mask_and(self->hands[self->to_move], self->fit), PASS, PASS_CODE);
    }
    else if (self->draws) {
        int last = self->last_drawn;
        if (last < 0) { /* _load_position refuses this; push and pop never make it */
            PyErr_SetString(PyExc_RuntimeError, "cards were drawn this turn but no last drawn card is known");
            return -1;
        }
        if (mask_test(self->fit, last)) {
            legal = self->must_play ? constant(self, DRAWN_MUST[last], (int8_t)last, 0)
                                    : constant(self, DRAWN_MAY[last], (int8_t)last, PASS_CODE);
        }
        else if (self->draws < self->max_draws && self->pile_pos < self->pile_len) {
            legal = constant(self, ONLY_DRAW, DRAW_CODE, 0);
        }
        else {
            legal = constant(self, ONLY_PASS, PASS_CODE, 0);
        }
    }
    else if (mask_eq(self->fit, self->elevens)) {
        int seat, index;
        starter(self, &seat, &index);
        if (index < 0) {
            index = DECK - 1; /* as PyState's LAYS[-1]: no 11 in any hand (not a real deal) */
        }
        legal = constant(self, DRAWN_MUST[index], (int8_t)index, 0);
    }
    else {
        mask_t fitting = mask_and(self->hands[self->to_move], self->fit);
        int any = !mask_empty(fitting);
        if (self->pile_pos == self->pile_len || (any && self->must_play)) {
            legal = any ? lays_tuple(self, fitting, NULL, 0) : constant(self, ONLY_PASS, PASS_CODE, 0);
        }
        else if (!any) {
            legal = constant(self, ONLY_DRAW, DRAW_CODE, 0);
        }
        else {
            legal = lays_tuple(self, fitting, DRAW, DRAW_CODE);
        }
    }
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
    return PyBool_FromLong(self->winner >= 0);
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
    int code = self->legal_codes[i];
    int seat = self->to_move;
    int laid = self->laid;
    int draws = self->draws;
    entry_t *entry = &self->stack[self->stack_size++];
    entry->code = (int8_t)code;
    entry->seat = (int8_t)seat;
    entry->last_drawn = (int8_t)self->last_drawn;
    entry->unused = 0;
    entry->laid = (int16_t)laid;
    entry->draws = (int16_t)draws;
    self->legal = NULL;
    Py_DECREF(legal);
    if (code >= 0) {
        mask_t bit = BITS[code];
        mask_t fit = self->fit;
        self->hands[seat] = mask_xor(self->hands[seat], bit);
        self->fit = mask_or(mask_xor(fit, bit), NEWLY_FITTING[code]);
        int left = --self->counts[seat];
        if (!left) {
            self->winner = seat;
            self->laid = laid + 1;
        }
        else if (mask_eq(fit, self->elevens) || (draws && !laid && self->ends_after_draw)) {
            /* The opening 11, or a drawn card laid: the turn ends by itself. */
            self->to_move = (seat + 1) % self->players;
            self->draws = 0;
            self->last_drawn = -1;
        }
        else {
            self->laid = laid + 1;
        }
    }
    else if (code == DRAW_CODE) {
        int card = self->pile[self->pile_pos++];
        self->hands[seat] = mask_or(self->hands[seat], BITS[card]);
        self->counts[seat]++;
        self->draws = draws + 1;
        self->last_drawn = card;
    }
    else {
        self->to_move = (seat + 1) % self->players;
        self->laid = self->draws = 0;
        self->last_drawn = -1;
    }
    Py_RETURN_NONE;
}

static PyObject *CoreState_pop(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    if (!self->stack_size) {
        PyErr_SetString(PyExc_IndexError, "no move to take back");
        return NULL;
    }
    entry_t entry = self->stack[--self->stack_size];
    int code = entry.code;
    int seat = entry.seat;
    if (code >= 0) {
        mask_t bit = BITS[code];
        self->hands[seat] = mask_or(self->hands[seat], bit);
        self->fit = mask_or(mask_xor(self->fit, NEWLY_FITTING[code]), bit);
        self->counts[seat]++;
        self->winner = -1;
    }
    else if (code == DRAW_CODE) {
        self->pile_pos--;
        self->hands[seat] = mask_xor(self->hands[seat], BITS[self->pile[self->pile_pos]]);
        self->counts[seat]--;
    }
    self->to_move = seat;
    self->laid = entry.laid;
    self->draws = entry.draws;
    self->last_drawn = entry.last_drawn;
    Py_CLEAR(self->legal);
    PyObject *move = move_of(code);
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
    if (index_arg(arg, self->players, "seat", &seat) < 0) {
        return NULL;
    }
    return mask_to_pylong(self->hands[seat]);
}

static PyObject *CoreState_hand_count(CoreState *self, PyObject *arg) {
    Py_ssize_t seat;
    if (index_arg(arg, self->players, "seat", &seat) < 0) {
        return NULL;
    }
    return PyLong_FromLong(self->counts[seat]);
}

static PyObject *CoreState_fit_mask(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    return mask_to_pylong(self->fit);
}

static PyObject *CoreState_winner_seat(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromLong(self->winner);
}

static PyObject *CoreState_pile_indices(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    int n = self->pile_len - self->pile_pos;
    PyObject *tuple = PyTuple_New(n);
    if (!tuple) {
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        PyObject *card = PyLong_FromLong(self->pile[self->pile_pos + i]);
        if (!card) {
            Py_DECREF(tuple);
            return NULL;
        }
        PyTuple_SET_ITEM(tuple, i, card);
    }
    return tuple;
}

static PyObject *CoreState_pile_left(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    return PyLong_FromLong(self->pile_len - self->pile_pos);
}

static PyObject *CoreState_phase(CoreState *self, PyObject *Py_UNUSED(ignored)) {
    return Py_BuildValue("(iii)", self->laid, self->draws, self->last_drawn);
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
    return Py_BuildValue("(Oiiii)", move_of(entry->code), entry->seat, entry->laid, entry->draws,
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
    /* The plain data from `players` up to (not including) `legal`. */
    memcpy(&other->players, &self->players, offsetof(CoreState, legal) - offsetof(CoreState, players));
    other->legal = self->legal;
    Py_XINCREF(other->legal);
    other->stack = stack;
    other->stack_size = stack_size;
    other->stack_cap = stack_size;
    if (!history) {
        int left = self->pile_len - self->pile_pos;
        memmove(other->pile, self->pile + self->pile_pos, (size_t)left);
        other->pile_len = left;
        other->pile_pos = 0;
    }
    return (PyObject *)other;
}

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
    if (turn < 0 || turn >= self->players) {
        PyErr_Format(PyExc_ValueError, "turn %d is not a seat 0-%d", turn, self->players - 1);
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
    if (mask_from_pylong(fit_arg, &fit, "fit") < 0) {
        return NULL;
    }
    self->to_move = turn;
    self->laid = laid;
    self->draws = draws;
    self->last_drawn = last_drawn;
    self->fit = fit;
    Py_CLEAR(self->legal);
    self->winner = -1;
    for (int seat = 0; seat < self->players; seat++) {
        if (!self->counts[seat]) {
            self->winner = seat;
            break;
        }
    }
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------- */
/* Pickling and copy.copy/deepcopy                                        */

/* The state in PyState's own form, (None, {slot: value}), with the slots of
   subclasses (Game's) in the same dict, so pickles load on either core. */
static PyObject *CoreState_getstate(CoreState *self, PyObject *Py_UNUSED(ignored)) {
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
    if (self->players) {
        int n = self->players;
        PyObject *hands = PyList_New(n), *counts = PyList_New(n), *stack = PyList_New(self->stack_size);
        PyObject *pile = PyTuple_New(self->pile_len);
        PyObject *item;
        int ok = hands && counts && stack && pile;
        for (int seat = 0; ok && seat < n; seat++) {
            item = mask_to_pylong(self->hands[seat]);
            ok = item != NULL;
            if (ok) {
                PyList_SET_ITEM(hands, seat, item);
                item = PyLong_FromLong(self->counts[seat]);
                ok = item != NULL;
            }
            if (ok) {
                PyList_SET_ITEM(counts, seat, item);
            }
        }
        for (int i = 0; ok && i < self->pile_len; i++) {
            item = PyLong_FromLong(self->pile[i]);
            ok = item != NULL;
            if (ok) {
                PyTuple_SET_ITEM(pile, i, item);
            }
        }
        for (Py_ssize_t i = 0; ok && i < self->stack_size; i++) {
            entry_t *entry = &self->stack[i];
            item = Py_BuildValue("(Oiiii)", move_of(entry->code), entry->seat, entry->laid, entry->draws,
                                 entry->last_drawn);
            ok = item != NULL;
            if (ok) {
                PyList_SET_ITEM(stack, i, item);
            }
        }
        PyObject *fit = ok ? mask_to_pylong(self->fit) : NULL;
        PyObject *elevens = ok ? mask_to_pylong(self->elevens) : NULL;
        ok = ok && fit && elevens;
        if (ok) {
            PyObject *values = Py_BuildValue(
                "{s:i,s:O,s:O,s:O,s:i,s:O,s:O,s:i,s:O,s:O,s:i,s:i,s:i,s:i,s:i,s:O,s:O}", "players", n, "_hands",
                hands, "_counts", counts, "_pile", pile, "_pile_pos", self->pile_pos, "_elevens", elevens, "_fit",
                fit, "_max_draws", self->max_draws, "_must_play", self->must_play ? Py_True : Py_False,
                "_ends_after_draw", self->ends_after_draw ? Py_True : Py_False, "_to_move", self->to_move, "_laid",
                self->laid, "_draws", self->draws, "_last_drawn", self->last_drawn, "_winner", self->winner,
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
static int read_core_state(PyObject *state, CoreState *out, entry_t **stack_out, Py_ssize_t *size_out) {
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
                failed = mask_from_pylong(item, &out->hands[seat], "a pickled hand") < 0;
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
        out->pile[i] = (uint8_t)number;
    }
    Py_DECREF(seq);
    out->pile_len = (int)pile_len;
    if (state_long(state, "_pile_pos", 0, pile_len, &number) < 0) {
        return -1;
    }
    out->pile_pos = (int)number;
    /* masks, rules, phase */
    if (!(value = state_item(state, "_elevens")) || mask_from_pylong(value, &out->elevens, "pickled _elevens") < 0) {
        return -1;
    }
    int colors = 1;
    while (colors <= MAX_COLORS && !mask_eq(out->elevens, elevens_mask(colors))) {
        colors++;
    }
    if (colors > MAX_COLORS) {
        PyErr_SetString(PyExc_ValueError, "pickled _elevens is not the 11s of 1-4 colours");
        return -1;
    }
    if (!(value = state_item(state, "_fit")) || mask_from_pylong(value, &out->fit, "pickled _fit") < 0) {
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
            code_of(move, &code) < 0) {
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

static PyObject *CoreState_setstate(CoreState *self, PyObject *state) {
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
        CoreState data;
        entry_t *stack = NULL;
        Py_ssize_t size = 0;
        memset(&data, 0, sizeof(data));
        if (read_core_state(slots, &data, &stack, &size) < 0) {
            return NULL;
        }
        memcpy(&self->players, &data.players, offsetof(CoreState, legal) - offsetof(CoreState, players));
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

static PyObject *CoreState_get_turn(CoreState *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(self->to_move);
}

static PyObject *CoreState_get_players(CoreState *self, void *Py_UNUSED(closure)) {
    return PyLong_FromLong(self->players);
}

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
    {"_phase", (PyCFunction)CoreState_phase, METH_NOARGS, "(laid, draws, last drawn or -1) of this turn."},
    {"_stack_size", (PyCFunction)CoreState_stack_size, METH_NOARGS, "How many moves can be taken back."},
    {"_stack_entry", (PyCFunction)CoreState_stack_entry, METH_O,
     "(move, seat, laid, draws, last drawn) of undo entry ``index``, as before that move."},
    {"_copy_state", (PyCFunction)CoreState_copy_state, METH_O,
     "An independent copy of the same type; without history: no undo, pile trimmed."},
    {"_load_position", (PyCFunction)(void (*)(void))CoreState_load_position, METH_VARARGS | METH_KEYWORDS,
     "Set the turn, the turn phase and the table (fit mask) of a position."},
    {"__getstate__", (PyCFunction)CoreState_getstate, METH_NOARGS,
     "The state for pickle and copy, in the form of PyState's (pickles load on either core)."},
    {"__setstate__", (PyCFunction)CoreState_setstate, METH_O, "Restore a state made by __getstate__."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef CoreState_getset[] = {
    {"turn", (getter)CoreState_get_turn, NULL, "The seat to move (after the game ended: the winner's seat).", NULL},
    {"players", (getter)CoreState_get_players, NULL, "The number of seats.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject CoreState_Type = {
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

/* ---------------------------------------------------------------------- */
/* Shuffling helper for elferraus.deal                                    */

typedef struct {
    uint64_t key;
    Py_ssize_t index;
} keyed_t;

/* Stable merge sort of `items` by key (`tmp` is scratch of the same size). */
static void merge_sort(keyed_t *items, keyed_t *tmp, Py_ssize_t n) {
    for (Py_ssize_t width = 1; width < n; width *= 2) {
        for (Py_ssize_t low = 0; low < n; low += 2 * width) {
            Py_ssize_t mid = low + width < n ? low + width : n;
            Py_ssize_t high = low + 2 * width < n ? low + 2 * width : n;
            Py_ssize_t i = low, j = mid, k = low;
            while (i < mid && j < high) {
                tmp[k++] = items[j].key < items[i].key ? items[j++] : items[i++];
            }
            while (i < mid) {
                tmp[k++] = items[i++];
            }
            while (j < high) {
                tmp[k++] = items[j++];
            }
        }
        memcpy(items, tmp, (size_t)n * sizeof(keyed_t));
    }
}

static PyObject *core_key_order(PyObject *Py_UNUSED(module), PyObject *arg) {
    Py_buffer view;
    if (PyObject_GetBuffer(arg, &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (view.len % 8) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "key_order needs whole 8-byte keys, got %zd bytes", view.len);
        return NULL;
    }
    Py_ssize_t n = view.len / 8;
    keyed_t local[2 * DECK];
    keyed_t *items = n <= DECK ? local : PyMem_Malloc(2 * (size_t)n * sizeof(keyed_t));
    if (!items) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    const unsigned char *bytes = view.buf;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t key = 0;
        for (int b = 7; b >= 0; b--) {
            key = key << 8 | bytes[8 * i + b];
        }
        items[i].key = key;
        items[i].index = i;
    }
    PyBuffer_Release(&view);
    merge_sort(items, items + n, n);
    PyObject *order = PyList_New(n);
    if (order) {
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *index = PyLong_FromSsize_t(items[i].index);
            if (!index) {
                Py_CLEAR(order);
                break;
            }
            PyList_SET_ITEM(order, i, index);
        }
    }
    if (items != local) {
        PyMem_Free(items);
    }
    return order;
}

/* The bitmask of an iterable of card indices (``Game.deal`` builds hands with it). */
static PyObject *core_mask_of(PyObject *Py_UNUSED(module), PyObject *arg) {
    PyObject *seq = PySequence_Fast(arg, "mask_of needs an iterable of card indices");
    if (!seq) {
        return NULL;
    }
    mask_t mask = {0, 0};
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyLong_Check(item)) {
            PyErr_Format(PyExc_TypeError, "card indices must be ints, not %.100s", Py_TYPE(item)->tp_name);
            Py_DECREF(seq);
            return NULL;
        }
        int overflow;
        long card = PyLong_AsLongAndOverflow(item, &overflow);
        if (card == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        if (overflow || card < 0 || card >= DECK) {
            PyErr_Format(PyExc_ValueError, "%R is not a card index 0-%d", item, DECK - 1);
            Py_DECREF(seq);
            return NULL;
        }
        mask = mask_or(mask, BITS[card]);
    }
    Py_DECREF(seq);
    return mask_to_pylong(mask);
}

/* ---------------------------------------------------------------------- */
/* Rollouts: determinized playouts for search                             */
/*                                                                        */
/* search, sample_deals, playout and random_playouts, with exactly the    */
/* results of the package elferraus/rollout/ (the reference; its docstring fixes    */
/* the order in which random numbers are drawn). A playout runs on a      */
/* plain struct (sim_t) with CoreState's rules (sim_legal mirrors         */
/* compute_legal, sim_push mirrors CoreState_push), without Python        */
/* objects or allocation, and without the GIL.                            */

#define MAX_ACTIONS 10000 /* a playout longer than this is an error (games end long before) */
#define POLICY_RANDOM 0
#define POLICY_GREEDY 1
#define POLICY_MEDIUM 2
#define MIN_SEATS 2

/* medium's constants, in hundredths (see elferraus/rollout/) */
#define SCORE_BASE 100
#define SCORE_FREE 50
#define SCORE_UNLOCK 2000
#define SCORE_KEEP_DRAWN (-40)
#define WEIGHT_NORMAL 100
#define WEIGHT_CLOSE 160
#define CLOSE_COUNT 3
#define SHORT_HAND 2

enum { RUN_OK = 0, RUN_TOO_LONG = 1, RUN_STUCK = 2 };

static const int DEAL_SIZES[MAX_PLAYERS + 1] = {0, 0, 20, 20, 15, 12, 10};

/* SplitMix64 (Steele, Lea, Flood 2014). */
typedef struct {
    uint64_t state;
} splitmix_t;

static inline uint64_t sm_next(splitmix_t *rng) {
    uint64_t z = (rng->state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* The high 64 bits of a * b. */
static inline uint64_t mulhi64(uint64_t a, uint64_t b) {
#if defined(__SIZEOF_INT128__)
    __extension__ typedef unsigned __int128 u128_t;
    return (uint64_t)(((u128_t)a * b) >> 64);
#else
    uint64_t a_lo = a & 0xFFFFFFFFu, a_hi = a >> 32, b_lo = b & 0xFFFFFFFFu, b_hi = b >> 32;
    uint64_t lo_lo = a_lo * b_lo, hi_lo = a_hi * b_lo, lo_hi = a_lo * b_hi, hi_hi = a_hi * b_hi;
    uint64_t cross = (lo_lo >> 32) + (hi_lo & 0xFFFFFFFFu) + lo_hi;
    return hi_hi + (hi_lo >> 32) + (cross >> 32);
#endif
}

/* A random integer in [0, n): (next() * n) >> 64. */
static inline int sm_below(splitmix_t *rng, int n) { return (int)mulhi64(sm_next(rng), (uint64_t)n); }

/* A random float in [0, 1): (next() >> 11) * 2**-53. */
static inline double sm_random(splitmix_t *rng) { return (double)(sm_next(rng) >> 11) * (1.0 / 9007199254740992.0); }

static inline void shuffle_cards(int8_t *items, int n, splitmix_t *rng) {
    for (int i = n - 1; i > 0; i--) {
        int j = sm_below(rng, i + 1);
        int8_t t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
}

static inline int mask_lowest(mask_t m) { /* m not empty */
    return m.lo ? ctz64(m.lo) : 64 + ctz64(m.hi);
}

/* ---- the rules engine of a playout ----------------------------------- */

typedef struct {
    mask_t hands[MAX_PLAYERS];
    mask_t fit;
    mask_t elevens;
    int counts[MAX_PLAYERS];
    int players;
    int to_move;
    int winner;
    int laid;
    int draws;
    int last_drawn;
    int pile_len;
    int pile_pos;
    int max_draws;
    int must_play;
    int ends_after_draw;
    int8_t pile[DECK];
} sim_t;

/* The legal move codes into `codes` (room for MAX_LEGAL); returns how many.
   CoreState's compute_legal, except at the opening: the lowest 11 of the
   mover's own hand (none if he holds no 11). */
static int sim_legal(const sim_t *g, int8_t *codes) {
    if (g->winner >= 0) {
        return 0;
    }
    mask_t hand = g->hands[g->to_move];
    if (g->laid) {
        int n = mask_indices(mask_and(hand, g->fit), codes);
        codes[n] = PASS_CODE;
        return n + 1;
    }
    if (g->draws) {
        int last = g->last_drawn;
        if (last >= 0 && mask_test(g->fit, last)) {
            codes[0] = (int8_t)last;
            if (g->must_play) {
                return 1;
            }
            codes[1] = PASS_CODE;
            return 2;
        }
        codes[0] = g->draws < g->max_draws && g->pile_pos < g->pile_len ? DRAW_CODE : PASS_CODE;
        return 1;
    }
    if (mask_eq(g->fit, g->elevens)) {
        mask_t own = mask_and(hand, g->elevens);
        if (mask_empty(own)) {
            return 0;
        }
        codes[0] = (int8_t)mask_lowest(own);
        return 1;
    }
    mask_t fitting = mask_and(hand, g->fit);
    int any = !mask_empty(fitting);
    if (g->pile_pos == g->pile_len || (any && g->must_play)) {
        if (!any) {
            codes[0] = PASS_CODE;
            return 1;
        }
        return mask_indices(fitting, codes);
    }
    if (!any) {
        codes[0] = DRAW_CODE;
        return 1;
    }
    int n = mask_indices(fitting, codes);
    codes[n] = DRAW_CODE;
    return n + 1;
}

/* Make the legal move `code` (not checked): CoreState_push without the undo stack. */
static inline void sim_push(sim_t *g, int code) {
    int seat = g->to_move;
    if (code >= 0) {
        mask_t bit = BITS[code];
        mask_t fit = g->fit;
        g->hands[seat] = mask_xor(g->hands[seat], bit);
        g->fit = mask_or(mask_xor(fit, bit), NEWLY_FITTING[code]);
        int left = --g->counts[seat];
        if (!left) {
            g->winner = seat;
            g->laid++;
        }
        else if (mask_eq(fit, g->elevens) || (g->draws && !g->laid && g->ends_after_draw)) {
            g->to_move = (seat + 1) % g->players;
            g->draws = 0;
            g->last_drawn = -1;
        }
        else {
            g->laid++;
        }
    }
    else if (code == DRAW_CODE) {
        int card = g->pile[g->pile_pos++];
        g->hands[seat] = mask_or(g->hands[seat], BITS[card]);
        g->counts[seat]++;
        g->draws++;
        g->last_drawn = card;
    }
    else {
        g->to_move = (seat + 1) % g->players;
        g->laid = g->draws = 0;
        g->last_drawn = -1;
    }
}

static int hand_penalty(mask_t hand) {
    int8_t cards[DECK];
    int n = mask_indices(hand, cards), sum = 0;
    for (int i = 0; i < n; i++) {
        sum += cards[i] % NUMBERS + 1;
    }
    return sum;
}

/* ---- policies -------------------------------------------------------- */

/* The 20 cards of colour `color` in `m`: bit number - 1. */
static inline uint32_t row_bits(mask_t m, int color) {
    uint64_t bits = color < 3 ? m.lo >> (NUMBERS * color) : (m.lo >> 60) | (m.hi << 4);
    return (uint32_t)(bits & ((1u << NUMBERS) - 1));
}

/* medium's walk of a row from number `start` outward (`own` and `others`:
   the row's cards in the mover's and in the other hands, bit number - 1);
   adds to *released and *unlocked, returns "free". */
static int walk(uint32_t own, uint32_t others, int start, int step, int *released, int *unlocked) {
    if (start < 1 || start > NUMBERS || (own >> (start - 1) & 1)) {
        return 1;
    }
    int number = start;
    while (number >= 1 && number <= NUMBERS) {
        if (own >> (number - 1) & 1) {
            int run = 0;
            while (number >= 1 && number <= NUMBERS && (own >> (number - 1) & 1)) {
                run++;
                number += step;
            }
            *unlocked += run;
            return 0;
        }
        if (!(others >> (number - 1) & 1)) {
            break;
        }
        ++*released;
        number += step;
    }
    return 0;
}

/* medium's score of laying `code`, in hundredths (own/others: per colour, as for walk). */
static int lay_score(const uint32_t *own, const uint32_t *others, int code, int weight) {
    int color = code / NUMBERS, number = code % NUMBERS + 1;
    int released = 0, unlocked = 0, is_free;
    if (number == ELEVEN) {
        int down = walk(own[color], others[color], ELEVEN - 1, -1, &released, &unlocked);
        int up = walk(own[color], others[color], ELEVEN + 1, 1, &released, &unlocked);
        is_free = down && up;
    }
    else {
        int step = number < ELEVEN ? -1 : 1;
        is_free = walk(own[color], others[color], number + step, step, &released, &unlocked);
    }
    return SCORE_BASE + (is_free ? SCORE_FREE : 0) - weight * released + SCORE_UNLOCK * unlocked;
}

/* True if every card of `own` can be laid one after another from `fit`. */
static int can_go_out(mask_t own, mask_t fit) {
    mask_t playable = mask_and(own, fit);
    while (!mask_empty(playable)) {
        int index = mask_lowest(playable);
        own = mask_xor(own, BITS[index]);
        fit = mask_or(mask_xor(fit, BITS[index]), NEWLY_FITTING[index]);
        playable = mask_and(own, fit);
    }
    return mask_empty(own);
}

static int medium_choose(const sim_t *g, const int8_t *codes, int n) {
    if (n == 1) {
        return codes[0];
    }
    int seat = g->to_move;
    mask_t own = g->hands[seat];
    int after_draw = g->draws && !g->laid;
    int last = codes[n - 1];
    if (codes[0] < 0) { /* no lay (cannot happen with two moves or more) */
        for (int i = 0; i < n; i++) {
            if (codes[i] == DRAW_CODE) {
                return DRAW_CODE;
            }
        }
        return PASS_CODE;
    }
    if (!after_draw && can_go_out(own, g->fit)) {
        return codes[0];
    }
    mask_t others = {0, 0};
    int fewest = DECK + 1;
    for (int other = 0; other < g->players; other++) {
        if (other != seat) {
            others = mask_or(others, g->hands[other]);
            if (g->counts[other] < fewest) {
                fewest = g->counts[other];
            }
        }
    }
    int weight = fewest <= CLOSE_COUNT ? WEIGHT_CLOSE : WEIGHT_NORMAL;
    if (g->counts[seat] <= SHORT_HAND) {
        weight = weight * 60 / 100;
    }
    uint32_t own_rows[MAX_COLORS], other_rows[MAX_COLORS];
    for (int c = 0; c < MAX_COLORS; c++) {
        own_rows[c] = row_bits(own, c);
        other_rows[c] = row_bits(others, c);
    }
    int best = -1, best_score = 0;
    for (int i = 0; i < n && codes[i] >= 0; i++) {
        int score = lay_score(own_rows, other_rows, codes[i], weight);
        if (best < 0 || score > best_score) {
            best = codes[i];
            best_score = score;
        }
    }
    if (last == PASS_CODE) {
        return best_score > (after_draw ? SCORE_KEEP_DRAWN : 0) ? best : PASS_CODE;
    }
    if (last == DRAW_CODE) {
        return best_score > 0 ? best : DRAW_CODE;
    }
    return best;
}

/* Play `g` to the end. Adds the actions to *actions; records them in
   `trace` (room for MAX_ACTIONS) unless NULL. */
static int sim_run(sim_t *g, const int8_t *policies, splitmix_t *rng, long long *actions, int8_t *trace) {
    int8_t codes[MAX_LEGAL + 1];
    int count = 0;
    while (g->winner < 0) {
        int n = sim_legal(g, codes);
        if (!n) {
            *actions += count;
            return RUN_STUCK;
        }
        int code;
        if (n == 1) {
            code = codes[0];
        }
        else if (policies[g->to_move] == POLICY_RANDOM) {
            code = codes[sm_below(rng, n)];
        }
        else if (policies[g->to_move] == POLICY_GREEDY) {
            code = codes[0];
        }
        else {
            code = medium_choose(g, codes, n);
        }
        sim_push(g, code);
        if (trace) {
            trace[count] = (int8_t)code;
        }
        count++;
        if (count >= MAX_ACTIONS && g->winner < 0) {
            *actions += count;
            return RUN_TOO_LONG;
        }
    }
    *actions += count;
    return RUN_OK;
}

static int run_error(int status) {
    if (status == RUN_TOO_LONG) {
        PyErr_Format(PyExc_RuntimeError, "a playout did not end within %d actions", MAX_ACTIONS);
    }
    else {
        PyErr_SetString(PyExc_RuntimeError,
                        "the player to move has no legal move (an opening without an 11 in his hand)");
    }
    return -1;
}

/* ---- the hidden cards ------------------------------------------------ */

typedef struct {
    int players;
    int seat;
    int pile_count;
    int n_cards;
    mask_t hand;
    int capacity[MAX_PLAYERS]; /* hand sizes */
    int8_t cards[DECK];        /* the unknown cards, increasing */
    int has_weights[MAX_PLAYERS];
    double weights[MAX_PLAYERS][DECK];
    /* The places a card may go: slots 0..nd-1 the other seats in seat order, slot nd the pile. */
    int nd;
    int dests[MAX_PLAYERS];
    uint8_t allowed[DECK];  /* per card: the bit set of the slots of weight > 0 */
    int restricted;         /* some card has weight 0 somewhere */
    uint64_t contains[MAX_PLAYERS];       /* per slot: the sets of slots holding it */
    uint64_t supersets[1 << MAX_PLAYERS]; /* per set m of slots: the sets holding all of m */
} hidden_t;

/* The slots, the allowed sets and the look-ahead tables (after the weights are known). */
static void hidden_prepare(hidden_t *h) {
    h->nd = 0;
    for (int s = 0; s < h->players; s++) {
        if (s != h->seat) {
            h->dests[h->nd++] = s;
        }
    }
    int slots = h->nd + 1, subsets = 1 << slots;
    uint8_t full = (uint8_t)(subsets - 1);
    h->restricted = 0;
    for (int i = 0; i < h->n_cards; i++) {
        int card = h->cards[i];
        uint8_t allowed = (uint8_t)(1 << h->nd);
        for (int k = 0; k < h->nd; k++) {
            int s = h->dests[k];
            if (!h->has_weights[s] || h->weights[s][card] > 0.0) {
                allowed |= (uint8_t)(1 << k);
            }
        }
        h->allowed[card] = allowed;
        h->restricted |= allowed != full;
    }
    for (int k = 0; k < slots; k++) {
        h->contains[k] = 0;
        for (int sub = 0; sub < subsets; sub++) {
            h->contains[k] |= (uint64_t)(sub >> k & 1) << sub;
        }
    }
    for (int m = 0; h->restricted && m < subsets; m++) {
        h->supersets[m] = 0;
        for (int sub = 0; sub < subsets; sub++) {
            h->supersets[m] |= (uint64_t)((sub & m) == m) << sub;
        }
    }
}

/* One determinization (steps 1-3 of the order in elferraus/rollout/) into g's other hands and pile. */
static void deal_hidden(const hidden_t *h, splitmix_t *rng, sim_t *g) {
    int8_t cards[DECK];
    int n = h->n_cards, nd = h->nd, slots = nd + 1, subsets = 1 << slots;
    memcpy(cards, h->cards, (size_t)n);
    shuffle_cards(cards, n, rng);
    int left[MAX_PLAYERS], slack[1 << MAX_PLAYERS];
    const double *rows[MAX_PLAYERS];
    double probs[MAX_PLAYERS];
    for (int k = 0; k < nd; k++) {
        int s = h->dests[k];
        left[k] = h->capacity[s];
        rows[k] = h->has_weights[s] ? h->weights[s] : NULL;
        g->hands[s].lo = g->hands[s].hi = 0;
    }
    left[nd] = h->pile_count;
    int restricted = h->restricted;
    if (restricted) { /* per set S of slots: places left in S minus the cards that may only go to S (Hall) */
        int within[1 << MAX_PLAYERS] = {0};
        for (int i = 0; i < n; i++) {
            within[h->allowed[h->cards[i]]]++;
        }
        for (int k = 0; k < slots; k++) {
            for (int sub = 0; sub < subsets; sub++) {
                if (sub >> k & 1) {
                    within[sub] += within[sub ^ (1 << k)];
                }
            }
        }
        for (int sub = 0; sub < subsets; sub++) {
            slack[sub] = -within[sub];
            for (int k = 0; k < slots; k++) {
                slack[sub] += (sub >> k & 1) ? left[k] : 0;
            }
        }
    }
    int pile_n = 0;
    for (int i = 0; i < n; i++) {
        int card = cards[i];
        for (int k = 0; k < nd; k++) {
            int r = left[k];
            probs[k] = r ? (rows[k] ? (double)r * rows[k][card] : (double)r) : 0.0;
        }
        probs[nd] = (double)left[nd];
        if (restricted) {
            uint64_t tight = 0;
            int feasible = 1;
            for (int sub = 0; sub < subsets; sub++) {
                if (slack[sub] < 0) {
                    feasible = 0;
                    break;
                }
                tight |= (uint64_t)(slack[sub] == 0) << sub;
            }
            uint64_t blocked = feasible ? tight & ~h->supersets[h->allowed[card]] : 0;
            for (int k = 0; blocked && k < slots; k++) {
                if (blocked & h->contains[k]) {
                    probs[k] = 0.0; /* the rest could not be placed within the weights */
                }
            }
        }
        double total = 0.0, p;
        for (int k = 0; k < slots; k++) {
            total += probs[k];
        }
        if (total == 0.0) { /* every place left has weight 0 for this card: by places left */
            for (int k = 0; k < nd; k++) {
                p = (double)left[k];
                probs[k] = p;
                total += p;
            }
        }
        double u = sm_random(rng) * total, acc = 0.0;
        int chosen = -1;
        for (int k = 0; k < slots; k++) {
            p = probs[k];
            acc += p;
            if (p > 0.0) {
                chosen = k;
                if (u < acc) {
                    break;
                }
            }
        }
        /* (no break: u rounded up to total, and chosen is the last slot of weight > 0) */
        if (chosen < 0) { /* cannot happen: places are left, so some weight is > 0 */
            chosen = nd;
        }
        left[chosen]--;
        if (chosen == nd) {
            g->pile[pile_n++] = (int8_t)card;
        }
        else {
            int s = h->dests[chosen];
            g->hands[s] = mask_or(g->hands[s], BITS[card]);
        }
        if (restricted) {
            int allowed = h->allowed[card];
            for (int sub = 0; sub < subsets; sub++) {
                slack[sub] += ((sub & allowed) == allowed) - (sub >> chosen & 1);
            }
        }
    }
    shuffle_cards(g->pile, pile_n, rng);
    g->pile_len = pile_n;
    g->pile_pos = 0;
}

/* ---- arguments (the same checks and messages as elferraus/rollout/) ----------- */

/* An int argument (anything with __index__), clamped to the long long range. */
static int ll_arg(PyObject *value, const char *name, long long *out) {
    PyObject *index = PyNumber_Index(value);
    if (!index) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name, Py_TYPE(value)->tp_name);
        }
        return -1;
    }
    int overflow;
    long long number = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (number == -1 && PyErr_Occurred()) {
        return -1;
    }
    *out = overflow > 0 ? LLONG_MAX : overflow < 0 ? LLONG_MIN : number;
    return 0;
}

static int mask_arg(PyObject *value, const char *name, mask_t *out) {
    PyObject *index = PyNumber_Index(value);
    if (!index) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name, Py_TYPE(value)->tp_name);
        }
        return -1;
    }
    int result = mask_from_pylong(index, out, name);
    Py_DECREF(index);
    return result;
}

static int seed_arg(PyObject *value, uint64_t *out) {
    PyObject *index = PyNumber_Index(value);
    if (!index) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Format(PyExc_TypeError, "seed must be an int, not %.100s", Py_TYPE(value)->tp_name);
        }
        return -1;
    }
    uint64_t seed = PyLong_AsUnsignedLongLongMask(index); /* seed mod 2**64 */
    Py_DECREF(index);
    if (seed == (uint64_t)-1 && PyErr_Occurred()) {
        return -1;
    }
    *out = seed;
    return 0;
}

/* A new reference to a fast sequence of ints, or NULL (TypeError for an int, str or bytes). */
static PyObject *int_seq(PyObject *value, const char *name) {
    if (PyLong_Check(value) || PyUnicode_Check(value) || PyBytes_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of ints, not %.100s", name, Py_TYPE(value)->tp_name);
        return NULL;
    }
    return PySequence_Fast(value, name);
}

/* Items of a sequence of ints into out[0..cap); returns the length or -1. */
static Py_ssize_t int_items(PyObject *value, const char *name, const char *item_name, long long *out,
                            Py_ssize_t cap) {
    PyObject *seq = int_seq(value, name);
    if (!seq) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        long long number;
        if (ll_arg(PySequence_Fast_GET_ITEM(seq, i), item_name, &number) < 0) {
            Py_DECREF(seq);
            return -1;
        }
        if (i < cap) {
            out[i] = number;
        }
    }
    Py_DECREF(seq);
    return n;
}

static int rules_args(PyObject *colors_arg, PyObject *max_draws_arg, int *colors, int *max_draws) {
    long long value;
    if (ll_arg(colors_arg, "colors", &value) < 0) {
        return -1;
    }
    if (value < 1 || value > MAX_COLORS) {
        PyErr_Format(PyExc_ValueError, "colors must be 1-4, not %lld", value);
        return -1;
    }
    *colors = (int)value;
    if (ll_arg(max_draws_arg, "max_draws", &value) < 0) {
        return -1;
    }
    if (value < 0) {
        PyErr_Format(PyExc_ValueError, "max_draws must not be negative, not %lld", value);
        return -1;
    }
    *max_draws = value > INT_MAX ? INT_MAX : (int)value;
    return 0;
}

static int policies_arg(PyObject *value, int players, int8_t *out) {
    long long items[MAX_PLAYERS];
    Py_ssize_t n = int_items(value, "policies", "an item of policies", items, MAX_PLAYERS);
    if (n < 0) {
        return -1;
    }
    if (n != players) {
        PyErr_Format(PyExc_ValueError, "policies must have one entry per seat (%d), not %zd", players, n);
        return -1;
    }
    for (int i = 0; i < players; i++) {
        if (items[i] < POLICY_RANDOM || items[i] > POLICY_MEDIUM) {
            PyErr_Format(PyExc_ValueError, "a policy must be 0 (random), 1 (greedy) or 2 (medium), not %lld",
                         items[i]);
            return -1;
        }
        out[i] = (int8_t)items[i];
    }
    return 0;
}

static int weights_arg(PyObject *value, hidden_t *h) {
    if (value == Py_None || PyLong_Check(value) || PyUnicode_Check(value) || PyBytes_Check(value)) {
        PyErr_Format(PyExc_TypeError, "weights must be a sequence with one entry per seat, not %.100s",
                     Py_TYPE(value)->tp_name);
        return -1;
    }
    PyObject *seq = PySequence_Fast(value, "weights must be a sequence with one entry per seat");
    if (!seq) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n != h->players) {
        PyErr_Format(PyExc_ValueError, "weights must have one entry per seat (%d), not %zd", h->players, n);
        Py_DECREF(seq);
        return -1;
    }
    for (int s = 0; s < h->players; s++) {
        PyObject *entry = PySequence_Fast_GET_ITEM(seq, s);
        h->has_weights[s] = 0;
        if (entry == Py_None || s == h->seat) {
            continue;
        }
        if (PyLong_Check(entry) || PyFloat_Check(entry) || PyUnicode_Check(entry) || PyBytes_Check(entry)) {
            PyErr_Format(PyExc_TypeError, "weights[%d] must be None or a sequence of 80 floats, not %.100s", s,
                         Py_TYPE(entry)->tp_name);
            Py_DECREF(seq);
            return -1;
        }
        PyObject *row = PySequence_Fast(entry, "weights entries must be None or a sequence of 80 floats");
        if (!row) {
            Py_DECREF(seq);
            return -1;
        }
        Py_ssize_t len = PySequence_Fast_GET_SIZE(row);
        for (Py_ssize_t i = 0; i < len; i++) {
            double w = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(row, i));
            if (w == -1.0 && PyErr_Occurred()) {
                Py_DECREF(row);
                Py_DECREF(seq);
                return -1;
            }
            if (i < DECK) {
                h->weights[s][i] = w;
            }
        }
        Py_DECREF(row);
        if (len != DECK) {
            PyErr_Format(PyExc_ValueError, "weights[%d] must have 80 entries (one per card), not %zd", s, len);
            Py_DECREF(seq);
            return -1;
        }
        for (int i = 0; i < DECK; i++) {
            double w = h->weights[s][i];
            if (!(w >= 0.0 && w <= DBL_MAX)) {
                PyObject *shown = PyFloat_FromDouble(w);
                if (shown) {
                    PyErr_Format(PyExc_ValueError, "weights[%d] must be finite and >= 0, found %R", s, shown);
                    Py_DECREF(shown);
                }
                Py_DECREF(seq);
                return -1;
            }
        }
        h->has_weights[s] = 1;
    }
    Py_DECREF(seq);
    return 0;
}

/* rollout._Hidden: the hidden-card arguments; *unknown_out gets the unknown mask. */
static int hidden_args(hidden_t *h, PyObject *seat_arg, PyObject *hand_arg, PyObject *counts_arg,
                       PyObject *pile_arg, PyObject *unknown_arg, PyObject *weights_arg_, mask_t *unknown_out) {
    long long counts[MAX_PLAYERS], value;
    Py_ssize_t players = int_items(counts_arg, "counts", "an item of counts", counts, MAX_PLAYERS);
    if (players < 0) {
        return -1;
    }
    if (players < MIN_SEATS || players > MAX_PLAYERS) {
        PyErr_Format(PyExc_ValueError, "counts must have one hand size per seat, 2-6 seats, not %zd", players);
        return -1;
    }
    if (ll_arg(seat_arg, "seat", &value) < 0) {
        return -1;
    }
    if (value < 0 || value >= players) {
        PyErr_Format(PyExc_ValueError, "seat %lld is not a seat 0-%zd", value, players - 1);
        return -1;
    }
    int seat = (int)value;
    mask_t hand, unknown;
    if (mask_arg(hand_arg, "hand", &hand) < 0 || mask_arg(unknown_arg, "unknown", &unknown) < 0) {
        return -1;
    }
    if (ll_arg(pile_arg, "pile_count", &value) < 0) {
        return -1;
    }
    if (value < 0 || value > DECK) {
        PyErr_Format(PyExc_ValueError, "pile_count must be 0-80, not %lld", value);
        return -1;
    }
    int pile_count = (int)value;
    for (int s = 0; s < players; s++) {
        if (counts[s] < 0 || counts[s] > DECK) {
            PyErr_Format(PyExc_ValueError, "hand sizes must be 0-80, found %lld", counts[s]);
            return -1;
        }
    }
    if (!mask_empty(mask_and(hand, unknown))) {
        PyErr_SetString(PyExc_ValueError, "hand and unknown share cards");
        return -1;
    }
    if (counts[seat] != mask_count(hand)) {
        PyErr_Format(PyExc_ValueError, "counts[%d] is %lld but the hand holds %d cards", seat, counts[seat],
                     mask_count(hand));
        return -1;
    }
    long long hidden = pile_count;
    for (int s = 0; s < players; s++) {
        hidden += s == seat ? 0 : counts[s];
    }
    if (mask_count(unknown) != hidden) {
        PyErr_Format(PyExc_ValueError, "unknown holds %d cards but the other hands and the pile hold %lld",
                     mask_count(unknown), hidden);
        return -1;
    }
    h->players = (int)players;
    h->seat = seat;
    if (weights_arg_ && weights_arg(weights_arg_, h) < 0) {
        return -1;
    }
    if (!weights_arg_) {
        for (int s = 0; s < players; s++) {
            h->has_weights[s] = 0;
        }
    }
    h->pile_count = pile_count;
    h->hand = hand;
    for (int s = 0; s < players; s++) {
        h->capacity[s] = (int)counts[s];
    }
    h->n_cards = mask_indices(unknown, h->cards);
    hidden_prepare(h);
    *unknown_out = unknown;
    return 0;
}

/* rollout._root: the table, turn phase and rules into a root state (other hands empty). */
static int root_args(sim_t *g, const hidden_t *h, mask_t unknown, PyObject *fit_arg, PyObject *laid_arg,
                     PyObject *draws_arg, PyObject *last_arg, PyObject *colors_arg, PyObject *max_draws_arg,
                     PyObject *must_play_arg, PyObject *ends_arg) {
    int colors, max_draws;
    long long laid, draws, last;
    mask_t fit;
    if (rules_args(colors_arg, max_draws_arg, &colors, &max_draws) < 0 || mask_arg(fit_arg, "fit", &fit) < 0 ||
        ll_arg(laid_arg, "laid", &laid) < 0 || ll_arg(draws_arg, "draws", &draws) < 0 ||
        ll_arg(last_arg, "last_drawn", &last) < 0) {
        return -1;
    }
    if (laid < 0 || laid > MAX_TURN_COUNT || draws < 0 || draws > MAX_TURN_COUNT) {
        PyErr_Format(PyExc_ValueError, "laid and draws must be 0-%d, not %lld and %lld", MAX_TURN_COUNT, laid, draws);
        return -1;
    }
    if (last < -1 || last >= DECK) {
        PyErr_Format(PyExc_ValueError, "last_drawn must be a card index 0-79 or -1, not %lld", last);
        return -1;
    }
    if (draws && !laid && !(last >= 0 && mask_test(h->hand, (int)last))) {
        PyErr_SetString(PyExc_ValueError,
                        "cards were drawn this turn and none laid, so last_drawn must name the last one (in hand)");
        return -1;
    }
    mask_t deck = {0, 0};
    for (int i = 0; i < colors * NUMBERS; i++) {
        deck = mask_or(deck, BITS[i]);
    }
    mask_t all = mask_or(mask_or(h->hand, unknown), fit);
    if (!mask_eq(mask_and(all, deck), all)) {
        PyErr_Format(PyExc_ValueError, "hand, unknown and fit must hold cards of the %d-colour deck only", colors);
        return -1;
    }
    mask_t held = mask_or(h->hand, unknown);
    mask_t table_fit = {fit.lo & ~held.lo, fit.hi & ~held.hi};
    if (!mask_empty(table_fit)) {
        PyErr_SetString(PyExc_ValueError, "fit names a card that is on the table");
        return -1;
    }
    for (int s = 0; s < h->players; s++) {
        if (!h->capacity[s]) {
            PyErr_Format(PyExc_ValueError, "the game is over: seat %d holds no cards", s);
            return -1;
        }
    }
    int must_play = PyObject_IsTrue(must_play_arg);
    if (must_play < 0) {
        return -1;
    }
    int ends_after_draw = PyObject_IsTrue(ends_arg);
    if (ends_after_draw < 0) {
        return -1;
    }
    memset(g, 0, sizeof(*g));
    g->players = h->players;
    g->hands[h->seat] = h->hand;
    for (int s = 0; s < h->players; s++) {
        g->counts[s] = h->capacity[s];
    }
    g->pile_len = h->pile_count;
    g->pile_pos = 0;
    g->elevens = elevens_mask(colors);
    g->fit = fit;
    g->to_move = h->seat;
    g->laid = (int)laid;
    g->draws = (int)draws;
    g->last_drawn = (int)last;
    g->winner = -1;
    g->max_draws = max_draws;
    g->must_play = must_play;
    g->ends_after_draw = ends_after_draw;
    return 0;
}

/* "card 12", "draw (-1)", "pass (-2)" as in rollout._move_name */
static void move_name(long long code, char *buf, size_t size) {
    if (code == DRAW_CODE) {
        snprintf(buf, size, "draw (-1)");
    }
    else if (code == PASS_CODE) {
        snprintf(buf, size, "pass (-2)");
    }
    else {
        snprintf(buf, size, "card %lld", code);
    }
}

static int check_candidates(const sim_t *root, const long long *candidates, Py_ssize_t n) {
    int8_t legal[MAX_LEGAL + 1];
    int n_legal = sim_legal(root, legal);
    for (Py_ssize_t i = 0; i < n; i++) {
        int ok = 0;
        for (int k = 0; k < n_legal; k++) {
            ok |= legal[k] == candidates[i];
        }
        if (ok) {
            continue;
        }
        char names[MAX_LEGAL * 12 + 8], one[32];
        size_t used = 0;
        names[0] = '\0';
        for (int k = 0; k < n_legal; k++) {
            move_name(legal[k], one, sizeof(one));
            used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", k ? ", " : "", one);
        }
        if (!n_legal) {
            snprintf(names, sizeof(names), "none");
        }
        move_name(candidates[i], one, sizeof(one));
        PyErr_Format(PyExc_ValueError, "candidate %s is not legal here (legal: %s)", one, names);
        return -1;
    }
    return 0;
}

static double monotonic_seconds(void) {
#ifdef _WIN32
    LARGE_INTEGER frequency, counter;
    QueryPerformanceFrequency(&frequency);
    QueryPerformanceCounter(&counter);
    return (double)counter.QuadPart / (double)frequency.QuadPart;
#else
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
#endif
}

/* ---- search ---------------------------------------------------------- */

typedef struct {
    const hidden_t *hidden;
    sim_t root;
    int8_t policies[MAX_PLAYERS];
    const int8_t *candidates;
    Py_ssize_t n_candidates;
    long long samples;
    double time_limit;
    double start;
    uint64_t seed;
    long long *wins;      /* per candidate */
    long long *penalties; /* per candidate */
    long long *step;      /* per candidate: this determinization's (won, penalty) */
    long long done;
} search_job_t;

static int search_run(search_job_t *job) {
    splitmix_t rng = {job->seed};
    const hidden_t *h = job->hidden;
    int seat = h->seat;
    while (job->done < job->samples) {
        deal_hidden(h, &rng, &job->root);
        uint64_t playout_seed = sm_next(&rng);
        for (Py_ssize_t k = 0; k < job->n_candidates; k++) {
            sim_t g = job->root;
            splitmix_t playout_rng = {playout_seed};
            long long actions = 0;
            sim_push(&g, job->candidates[k]);
            int status = sim_run(&g, job->policies, &playout_rng, &actions, NULL);
            if (status != RUN_OK) {
                return status;
            }
            int won = g.winner == seat;
            job->step[2 * k] = won;
            job->step[2 * k + 1] = won ? 0 : hand_penalty(g.hands[seat]);
        }
        int late = job->time_limit > 0.0 && monotonic_seconds() - job->start > job->time_limit;
        if (late && job->done) {
            break; /* finished after the limit: not counted */
        }
        for (Py_ssize_t k = 0; k < job->n_candidates; k++) {
            job->wins[k] += job->step[2 * k];
            job->penalties[k] += job->step[2 * k + 1];
        }
        job->done++;
        if (late) {
            break;
        }
    }
    return RUN_OK;
}

/* Refuse positional arguments: every argument of these functions is keyword-only. */
static int keywords_only(PyObject *args, const char *function) {
    if (PyTuple_GET_SIZE(args)) {
        PyErr_Format(PyExc_TypeError, "%s() takes keyword arguments only", function);
        return -1;
    }
    return 0;
}

static PyObject *core_search(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"seat",       "hand",     "counts",    "pile_count",      "unknown",    "weights",
                             "fit",        "laid",     "draws",     "last_drawn",      "colors",     "max_draws",
                             "must_play",  "ends_after_draw", "candidates", "policies", "samples", "seed",
                             "time_limit", NULL};
    PyObject *seat, *hand, *counts, *pile_count, *unknown_arg, *weights, *fit, *laid, *draws, *last_drawn, *colors,
        *max_draws, *must_play, *ends_after_draw, *candidates_arg, *policies, *samples_arg, *seed_obj;
    double time_limit = 0.0;
    double start = monotonic_seconds();
    if (keywords_only(args, "search") < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOOOOOOOOOOOOO|d:search", kwlist, &seat, &hand, &counts,
                                     &pile_count, &unknown_arg, &weights, &fit, &laid, &draws, &last_drawn, &colors,
                                     &max_draws, &must_play, &ends_after_draw, &candidates_arg, &policies,
                                     &samples_arg, &seed_obj, &time_limit)) {
        return NULL;
    }
    hidden_t *hidden = PyMem_Malloc(sizeof(hidden_t));
    if (!hidden) {
        return PyErr_NoMemory();
    }
    search_job_t job;
    memset(&job, 0, sizeof(job));
    mask_t unknown;
    long long *codes = NULL, *numbers = NULL;
    int8_t *candidates = NULL;
    PyObject *result = NULL, *seq = NULL, *list = NULL;
    Py_ssize_t n = 0;
    int status;
    if (hidden_args(hidden, seat, hand, counts, pile_count, unknown_arg, weights, &unknown) < 0 ||
        root_args(&job.root, hidden, unknown, fit, laid, draws, last_drawn, colors, max_draws, must_play,
                  ends_after_draw) < 0 ||
        policies_arg(policies, hidden->players, job.policies) < 0) {
        goto done;
    }
    if (!(seq = int_seq(candidates_arg, "candidates"))) {
        goto done;
    }
    n = PySequence_Fast_GET_SIZE(seq);
    /* one block: codes (n), wins (n), penalties (n), step (2n); and the candidates as bytes */
    numbers = PyMem_Calloc((size_t)(5 * n + 1), sizeof(long long));
    candidates = PyMem_Malloc((size_t)n + 1);
    if (!numbers || !candidates) {
        PyErr_NoMemory();
        goto done;
    }
    codes = numbers;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (ll_arg(PySequence_Fast_GET_ITEM(seq, k), "an item of candidates", &codes[k]) < 0) {
            goto done;
        }
    }
    if (check_candidates(&job.root, codes, n) < 0) {
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        candidates[k] = (int8_t)codes[k];
    }
    if (ll_arg(samples_arg, "samples", &job.samples) < 0) {
        goto done;
    }
    if (job.samples < 1) {
        PyErr_Format(PyExc_ValueError, "samples must be at least 1, not %lld", job.samples);
        goto done;
    }
    if (seed_arg(seed_obj, &job.seed) < 0) {
        goto done;
    }
    job.hidden = hidden;
    job.candidates = candidates;
    job.n_candidates = n;
    job.time_limit = time_limit;
    job.start = start;
    job.wins = numbers + n;
    job.penalties = numbers + 2 * n;
    job.step = numbers + 3 * n;
    Py_BEGIN_ALLOW_THREADS
    status = search_run(&job);
    Py_END_ALLOW_THREADS
    if (status != RUN_OK) {
        run_error(status);
        goto done;
    }
    if (!(list = PyList_New(n))) {
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = Py_BuildValue("(LLL)", job.wins[k], job.done, job.penalties[k]);
        if (!item) {
            goto done;
        }
        PyList_SET_ITEM(list, k, item);
    }
    result = Py_BuildValue("(OL)", list, job.done);
done:
    Py_XDECREF(list);
    Py_XDECREF(seq);
    PyMem_Free(hidden);
    PyMem_Free(numbers);
    PyMem_Free(candidates);
    return result;
}

static PyObject *core_sample_deals(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"seat", "hand", "counts", "pile_count", "unknown", "weights", "samples", "seed", NULL};
    PyObject *seat, *hand, *counts, *pile_count, *unknown_arg, *weights, *samples_arg, *seed_obj;
    if (keywords_only(args, "sample_deals") < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOOO:sample_deals", kwlist, &seat, &hand, &counts,
                                     &pile_count, &unknown_arg, &weights, &samples_arg, &seed_obj)) {
        return NULL;
    }
    hidden_t *hidden = PyMem_Malloc(sizeof(hidden_t));
    if (!hidden) {
        return PyErr_NoMemory();
    }
    PyObject *result = NULL, *list = NULL;
    mask_t unknown;
    long long samples;
    uint64_t seed;
    splitmix_t rng;
    sim_t g;
    if (hidden_args(hidden, seat, hand, counts, pile_count, unknown_arg, weights, &unknown) < 0 ||
        ll_arg(samples_arg, "samples", &samples) < 0) {
        goto done;
    }
    if (samples < 0) {
        PyErr_Format(PyExc_ValueError, "samples must not be negative, not %lld", samples);
        goto done;
    }
    if (seed_arg(seed_obj, &seed) < 0) {
        goto done;
    }
    if (!(list = PyList_New(0))) {
        goto done;
    }
    rng.state = seed;
    memset(&g, 0, sizeof(g));
    for (long long i = 0; i < samples; i++) {
        deal_hidden(hidden, &rng, &g);
        g.hands[hidden->seat] = hidden->hand;
        uint64_t playout_seed = sm_next(&rng);
        PyObject *hands = PyTuple_New(hidden->players), *pile = PyTuple_New(g.pile_len), *item = NULL;
        int ok = hands && pile;
        for (int s = 0; ok && s < hidden->players; s++) {
            PyObject *mask = mask_to_pylong(g.hands[s]);
            ok = mask != NULL;
            if (ok) {
                PyTuple_SET_ITEM(hands, s, mask);
            }
        }
        for (int k = 0; ok && k < g.pile_len; k++) {
            PyObject *card = PyLong_FromLong(g.pile[k]);
            ok = card != NULL;
            if (ok) {
                PyTuple_SET_ITEM(pile, k, card);
            }
        }
        if (ok) {
            item = Py_BuildValue("(OOK)", hands, pile, (unsigned long long)playout_seed);
        }
        Py_XDECREF(hands);
        Py_XDECREF(pile);
        if (!item || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(list);
            goto done;
        }
        Py_DECREF(item);
    }
    result = list;
done:
    PyMem_Free(hidden);
    return result;
}

static PyObject *core_playout(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"hands",     "pile",      "turn",           "fit",      "laid",
                             "draws",     "last_drawn", "colors",        "max_draws", "must_play",
                             "ends_after_draw", "policies", "seed",      NULL};
    PyObject *hands_arg, *pile_arg, *turn_arg, *fit, *laid, *draws, *last_drawn, *colors_arg, *max_draws_arg,
        *must_play, *ends_after_draw, *policies, *seed_obj;
    if (keywords_only(args, "playout") < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOOOOOOOO:playout", kwlist, &hands_arg, &pile_arg, &turn_arg,
                                     &fit, &laid, &draws, &last_drawn, &colors_arg, &max_draws_arg, &must_play,
                                     &ends_after_draw, &policies, &seed_obj)) {
        return NULL;
    }
    int colors, max_draws;
    if (rules_args(colors_arg, max_draws_arg, &colors, &max_draws) < 0) {
        return NULL;
    }
    PyObject *seq = int_seq(hands_arg, "hands");
    if (!seq) {
        return NULL;
    }
    Py_ssize_t players = PySequence_Fast_GET_SIZE(seq);
    mask_t hands[MAX_PLAYERS];
    for (Py_ssize_t s = 0; s < players; s++) {
        mask_t mask;
        if (mask_arg(PySequence_Fast_GET_ITEM(seq, s), "a hand", &mask) < 0) {
            Py_DECREF(seq);
            return NULL;
        }
        if (s < MAX_PLAYERS) {
            hands[s] = mask;
        }
    }
    Py_DECREF(seq);
    if (players < MIN_SEATS || players > MAX_PLAYERS) {
        PyErr_Format(PyExc_ValueError, "hands must hold 2-6 hands, not %zd", players);
        return NULL;
    }
    long long pile_items[DECK + 1];
    Py_ssize_t pile_len = int_items(pile_arg, "pile", "an item of pile", pile_items, DECK + 1);
    if (pile_len < 0) {
        return NULL;
    }
    mask_t seen = {0, 0}, all = {0, 0};
    int clash = pile_len > DECK;
    for (Py_ssize_t i = 0; i < pile_len && i <= DECK; i++) {
        if (pile_items[i] < 0 || pile_items[i] >= DECK) {
            PyErr_Format(PyExc_ValueError, "pile card %lld is not a card index 0-79", pile_items[i]);
            return NULL;
        }
    }
    for (Py_ssize_t i = 0; !clash && i < pile_len; i++) {
        clash |= mask_test(seen, (int)pile_items[i]);
        seen = mask_or(seen, BITS[pile_items[i]]);
    }
    all = seen;
    for (int s = 0; s < players; s++) {
        clash |= !mask_empty(mask_and(all, hands[s]));
        all = mask_or(all, hands[s]);
    }
    if (clash) {
        PyErr_SetString(PyExc_ValueError, "a card is in two places");
        return NULL;
    }
    long long turn;
    if (ll_arg(turn_arg, "turn", &turn) < 0) {
        return NULL;
    }
    if (turn < 0 || turn >= players) {
        PyErr_Format(PyExc_ValueError, "turn %lld is not a seat 0-%zd", turn, players - 1);
        return NULL;
    }
    hidden_t *hidden = PyMem_Malloc(sizeof(hidden_t));
    if (!hidden) {
        return PyErr_NoMemory();
    }
    hidden->players = (int)players;
    hidden->seat = (int)turn;
    hidden->pile_count = (int)pile_len;
    hidden->hand = hands[turn];
    for (int s = 0; s < players; s++) {
        hidden->capacity[s] = mask_count(hands[s]);
        hidden->has_weights[s] = 0;
    }
    mask_t unknown = {all.lo & ~hands[turn].lo, all.hi & ~hands[turn].hi};
    hidden->n_cards = mask_indices(unknown, hidden->cards);
    hidden_prepare(hidden);
    sim_t g;
    int8_t policy_ids[MAX_PLAYERS];
    uint64_t seed;
    PyObject *result = NULL;
    if (root_args(&g, hidden, unknown, fit, laid, draws, last_drawn, colors_arg, max_draws_arg, must_play,
                  ends_after_draw) < 0 ||
        policies_arg(policies, (int)players, policy_ids) < 0 || seed_arg(seed_obj, &seed) < 0) {
        PyMem_Free(hidden);
        return NULL;
    }
    PyMem_Free(hidden);
    memcpy(g.hands, hands, sizeof(mask_t) * (size_t)players);
    for (Py_ssize_t i = 0; i < pile_len; i++) {
        g.pile[i] = (int8_t)pile_items[i];
    }
    g.pile_len = (int)pile_len;
    int8_t *trace = PyMem_Malloc(MAX_ACTIONS);
    if (!trace) {
        return PyErr_NoMemory();
    }
    splitmix_t rng = {seed};
    long long actions = 0;
    int status = sim_run(&g, policy_ids, &rng, &actions, trace);
    if (status != RUN_OK) {
        run_error(status);
    }
    else if ((result = PyList_New((Py_ssize_t)actions)) != NULL) {
        for (long long i = 0; i < actions; i++) {
            PyObject *code = PyLong_FromLong(trace[i]);
            if (!code) {
                Py_CLEAR(result);
                break;
            }
            PyList_SET_ITEM(result, (Py_ssize_t)i, code);
        }
    }
    PyMem_Free(trace);
    return result;
}

/* Deal classic games from the 80 cards and play them out (see rollout.random_playouts). */
static int playouts_run(long long games, int players, int policy, uint64_t seed, long long *actions) {
    splitmix_t rng = {seed};
    int size = DEAL_SIZES[players], dealt = size * players;
    int8_t policies[MAX_PLAYERS];
    for (int s = 0; s < players; s++) {
        policies[s] = (int8_t)policy;
    }
    mask_t elevens = elevens_mask(MAX_COLORS);
    int8_t eleven_cards[MAX_COLORS];
    int n_elevens = mask_indices(elevens, eleven_cards);
    for (long long game = 0; game < games; game++) {
        sim_t g;
        int8_t deck[DECK];
        int any;
        do {
            for (int i = 0; i < DECK; i++) {
                deck[i] = (int8_t)i;
            }
            shuffle_cards(deck, DECK, &rng);
            for (int s = 0; s < players; s++) {
                mask_t hand = {0, 0};
                for (int i = s * size; i < (s + 1) * size; i++) {
                    hand = mask_or(hand, BITS[deck[i]]);
                }
                g.hands[s] = hand;
            }
            any = 0;
            for (int s = 0; s < players; s++) {
                any |= !mask_empty(mask_and(g.hands[s], elevens));
            }
        } while (!any);
        g.players = players;
        for (int s = 0; s < players; s++) {
            g.counts[s] = size;
        }
        g.pile_len = DECK - dealt;
        memcpy(g.pile, deck + dealt, (size_t)(DECK - dealt));
        g.pile_pos = 0;
        g.elevens = elevens;
        g.fit = elevens;
        g.to_move = 0;
        for (int k = 0, found = 0; k < n_elevens && !found; k++) {
            for (int s = 0; s < players && !found; s++) {
                if (mask_test(g.hands[s], eleven_cards[k])) {
                    g.to_move = s;
                    found = 1;
                }
            }
        }
        g.laid = g.draws = 0;
        g.last_drawn = -1;
        g.winner = -1;
        g.max_draws = 3;
        g.must_play = 0;
        g.ends_after_draw = 1;
        int status = sim_run(&g, policies, &rng, actions, NULL);
        if (status != RUN_OK) {
            return status;
        }
    }
    return RUN_OK;
}

static PyObject *core_random_playouts(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"games", "players", "seed", "policy", NULL};
    PyObject *games_arg, *players_arg, *seed_obj, *policy_arg = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|O:random_playouts", kwlist, &games_arg, &players_arg,
                                     &seed_obj, &policy_arg)) {
        return NULL;
    }
    long long games, players, policy = POLICY_RANDOM;
    uint64_t seed;
    if (ll_arg(games_arg, "games", &games) < 0 || ll_arg(players_arg, "players", &players) < 0) {
        return NULL;
    }
    if (games < 0) {
        PyErr_Format(PyExc_ValueError, "games must not be negative, not %lld", games);
        return NULL;
    }
    if (players < MIN_SEATS || players > MAX_PLAYERS) {
        PyErr_Format(PyExc_ValueError, "players must be 2-6, not %lld", players);
        return NULL;
    }
    if (policy_arg && ll_arg(policy_arg, "an item of policies", &policy) < 0) {
        return NULL;
    }
    if (policy < POLICY_RANDOM || policy > POLICY_MEDIUM) {
        PyErr_Format(PyExc_ValueError, "a policy must be 0 (random), 1 (greedy) or 2 (medium), not %lld", policy);
        return NULL;
    }
    if (seed_arg(seed_obj, &seed) < 0) {
        return NULL;
    }
    long long actions = 0;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = playouts_run(games, (int)players, (int)policy, seed, &actions);
    Py_END_ALLOW_THREADS
    if (status != RUN_OK) {
        run_error(status);
        return NULL;
    }
    return Py_BuildValue("(LL)", games, actions);
}

/* ---------------------------------------------------------------------- */
/* The module                                                             */

static PyMethodDef core_functions[] = {
    {"key_order", core_key_order, METH_O,
     "key_order(data, /)\n--\n\n"
     "The indices of the little-endian unsigned 64-bit keys packed in ``data``, in\n"
     "increasing key order (equal keys by index): exactly\n"
     "``sorted(range(n), key=struct.unpack(f\"<{n}Q\", data).__getitem__)``."},
    {"mask_of", core_mask_of, METH_O,
     "mask_of(indices, /)\n--\n\n"
     "The bitmask of the card indices 0-79 in ``indices``: bit ``i`` set for each ``i``."},
    {"search", (PyCFunction)(void (*)(void))core_search, METH_VARARGS | METH_KEYWORDS,
     "search(*, seat, hand, counts, pile_count, unknown, weights, fit, laid, draws, last_drawn, colors,\n"
     "       max_draws, must_play, ends_after_draw, candidates, policies, samples, seed, time_limit=0.0)\n"
     "--\n\n"
     "Evaluate candidate moves over sampled hidden cards: ``([(wins, playouts, penalty_sum)\n"
     "per candidate], determinizations)``. Exactly :func:`elferraus.rollout.search`; the GIL\n"
     "is released while the playouts run."},
    {"sample_deals", (PyCFunction)(void (*)(void))core_sample_deals, METH_VARARGS | METH_KEYWORDS,
     "sample_deals(*, seat, hand, counts, pile_count, unknown, weights, samples, seed)\n--\n\n"
     "The determinizations ``search`` plays with ``seed``: ``[(hands, pile, playout_seed), ...]``.\n"
     "Exactly :func:`elferraus.rollout.sample_deals`."},
    {"playout", (PyCFunction)(void (*)(void))core_playout, METH_VARARGS | METH_KEYWORDS,
     "playout(*, hands, pile, turn, fit, laid, draws, last_drawn, colors, max_draws, must_play,\n"
     "        ends_after_draw, policies, seed)\n--\n\n"
     "The move codes of one playout from a fully known position to the end.\n"
     "Exactly :func:`elferraus.rollout.playout`."},
    {"random_playouts", (PyCFunction)(void (*)(void))core_random_playouts, METH_VARARGS | METH_KEYWORDS,
     "random_playouts(games, players, seed, policy=0)\n--\n\n"
     "Deal ``games`` classic games of ``players`` and play them out with ``policy`` for every\n"
     "seat: ``(games, actions)``. Exactly :func:`elferraus.rollout.random_playouts`; the GIL\n"
     "is released while the games run."},
    {NULL, NULL, 0, NULL},
};

static int code_of(PyObject *move, long *out) {
    PyObject *code = PyObject_GetAttrString(move, "code");
    if (!code) {
        return -1;
    }
    *out = PyLong_AsLong(code);
    Py_DECREF(code);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

static int load_moves(void) {
    PyObject *moves = PyImport_ImportModule("elferraus.moves");
    if (!moves) {
        return -1;
    }
    LAYS_TUPLE = PyObject_GetAttrString(moves, "LAYS");
    DRAW = PyObject_GetAttrString(moves, "DRAW");
    PASS = PyObject_GetAttrString(moves, "PASS");
    Py_DECREF(moves);
    if (!LAYS_TUPLE || !DRAW || !PASS) {
        return -1;
    }
    if (!PyTuple_CheckExact(LAYS_TUPLE) || PyTuple_GET_SIZE(LAYS_TUPLE) != DECK) {
        PyErr_SetString(PyExc_ImportError, "elferraus.moves.LAYS is not a tuple of 80 moves");
        return -1;
    }
    long code;
    for (int i = 0; i < DECK; i++) {
        LAYS[i] = PyTuple_GET_ITEM(LAYS_TUPLE, i);
        if (code_of(LAYS[i], &code) < 0) {
            return -1;
        }
        if (code != i) {
            PyErr_Format(PyExc_ImportError, "elferraus.moves.LAYS[%d].code is %ld", i, code);
            return -1;
        }
    }
    if (code_of(DRAW, &code) < 0) {
        return -1;
    }
    if (code != DRAW_CODE) {
        PyErr_SetString(PyExc_ImportError, "elferraus.moves.DRAW.code is not -1");
        return -1;
    }
    if (code_of(PASS, &code) < 0) {
        return -1;
    }
    if (code != PASS_CODE) {
        PyErr_SetString(PyExc_ImportError, "elferraus.moves.PASS.code is not -2");
        return -1;
    }
    ONLY_DRAW = PyTuple_Pack(1, DRAW);
    ONLY_PASS = PyTuple_Pack(1, PASS);
    if (!ONLY_DRAW || !ONLY_PASS) {
        return -1;
    }
    for (int i = 0; i < DECK; i++) {
        DRAWN_MAY[i] = PyTuple_Pack(2, LAYS[i], PASS);
        DRAWN_MUST[i] = PyTuple_Pack(1, LAYS[i]);
        if (!DRAWN_MAY[i] || !DRAWN_MUST[i]) {
            return -1;
        }
    }
    return 0;
}

static void clear_moves(void) {
    for (int i = 0; i < DECK; i++) {
        LAYS[i] = NULL;
        Py_CLEAR(DRAWN_MAY[i]);
        Py_CLEAR(DRAWN_MUST[i]);
    }
    Py_CLEAR(ONLY_DRAW);
    Py_CLEAR(ONLY_PASS);
    Py_CLEAR(LAYS_TUPLE);
    Py_CLEAR(DRAW);
    Py_CLEAR(PASS);
}

static void init_tables(void) {
    for (int i = 0; i < DECK; i++) {
        BITS[i] = mask_bit(i);
    }
    for (int i = 0; i < DECK; i++) {
        int number = i % NUMBERS + 1;
        mask_t none = {0, 0};
        if (number == ELEVEN) {
            NEWLY_FITTING[i] = mask_or(BITS[i - 1], BITS[i + 1]);
        }
        else if (number < ELEVEN) {
            NEWLY_FITTING[i] = number > 1 ? BITS[i - 1] : none;
        }
        else {
            NEWLY_FITTING[i] = number < NUMBERS ? BITS[i + 1] : none;
        }
    }
}

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "elferraus._core",
    .m_doc = "The game's hot core, compiled: CoreState, with the semantics of elferraus._pystate.PyState.",
    .m_size = -1,
    .m_methods = core_functions,
};

PyMODINIT_FUNC PyInit__core(void) {
    init_tables();
    if (!STR_ILLEGAL) {
        STR_ILLEGAL = PyUnicode_InternFromString("_illegal");
        if (!STR_ILLEGAL) {
            return NULL;
        }
    }
    if (!LAYS_TUPLE && load_moves() < 0) {
        clear_moves();
        return NULL;
    }
    if (PyType_Ready(&CoreState_Type) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&core_module);
    if (!module) {
        return NULL;
    }
    Py_INCREF(&CoreState_Type);
    if (PyModule_AddObject(module, "CoreState", (PyObject *)&CoreState_Type) < 0) {
        Py_DECREF(&CoreState_Type);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
