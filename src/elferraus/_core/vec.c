/* VecGames: many games stepped in one call, for self-play (elferraus.vector.SelfPlay).
 *
 * Each game is a game_t with the rules of core.h (er_legal_codes, er_apply: the state's rules,
 * the state's opening) and what its history told every seat: the cards each seat laid, how
 * many it drew, how often it ended a turn keeping a drawn card that fit. After every step the
 * information-state tensor of the seat to move (the layout of elferraus.observation) and
 * its legal-action mask are written into buffers the caller owns (NumPy arrays), with the
 * seat to move, the rewards of a game that ended and its done flag. A game that ends is dealt
 * again at once from its own generator. No Python object is touched per game, and the GIL is
 * released while the games step.
 *
 * Dealing: game i draws from its own SplitMix64, seeded by derive(seed, 2 i) (and again by reset
 * with a seed; reset without one deals each game's next deal); its random legal
 * actions (random_actions) from derive(seed, 2 i + 1). A deal shuffles the ordered deck
 * (Fisher-Yates, sm_shuffle) and is shuffled again while no 11 lies in a hand; seat s gets
 * deck[s * size, (s + 1) * size), the rest is the pile, top first. The pure-Python twin is
 * elferraus._pyvector, with identical results (tests/envs/test_vector.py).
 */

#include "core.h"

#include <string.h>

#define ACTIONS (DECK + 2)
#define DRAW_ACTION DECK
#define PASS_ACTION (DECK + 1)
#define SEAT_BLOCK (DECK + 2)
#define HAND_SCALE 20.0f
#define PILE_SCALE 80.0f
#define DRAWS_SCALE 40.0f
#define KEPT_SCALE 10.0f

typedef struct {
    game_t game;
    mask_t table;                /* the cards laid */
    mask_t laid_by[MAX_PLAYERS]; /* per seat, the cards it laid */
    mask_t dealt[MAX_PLAYERS];   /* the hands as dealt */
    int drew[MAX_PLAYERS];
    int kept[MAX_PLAYERS];
    splitmix_t deal_rng;
    splitmix_t action_rng;
} slot_t;

typedef struct {
    PyObject_HEAD
    slot_t *slots;
    Py_ssize_t n;
    int players, colors, max_draws, must_play, ends_after_draw, hand_size;
    Py_ssize_t obs_size;
    long long finished; /* games that ended since the last reset */
    int dealt;          /* reset has dealt every game */
    Py_buffer obs, mask, seat, rewards, done;
    int held; /* how many of the buffers above are held (released in that order) */
} VecGames;

/* 8 bits as 8 floats: expand a mask into 80 floats with 10 copies. */
static float EXPAND[256][8];

static void init_expand(void) {
    for (int byte = 0; byte < 256; byte++) {
        for (int bit = 0; bit < 8; bit++) {
            EXPAND[byte][bit] = (float)(byte >> bit & 1);
        }
    }
}

static inline void write_mask(float *out, mask_t m) {
    uint64_t w = m.lo;
    for (int k = 0; k < 8; k++, w >>= 8) {
        memcpy(out + 8 * k, EXPAND[w & 255], sizeof EXPAND[0]);
    }
    memcpy(out + 64, EXPAND[m.hi & 255], sizeof EXPAND[0]);
    memcpy(out + 72, EXPAND[m.hi >> 8 & 255], sizeof EXPAND[0]);
}

static uint64_t derive(uint64_t seed, uint64_t k) {
    splitmix_t a = {k};
    splitmix_t b = {seed ^ sm_next(&a)};
    return sm_next(&b);
}

/* ---- one game -------------------------------------------------------- */

static void start_game(VecGames *v, slot_t *s, const mask_t *hands, const int8_t *pile, int pile_len) {
    er_game_start(&s->game, v->players, hands, pile, pile_len, v->colors, v->max_draws, v->must_play,
                  v->ends_after_draw);
    mask_t none = {0, 0};
    s->table = none;
    for (int seat = 0; seat < MAX_PLAYERS; seat++) {
        s->laid_by[seat] = none;
        s->dealt[seat] = seat < v->players ? hands[seat] : none;
        s->drew[seat] = 0;
        s->kept[seat] = 0;
    }
}

