/* The rollout functions' argument checks: the same checks and messages as
 * elferraus/rollout/, and the root position of a search or playout built
 * from the arguments.
 */

#include "core.h"

#include <float.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

/* An int argument (anything with __index__), clamped to the long long range. */
int er_ll_arg(PyObject *value, const char *name, long long *out) {
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

int er_mask_arg(PyObject *value, const char *name, mask_t *out) {
    PyObject *index = PyNumber_Index(value);
    if (!index) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Format(PyExc_TypeError, "%s must be an int, not %.100s", name, Py_TYPE(value)->tp_name);
        }
        return -1;
    }
    int result = er_mask_from_pylong(index, out, name);
    Py_DECREF(index);
    return result;
}

int er_seed_arg(PyObject *value, uint64_t *out) {
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
PyObject *er_int_seq(PyObject *value, const char *name) {
    if (PyLong_Check(value) || PyUnicode_Check(value) || PyBytes_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be a sequence of ints, not %.100s", name, Py_TYPE(value)->tp_name);
        return NULL;
    }
    return PySequence_Fast(value, name);
}

/* Items of a sequence of ints into out[0..cap); returns the length or -1. */
Py_ssize_t er_int_items(PyObject *value, const char *name, const char *item_name, long long *out, Py_ssize_t cap) {
    PyObject *seq = er_int_seq(value, name);
    if (!seq) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        long long number;
        if (er_ll_arg(PySequence_Fast_GET_ITEM(seq, i), item_name, &number) < 0) {
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

/* The rules' two switches (must_play, after_draw == "end") as C flags, by Python truth; -1 with the error set. */
int er_switch_args(PyObject *must_play_arg, PyObject *ends_arg, int *must_play, int *ends_after_draw) {
    *must_play = PyObject_IsTrue(must_play_arg);
    if (*must_play < 0) {
        return -1;
    }
    *ends_after_draw = PyObject_IsTrue(ends_arg);
    return *ends_after_draw < 0 ? -1 : 0;
}

int er_rules_args(PyObject *colors_arg, PyObject *max_draws_arg, int *colors, int *max_draws) {
    long long value;
    if (er_ll_arg(colors_arg, "colors", &value) < 0) {
        return -1;
    }
    if (value < 1 || value > MAX_COLORS) {
        PyErr_Format(PyExc_ValueError, "colors must be 1-4, not %lld", value);
        return -1;
    }
    *colors = (int)value;
    if (er_ll_arg(max_draws_arg, "max_draws", &value) < 0) {
        return -1;
    }
    if (value < 0) {
        PyErr_Format(PyExc_ValueError, "max_draws must not be negative, not %lld", value);
        return -1;
    }
    *max_draws = value > INT_MAX ? INT_MAX : (int)value;
    return 0;
}

int er_policies_arg(PyObject *value, int players, int8_t *out) {
    long long items[MAX_PLAYERS];
    Py_ssize_t n = er_int_items(value, "policies", "an item of policies", items, MAX_PLAYERS);
    if (n < 0) {
        return -1;
    }
    if (n != players) {
        PyErr_Format(PyExc_ValueError, "policies must have one entry per seat (%d), not %zd", players, n);
        return -1;
    }
    for (int i = 0; i < players; i++) {
        if (items[i] < POLICY_RANDOM || items[i] > POLICY_LAST) {
            PyErr_Format(PyExc_ValueError, "a policy must be " POLICY_NAMES ", not %lld",
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
int er_hidden_args(hidden_t *h, PyObject *seat_arg, PyObject *hand_arg, PyObject *counts_arg, PyObject *pile_arg,
                   PyObject *unknown_arg, PyObject *weights_arg_, mask_t *unknown_out) {
    long long counts[MAX_PLAYERS], value;
    Py_ssize_t players = er_int_items(counts_arg, "counts", "an item of counts", counts, MAX_PLAYERS);
    if (players < 0) {
        return -1;
    }
    if (players < MIN_SEATS || players > MAX_PLAYERS) {
        PyErr_Format(PyExc_ValueError, "counts must have one hand size per seat, 2-6 seats, not %zd", players);
        return -1;
    }
    if (er_ll_arg(seat_arg, "seat", &value) < 0) {
        return -1;
    }
    if (value < 0 || value >= players) {
        PyErr_Format(PyExc_ValueError, "seat %lld is not a seat 0-%zd", value, players - 1);
        return -1;
    }
    int seat = (int)value;
    mask_t hand, unknown;
    if (er_mask_arg(hand_arg, "hand", &hand) < 0 || er_mask_arg(unknown_arg, "unknown", &unknown) < 0) {
        return -1;
    }
    if (er_ll_arg(pile_arg, "pile_count", &value) < 0) {
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
    er_hidden_prepare(h);
    *unknown_out = unknown;
    return 0;
}

/* rollout._root: the table, turn phase and rules into a root state (other hands empty).
   CoreState's _load_position (state.c) loads a position too, with PyState's fewer checks and
   other messages: each follows its own Python reference, so the two stay apart. */
int er_root_args(game_t *g, const hidden_t *h, mask_t unknown, PyObject *fit_arg, PyObject *laid_arg,
                 PyObject *draws_arg, PyObject *last_arg, PyObject *colors_arg, PyObject *max_draws_arg,
                 PyObject *must_play_arg, PyObject *ends_arg) {
    int colors, max_draws;
    long long laid, draws, last;
    mask_t fit;
    if (er_rules_args(colors_arg, max_draws_arg, &colors, &max_draws) < 0 || er_mask_arg(fit_arg, "fit", &fit) < 0 ||
        er_ll_arg(laid_arg, "laid", &laid) < 0 || er_ll_arg(draws_arg, "draws", &draws) < 0 ||
        er_ll_arg(last_arg, "last_drawn", &last) < 0) {
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
        deck = mask_or(deck, ER_BITS[i]);
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
    int must_play, ends_after_draw;
    if (er_switch_args(must_play_arg, ends_arg, &must_play, &ends_after_draw) < 0) {
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
    g->elevens = er_elevens_mask(colors);
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

int er_check_candidates(const game_t *root, const long long *candidates, Py_ssize_t n) {
    int8_t legal[MAX_LEGAL + 1];
    int n_legal = er_sim_legal(root, legal);
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
