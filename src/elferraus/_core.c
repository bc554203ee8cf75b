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
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