static void deal_game(VecGames *v, slot_t *s) {
    int deck_size = v->colors * NUMBERS, dealt = v->hand_size * v->players;
    mask_t elevens = er_elevens_mask(v->colors);
    int8_t deck[DECK];
    mask_t hands[MAX_PLAYERS];
    for (;;) {
        for (int i = 0; i < deck_size; i++) {
            deck[i] = (int8_t)i;
        }
        sm_shuffle(deck, deck_size, &s->deal_rng);
        mask_t all = {0, 0};
        for (int seat = 0; seat < v->players; seat++) {
            mask_t hand = {0, 0};
            for (int k = seat * v->hand_size; k < (seat + 1) * v->hand_size; k++) {
                hand = mask_or(hand, ER_BITS[deck[k]]);
            }
            hands[seat] = hand;
            all = mask_or(all, hand);
        }
        if (!mask_empty(mask_and(all, elevens))) {
            break;
        }
    }
    start_game(v, s, hands, deck + dealt, deck_size - dealt);
}

static inline int action_of(int code) { return code >= 0 ? code : code == DRAW_CODE ? DRAW_ACTION : PASS_ACTION; }

static inline int code_of(long long action) {
    return action < DECK ? (int)action : action == DRAW_ACTION ? DRAW_CODE : PASS_CODE;
}

/* Not actions: a game given KEEP stays as it is, one given REDEAL is dealt again (its done set, no reward). */
#define KEEP (-1)
#define REDEAL (-2)

/* True if `action` is legal in the game of `s` (or KEEP or REDEAL). */
static int is_legal(const slot_t *s, long long action) {
    if (action == KEEP || action == REDEAL) {
        return 1;
    }
    if (action < 0 || action >= ACTIONS) {
        return 0;
    }
    int8_t codes[MAX_LEGAL + 1];
    int n = er_legal_codes(&s->game, ER_OPEN_STARTER, codes);
    int code = code_of(action);
    for (int k = 0; k < n; k++) {
        if (codes[k] == code) {
            return 1;
        }
    }
    return 0;
}

/* Make the legal `code`, keeping the history: who laid what, drew, kept a drawn card that fit. */
static void apply(slot_t *s, int code) {
    game_t *g = &s->game;
    int seat = g->to_move;
    if (code >= 0) {
        s->table = mask_or(s->table, ER_BITS[code]);
        s->laid_by[seat] = mask_or(s->laid_by[seat], ER_BITS[code]);
    }
    else if (code == DRAW_CODE) {
        s->drew[seat]++;
    }
    else if (g->draws && !g->laid && g->draws < g->max_draws && g->pile_pos < g->pile_len) {
        s->kept[seat]++;
    }
    er_apply(g, code);
}

/* The seat to move's information state, legal mask and seat, into row `i` of the buffers. */
static void write_row(const VecGames *v, const slot_t *s, Py_ssize_t i) {
    const game_t *g = &s->game;
    int n = v->players, me = g->to_move;
    float *o = (float *)v->obs.buf + i * v->obs_size;
    write_mask(o, g->hands[me]);
    write_mask(o + DECK, s->table);
    write_mask(o + 2 * DECK, g->fit);
    float *rest = o + 3 * DECK;
    memset(rest, 0, (size_t)(DECK + 2 * n + 3) * sizeof(float));
    if (g->draws && !g->laid && g->last_drawn >= 0 && mask_test(g->fit, g->last_drawn)) {
        rest[g->last_drawn] = 1.0f;
    }
    float *counts = o + 4 * DECK;
    for (int slot = 0; slot < n; slot++) {
        counts[slot] = (float)g->counts[(me + slot) % n] / HAND_SCALE;
    }
    counts[n] = (float)(g->pile_len - g->pile_pos) / PILE_SCALE;
    float *to_move = counts + n + 1;
    to_move[0] = 1.0f;
    to_move[n] = g->laid ? 1.0f : 0.0f;
    to_move[n + 1] = (float)g->draws / (float)g->max_draws;
    float *block = to_move + n + 2;
    for (int slot = 0; slot < n; slot++, block += SEAT_BLOCK) {
        int seat = (me + slot) % n;
        write_mask(block, s->laid_by[seat]);
        block[DECK] = (float)s->drew[seat] / DRAWS_SCALE;
        float kept = (float)s->kept[seat] / KEPT_SCALE;
        block[DECK + 1] = kept < 1.0f ? kept : 1.0f;
    }
    char *legal = (char *)v->mask.buf + i * ACTIONS;
    memset(legal, 0, ACTIONS);
    int8_t codes[MAX_LEGAL + 1];
    int count = er_legal_codes(g, ER_OPEN_STARTER, codes);
    for (int k = 0; k < count; k++) {
        legal[action_of(codes[k])] = 1;
    }
    ((int64_t *)v->seat.buf)[i] = me;
}

static void clear_result(const VecGames *v, Py_ssize_t i) {
    memset((float *)v->rewards.buf + i * v->players, 0, (size_t)v->players * sizeof(float));
    ((char *)v->done.buf)[i] = 0;
}

/* ---- the type -------------------------------------------------------- */

static void release_buffers(VecGames *self) {
    Py_buffer *buffers[] = {&self->obs, &self->mask, &self->seat, &self->rewards, &self->done};
    for (int k = 0; k < self->held; k++) {
        PyBuffer_Release(buffers[k]);
    }
    self->held = 0;
}

static void VecGames_dealloc(VecGames *self) {
    release_buffers(self);
    PyMem_Free(self->slots);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Hold `value`'s buffer as `view`: C-contiguous, writable, `items` items of `itemsize` bytes of a format
   in `formats` (one character each). */
static int hold(VecGames *self, PyObject *value, Py_buffer *view, const char *name, Py_ssize_t items,
                Py_ssize_t itemsize, const char *formats) {
    if (PyObject_GetBuffer(value, view, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        PyErr_Format(PyExc_TypeError, "%s must be a writable C-contiguous array", name);
        return -1;
    }
    self->held++;
    const char *format = view->format ? view->format : "B";
    if (*format == '@' || *format == '=' || *format == '<') {
        format++;
    }
    if (view->itemsize != itemsize || strlen(format) != 1 || !strchr(formats, *format) ||
        view->len != items * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd items of format %s and %zd bytes each, not %zd of %s",
                     name, items, formats, itemsize, view->len / (view->itemsize ? view->itemsize : 1),
                     view->format ? view->format : "B");
        return -1;
    }
    return 0;
}

static int VecGames_init(VecGames *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"num_envs", "players",  "colors", "max_draws", "must_play", "ends_after_draw",
                             "hand_size", "seed",    "obs",    "mask",      "seat",      "rewards",
                             "done",      NULL};
    Py_ssize_t n;
    int players, colors, max_draws, must_play, ends_after_draw, hand_size;
    PyObject *seed_arg, *obs, *mask, *seat, *rewards, *done;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "$niiippiOOOOOO:VecGames", kwlist, &n, &players, &colors,
                                     &max_draws, &must_play, &ends_after_draw, &hand_size, &seed_arg, &obs, &mask,
                                     &seat, &rewards, &done)) {
        return -1;
    }
    if (self->slots) {
        PyErr_SetString(PyExc_RuntimeError, "VecGames is initialised once");
        return -1;
    }
    if (n < 1 || n > (Py_ssize_t)1 << 24) {
        PyErr_Format(PyExc_ValueError, "num_envs must be 1-%d, not %zd", 1 << 24, n);
        return -1;
    }
    if (players < MIN_SEATS || players > MAX_PLAYERS) {
        PyErr_Format(PyExc_ValueError, "players must be %d-%d, not %d", MIN_SEATS, MAX_PLAYERS, players);
        return -1;
    }
    if (colors < 1 || colors > MAX_COLORS || max_draws < 1 || max_draws > DECK) {
        PyErr_Format(PyExc_ValueError, "colors must be 1-%d and max_draws 1-%d, not %d and %d", MAX_COLORS, DECK,
                     colors, max_draws);
        return -1;
    }
    if (hand_size < 1 || hand_size * players > colors * NUMBERS) {
        PyErr_Format(PyExc_ValueError, "%d hands of %d cards do not fit a deck of %d", players, hand_size,
                     colors * NUMBERS);
        return -1;
    }
    uint64_t seed;
    if (er_seed_arg(seed_arg, &seed) < 0) {
        return -1;
    }
    self->players = players;
    self->colors = colors;
    self->max_draws = max_draws;
    self->must_play = must_play;
    self->ends_after_draw = ends_after_draw;
    self->hand_size = hand_size;
    self->obs_size = 4 * DECK + 2 * players + 3 + players * SEAT_BLOCK;
    if (hold(self, obs, &self->obs, "obs", n * self->obs_size, 4, "f") < 0 ||
        hold(self, mask, &self->mask, "mask", n * ACTIONS, 1, "?bBc") < 0 ||
        hold(self, seat, &self->seat, "seat", n, 8, "qlQL") < 0 ||
        hold(self, rewards, &self->rewards, "rewards", n * players, 4, "f") < 0 ||
        hold(self, done, &self->done, "done", n, 1, "?bBc") < 0) {
        release_buffers(self);
        return -1;
    }
    self->slots = PyMem_Calloc((size_t)n, sizeof(slot_t));
    if (!self->slots) {
        release_buffers(self);
        PyErr_NoMemory();
        return -1;
    }
    self->n = n;
    for (Py_ssize_t i = 0; i < n; i++) {
        self->slots[i].deal_rng.state = derive(seed, 2 * (uint64_t)i);
        self->slots[i].action_rng.state = derive(seed, 2 * (uint64_t)i + 1);
    }
    return 0;
}

static int ready(VecGames *self) {
    if (!self->slots) {
        PyErr_SetString(PyExc_RuntimeError, "VecGames was not initialised");
        return -1;
    }
    return 0;
}

static int dealt(VecGames *self) {
    if (ready(self) < 0) {
        return -1;
    }
    if (!self->dealt) {
        PyErr_SetString(PyExc_RuntimeError, "no game was dealt yet: call reset() first");
        return -1;
    }
    return 0;
}

static PyObject *VecGames_reset(VecGames *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"seed", NULL};
    PyObject *seed_arg = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|O:reset", kwlist, &seed_arg) || ready(self) < 0) {
        return NULL;
    }
    uint64_t seed = 0;
    if (seed_arg != Py_None && er_seed_arg(seed_arg, &seed) < 0) {
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < self->n; i++) {
        slot_t *s = &self->slots[i];
        if (seed_arg != Py_None) {
            s->deal_rng.state = derive(seed, 2 * (uint64_t)i);
            s->action_rng.state = derive(seed, 2 * (uint64_t)i + 1);
        }
        deal_game(self, s);
        write_row(self, s, i);
        clear_result(self, i);
    }
    Py_END_ALLOW_THREADS
    self->finished = 0;
    self->dealt = 1;
    Py_RETURN_NONE;
}

static PyObject *VecGames_step(VecGames *self, PyObject *arg) {
    if (dealt(self) < 0) {
        return NULL;
    }
    Py_buffer actions;
    if (PyObject_GetBuffer(arg, &actions, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        return NULL;
    }
    const char *format = actions.format ? actions.format : "B";
    if (*format == '@' || *format == '=' || *format == '<') {
        format++;
    }
    if (actions.itemsize != 8 || strlen(format) != 1 || !strchr("qlQL", *format) ||
        actions.len != self->n * 8) {
        PyErr_Format(PyExc_ValueError, "actions must be %zd 64-bit ints, one per game", self->n);
        PyBuffer_Release(&actions);
        return NULL;
    }
    const int64_t *chosen = actions.buf;
    for (Py_ssize_t i = 0; i < self->n; i++) {
        if (!is_legal(&self->slots[i], chosen[i])) {
            const game_t *g = &self->slots[i].game;
            PyErr_Format(PyExc_ValueError,
                         "game %zd: action %lld is not legal for seat %d (no game was stepped); the mask says "
                         "which are",
                         i, (long long)chosen[i], g->to_move);
            PyBuffer_Release(&actions);
            return NULL;
        }
    }
    long long finished = 0;
    Py_BEGIN_ALLOW_THREADS
    int n = self->players;
    float lose = -1.0f / (float)(n - 1);
    for (Py_ssize_t i = 0; i < self->n; i++) {
        slot_t *s = &self->slots[i];
        float *rewards = (float *)self->rewards.buf + i * n;
        char *done = (char *)self->done.buf + i;
        if (chosen[i] == KEEP || chosen[i] == REDEAL) {
            memset(rewards, 0, (size_t)n * sizeof(float));
            *done = chosen[i] == REDEAL;
            if (*done) {
                deal_game(self, s);
                write_row(self, s, i);
            }
            continue;
        }
        apply(s, code_of(chosen[i]));
        int winner = s->game.winner;
        if (winner >= 0) {
            for (int seat = 0; seat < n; seat++) {
                rewards[seat] = seat == winner ? 1.0f : lose;
            }
            *done = 1;
            finished++;
            deal_game(self, s);
        }
        else {
            memset(rewards, 0, (size_t)n * sizeof(float));
            *done = 0;
        }
        write_row(self, s, i);
    }
    Py_END_ALLOW_THREADS
    self->finished += finished;
    PyBuffer_Release(&actions);
    Py_RETURN_NONE;
}

static PyObject *VecGames_random_actions(VecGames *self, PyObject *arg) {
    if (dealt(self) < 0) {
        return NULL;
    }
    Py_buffer out;
    if (PyObject_GetBuffer(arg, &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        return NULL;
    }
    const char *format = out.format ? out.format : "B";
    if (*format == '@' || *format == '=' || *format == '<') {
        format++;
    }
    if (out.itemsize != 8 || strlen(format) != 1 || !strchr("qlQL", *format) || out.len != self->n * 8) {
        PyErr_Format(PyExc_ValueError, "out must be a writable array of %zd 64-bit ints", self->n);
        PyBuffer_Release(&out);
        return NULL;
    }
    int64_t *actions = out.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < self->n; i++) {
        slot_t *s = &self->slots[i];
        int8_t codes[MAX_LEGAL + 1];
        int count = er_legal_codes(&s->game, ER_OPEN_STARTER, codes);
        actions[i] = count == 1 ? action_of(codes[0]) : action_of(codes[sm_below(&s->action_rng, count)]);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static int index_arg(VecGames *self, Py_ssize_t index) {
    if (dealt(self) < 0) {
        return -1;
    }
    if (index < 0 || index >= self->n) {
        PyErr_Format(PyExc_IndexError, "game %zd does not exist (0-%zd)", index, self->n - 1);
        return -1;
    }
    return 0;
}

/* The pile's card codes into `pile`, each added to *seen; 1 if one is outside the deck or seen before. */
static int take_pile(const long long *codes, Py_ssize_t len, int deck, mask_t *seen, int8_t *pile) {
    for (Py_ssize_t k = 0; k < len; k++) {
        if (codes[k] < 0 || codes[k] >= deck || mask_test(*seen, (int)codes[k])) {
            return 1;
        }
        pile[k] = (int8_t)codes[k];
        *seen = mask_or(*seen, ER_BITS[pile[k]]);
    }
    return 0;
}

/* True if `seen` is exactly the first `deck` cards. */
static int whole_deck(mask_t seen, int deck) {
    mask_t full = {0, 0};
    for (int card = 0; card < deck; card++) {
        full = mask_or(full, ER_BITS[card]);
    }
    return mask_eq(seen, full);
}

static PyObject *VecGames_load(VecGames *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"index", "hands", "pile", NULL};
    Py_ssize_t index;
    PyObject *hands_arg, *pile_arg;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nOO:load", kwlist, &index, &hands_arg, &pile_arg) ||
        index_arg(self, index) < 0) {
        return NULL;
    }
    PyObject *hands_seq = er_int_seq(hands_arg, "hands");
    if (!hands_seq) {
        return NULL;
    }
    if (PySequence_Fast_GET_SIZE(hands_seq) != self->players) {
        PyErr_Format(PyExc_ValueError, "hands must hold %d masks, one per seat", self->players);
        Py_DECREF(hands_seq);
        return NULL;
    }
    mask_t hands[MAX_PLAYERS], seen = {0, 0};
    int clash = 0;
    for (int seat = 0; seat < self->players; seat++) {
        if (er_mask_arg(PySequence_Fast_GET_ITEM(hands_seq, seat), "a hand", &hands[seat]) < 0) {
            Py_DECREF(hands_seq);
            return NULL;
        }
        clash |= !mask_empty(mask_and(seen, hands[seat]));
        seen = mask_or(seen, hands[seat]);
    }
    Py_DECREF(hands_seq);
    long long pile_codes[DECK + 1];
    Py_ssize_t pile_len = er_int_items(pile_arg, "pile", "a pile card", pile_codes, DECK + 1);
    if (pile_len < 0) {
        return NULL;
    }
    int deck = self->colors * NUMBERS;
    int8_t pile[DECK];
    clash = clash || take_pile(pile_codes, pile_len, deck, &seen, pile);
    if (clash || !whole_deck(seen, deck)) {
        PyErr_Format(PyExc_ValueError, "the hands and the pile must hold each card of the %d-card deck once", deck);
        return NULL;
    }
    mask_t elevens_held = {0, 0};
    for (int seat = 0; seat < self->players; seat++) {
        elevens_held = mask_or(elevens_held, mask_and(hands[seat], er_elevens_mask(self->colors)));
    }
    if (mask_empty(elevens_held)) {
        PyErr_SetString(PyExc_ValueError, "no hand holds an 11");
        return NULL;
    }
    slot_t *s = &self->slots[index];
    start_game(self, s, hands, pile, (int)pile_len);
    write_row(self, s, index);
    clear_result(self, index);
    Py_RETURN_NONE;
}

/* The masks of a sequence of `count` ints into `out`; -1 with an exception. */
static int mask_items(PyObject *value, const char *name, mask_t *out, int count) {
    PyObject *seq = er_int_seq(value, name);
    if (!seq) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(seq) != count) {
        PyErr_Format(PyExc_ValueError, "%s must hold %d masks, one per seat", name, count);
        Py_DECREF(seq);
        return -1;
    }
    for (int k = 0; k < count; k++) {
        if (er_mask_arg(PySequence_Fast_GET_ITEM(seq, k), name, &out[k]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

static PyObject *VecGames_load_position(VecGames *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"index", "hands", "pile", "table", "to_move", "laid", "draws", "last_drawn",
                             "laid_by", "drew", "kept", NULL};
    Py_ssize_t index;
    int to_move, laid, draws, last_drawn;
    PyObject *hands_arg, *pile_arg, *table_arg, *laid_by_arg, *drew_arg, *kept_arg;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nOOOiiiiOOO:load_position", kwlist, &index, &hands_arg, &pile_arg,
                                     &table_arg, &to_move, &laid, &draws, &last_drawn, &laid_by_arg, &drew_arg,
                                     &kept_arg) ||
        index_arg(self, index) < 0) {
        return NULL;
    }
    mask_t table;
    if (er_mask_arg(table_arg, "table", &table) < 0) {
        return NULL;
    }
    int n = self->players, deck = self->colors * NUMBERS;
    mask_t hands[MAX_PLAYERS], laid_by[MAX_PLAYERS];
    if (mask_items(hands_arg, "hands", hands, n) < 0 || mask_items(laid_by_arg, "laid_by", laid_by, n) < 0) {
        return NULL;
    }
    long long drew[MAX_PLAYERS], kept[MAX_PLAYERS], pile_codes[DECK + 1];
    if (er_int_items(drew_arg, "drew", "a draw count", drew, MAX_PLAYERS + 1) != n ||
        er_int_items(kept_arg, "kept", "a keep count", kept, MAX_PLAYERS + 1) != n) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_ValueError, "drew and kept must hold %d counts, one per seat", n);
        }
        return NULL;
    }
    Py_ssize_t pile_len = er_int_items(pile_arg, "pile", "a pile card", pile_codes, DECK + 1);
    if (pile_len < 0) {
        return NULL;
    }
    /* The table holds every card laid; a position read without its history has table cards no seat is
       known to have laid. */
    mask_t seen = table, laid_known = {0, 0};
    int clash = 0;
    for (int seat = 0; seat < n; seat++) {
        clash |= !mask_empty(mask_and(seen, hands[seat]));
        seen = mask_or(seen, hands[seat]);
        clash |= !mask_empty(mask_and(laid_known, laid_by[seat])) || !mask_eq(mask_and(laid_by[seat], table), laid_by[seat]);
        laid_known = mask_or(laid_known, laid_by[seat]);
        clash |= drew[seat] < 0 || drew[seat] > DECK || kept[seat] < 0 || kept[seat] > DECK;
    }
    int8_t pile[DECK];
    clash = clash || take_pile(pile_codes, pile_len, deck, &seen, pile);
    if (clash || !whole_deck(seen, deck)) {
        PyErr_Format(PyExc_ValueError,
                     "the hands, the table and the pile must hold each card of the %d-card deck once, and the "
                     "cards each seat laid must lie on the table",
                     deck);
        return NULL;
    }
    if (to_move < 0 || to_move >= n || laid < 0 || laid > MAX_TURN_COUNT || draws < 0 || draws > MAX_TURN_COUNT ||
        last_drawn < -1 || last_drawn >= deck || (last_drawn >= 0 && !mask_test(hands[to_move], last_drawn)) ||
        (draws && !laid && last_drawn < 0)) {
        PyErr_SetString(PyExc_ValueError, "to_move, laid, draws and last_drawn do not describe a turn of this table");
        return NULL;
    }
    /* The fit set follows from the table: each opened row's outer neighbours, each unopened colour's 11. */
    mask_t fit = {0, 0};
    for (int color = 0; color < self->colors; color++) {
        int low = 0, high = 0;
        for (int number = 1; number <= NUMBERS; number++) {
            if (mask_test(table, color * NUMBERS + number - 1)) {
                low = low ? low : number;
                high = number;
            }
        }
        if (!low) {
            fit = mask_or(fit, ER_BITS[color * NUMBERS + ELEVEN - 1]);
            continue;
        }
        if (low > 1) {
            fit = mask_or(fit, ER_BITS[color * NUMBERS + low - 2]);
        }
        if (high < NUMBERS) {
            fit = mask_or(fit, ER_BITS[color * NUMBERS + high]);
        }
    }
    slot_t *s = &self->slots[index];
    start_game(self, s, hands, pile, (int)pile_len);
    game_t *g = &s->game;
    g->fit = fit;
    g->to_move = to_move;
    g->laid = laid;
    g->draws = draws;
    g->last_drawn = last_drawn;
    s->table = table;
    for (int seat = 0; seat < n; seat++) {
        s->laid_by[seat] = laid_by[seat];
        s->drew[seat] = (int)drew[seat];
        s->kept[seat] = (int)kept[seat];
    }
    write_row(self, s, index);
    clear_result(self, index);
    Py_RETURN_NONE;
}

static PyObject *VecGames_deal(VecGames *self, PyObject *arg) {
    Py_ssize_t index = PyNumber_AsSsize_t(arg, PyExc_IndexError);
    if ((index == -1 && PyErr_Occurred()) || index_arg(self, index) < 0) {
        return NULL;
    }
    const slot_t *s = &self->slots[index];
    PyObject *hands = PyTuple_New(self->players);
    PyObject *pile = PyTuple_New(s->game.pile_len);
    if (!hands || !pile) {
        Py_XDECREF(hands);
        Py_XDECREF(pile);
        return NULL;
    }
    for (int seat = 0; seat < self->players; seat++) {
        PyObject *mask = er_mask_to_pylong(s->dealt[seat]);
        if (!mask) {
            Py_DECREF(hands);
            Py_DECREF(pile);
            return NULL;
        }
        PyTuple_SET_ITEM(hands, seat, mask);
    }
    for (int k = 0; k < s->game.pile_len; k++) {
        PyTuple_SET_ITEM(pile, k, PyLong_FromLong(s->game.pile[k]));
    }
    return Py_BuildValue("(NN)", hands, pile);
}

static PyObject *VecGames_hands(VecGames *self, PyObject *arg) {
    /* Every seat's hand, seat-relative to the seat to move (slot 0 its own), and the pile: (N, players + 1, 80)
       float32 into `arg`. For a critic that may see what the players may not; never for a policy. */
    if (dealt(self) < 0) {
        return NULL;
    }
    Py_buffer out;
    if (PyObject_GetBuffer(arg, &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0) {
        return NULL;
    }
    int rows = self->players + 1;
    const char *format = out.format ? out.format : "B";
    if (out.itemsize != 4 || strcmp(format, "f") != 0 || out.len != self->n * rows * DECK * 4) {
        PyErr_Format(PyExc_ValueError, "out must be a writable float32 array of shape (%zd, %d, %d)", self->n, rows,
                     DECK);
        PyBuffer_Release(&out);
        return NULL;
    }
    float *o = out.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < self->n; i++, o += rows * DECK) {
        const game_t *g = &self->slots[i].game;
        for (int slot = 0; slot < self->players; slot++) {
            write_mask(o + slot * DECK, g->hands[(g->to_move + slot) % self->players]);
        }
        mask_t pile = {0, 0};
        for (int k = g->pile_pos; k < g->pile_len; k++) {
            pile = mask_or(pile, ER_BITS[g->pile[k]]);
        }
        write_mask(o + self->players * DECK, pile);
    }
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&out);
    Py_RETURN_NONE;
}

static PyObject *VecGames_get_finished(VecGames *self, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(self->finished);
}

static PyObject *VecGames_get_obs_size(VecGames *self, void *closure) {
    (void)closure;
    return PyLong_FromSsize_t(self->obs_size);
}

static PyMethodDef VecGames_methods[] = {
    {"reset", (PyCFunction)(void (*)(void))VecGames_reset, METH_VARARGS | METH_KEYWORDS,
     "reset(seed=None)\n--\n\nDeal every game anew (from `seed`'s generators when given) and write the buffers."},
    {"step", (PyCFunction)VecGames_step, METH_O,
     "step(actions, /)\n--\n\nMake one action in every game (int64, one per game; -1 keeps a game as it is, -2 "
     "deals it again), dealing again where a game ended, and write the buffers. An illegal action raises "
     "ValueError before any game moves."},
    {"random_actions", (PyCFunction)VecGames_random_actions, METH_O,
     "random_actions(out, /)\n--\n\nA uniformly random legal action per game into `out` (int64), from each "
     "game's own generator."},
    {"load", (PyCFunction)(void (*)(void))VecGames_load, METH_VARARGS | METH_KEYWORDS,
     "load(index, hands, pile)\n--\n\nStart game `index` from a deal: each seat's hand as a mask, the pile top "
     "first; its row of the buffers is written, its reward and done cleared."},
    {"load_position", (PyCFunction)(void (*)(void))VecGames_load_position, METH_VARARGS | METH_KEYWORDS,
     "load_position(index, hands, pile, table, to_move, laid, draws, last_drawn, laid_by, drew, kept)\n--\n\n"
     "Put game `index` at a position: each seat's hand (masks), the pile top first, the cards on the table (a "
     "mask), the turn (seat to move, cards laid and drawn this turn, the card drawn last or -1), and each "
     "seat's history: the cards it laid (masks, on the table), its draws and its turns ended keeping a drawn "
     "card that fit; the fit follows from the table. Its row is written, its reward and done cleared. What "
     "it deals later comes from its own generator."},
    {"deal", (PyCFunction)VecGames_deal, METH_O,
     "deal(index, /)\n--\n\nThe deal of game `index`: (hands as masks, pile top first)."},
    {"hands", (PyCFunction)VecGames_hands, METH_O,
     "hands(out, /)\n--\n\nEvery hand, from the seat to move's on, and the pile, as (N, players + 1, 80) float32."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef VecGames_getset[] = {
    {"finished", (getter)VecGames_get_finished, NULL, "Games that ended since the last reset.", NULL},
    {"obs_size", (getter)VecGames_get_obs_size, NULL, "The length of an information-state row.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject er_vec_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "elferraus._core.VecGames",
    .tp_basicsize = sizeof(VecGames),
    .tp_dealloc = (destructor)VecGames_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Many games stepped in one call, writing into the caller's arrays (elferraus.vector).",
    .tp_methods = VecGames_methods,
    .tp_getset = VecGames_getset,
    .tp_init = (initproc)VecGames_init,
    .tp_new = PyType_GenericNew,
};

int er_vec_ready(void) {
    init_expand();
    return PyType_Ready(&er_vec_type);
}
