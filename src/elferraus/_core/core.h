/* elferraus._core: what the files of the compiled core share.
 *
 * The core is one extension module, elferraus._core, compiled from the
 * files of this folder (each opens with what it owns):
 *
 *   core.h     this header: limits, 80-bit masks, the rules of a move
 *              (legal moves and making a move, written once here for the
 *              state and the playouts), and the shared declarations
 *   cards.c    the card tables, and masks to and from Python ints
 *   rules.c    the start of a game: the 11s, the starter, a new game_t
 *   moves.c    the move objects of elferraus.moves and the legal tuples
 *   state.c    CoreState: the game state type and its methods
 *   pickle.c   CoreState's __getstate__ and __setstate__
 *   deal.c     key_order and mask_of, the dealing helpers
 *   playout.c  the playout engine and its policies
 *   hidden.c   sampling the hidden cards (one determinization)
 *   args.c     the rollout functions' argument checks
 *   search.c   search, sample_deals, playout and random_playouts
 *   vec.c      VecGames: many games stepped in one call, for self-play
 *   module.c   the module: its function table and initialisation
 *
 * CoreState implements exactly the interface and the semantics of
 * elferraus._pystate.PyState (the reference; read its docstring first).
 * The test suite (tests/engine/test_core_equivalence.py) plays the same games
 * through both and compares every position. The rollout functions are the
 * C twin of the package elferraus/rollout/, with bit-identical results
 * (tests/rollout/test_rollout.py).
 *
 * Representation: a card is an index 0..79 (colour * 20 + number - 1); a
 * hand and the ``fit`` set are 80-bit masks kept in two 64-bit words; a
 * game's plain data is a game_t (hands, fit, counts, pile and read
 * position, turn phase, rules), which CoreState holds together with its
 * undo stack and cached legal-move tuple, and on which a playout runs.
 * Moves are move codes (a card index lays it, DRAW_CODE, PASS_CODE) in C
 * and the shared singletons of elferraus.moves in Python.
 *
 * Names: what one file defines for the others starts with er_ (functions)
 * or ER_ (tables); it is declared here, with hidden visibility, so that
 * only PyInit__core leaves the shared library and the calls and table
 * reads between the files stay as direct as static ones (no PLT or GOT
 * in the playouts' loop). The small static inline helpers here keep their
 * family prefixes (mask_, sm_). Everything else is static in its file.
 */

#ifndef ELFERRAUS_CORE_H
#define ELFERRAUS_CORE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility push(hidden)
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

static inline int mask_lowest(mask_t m) { /* m not empty */
    return m.lo ? ctz64(m.lo) : 64 + ctz64(m.hi);
}

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

/* ---------------------------------------------------------------------- */
/* The cards (cards.c)                                                    */

extern mask_t ER_BITS[DECK];           /* the mask of card i */
extern mask_t ER_NEWLY_FITTING[DECK];  /* the cards that fit after laying card i */

void er_init_tables(void);
PyObject *er_mask_to_pylong(mask_t m);
int er_mask_from_pylong(PyObject *value, mask_t *out, const char *what);

/* The fit set after laying the fitting card `code`: the card leaves it, its outward neighbours join. */
static inline mask_t er_fit_after_lay(mask_t fit, int code) {
    return mask_or(mask_xor(fit, ER_BITS[code]), ER_NEWLY_FITTING[code]);
}

/* ---------------------------------------------------------------------- */
/* A game's plain data and the rules of a move                            */

/* Everything the rules read and a move changes, without Python objects: a CoreState holds one
   (with its undo stack and cached tuple around it), a playout runs on one (copied per candidate). */
typedef struct {
    mask_t hands[MAX_PLAYERS];
    mask_t fit;
    mask_t elevens;
    int counts[MAX_PLAYERS];
    int players; /* in a CoreState: 0 until __init__ ran */
    int to_move;
    int winner;  /* -1 while running */
    int laid;    /* this turn */
    int draws;   /* this turn */
    int last_drawn;
    int pile_len;
    int pile_pos;
    int max_draws;
    int must_play;
    int ends_after_draw;
    int8_t pile[DECK];
} game_t;

/* Who opens the game (the table is the 11s): the two users of the rules differ here only.
   ER_OPEN_STARTER: the lowest 11 in any hand, laid by whoever is to move (PyState's rule: the
   deal's starter holds it, and a loaded position is taken as it is); none if no hand holds an 11.
   ER_OPEN_OWN: the lowest 11 in the mover's own hand, none if he holds no 11 (the playouts':
   a sampled deal may put a lower 11 in another hand, and that must not take the mover's turn;
   see elferraus/rollout/). The two agree in every real position. */
enum { ER_OPEN_STARTER = 0, ER_OPEN_OWN = 1 };

/* The legal move codes into `codes` (room for MAX_LEGAL), in PyState's order (lays by
   increasing index, then draw or pass); returns how many (0: over, or no 11 to open with).
   Cards drawn this turn with no last drawn card (last_drawn < 0) count as a drawn card that
   does not fit; the state refuses that position before it asks. One function for the state's
   legal_moves and the playouts; static inline, so that each compiles its own copy with
   `opening` a constant: the playouts pay no call into another file and no test of the
   state's variant. */
static inline int er_legal_codes(const game_t *g, int opening, int8_t *codes) {
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
        mask_t holders = hand;
        if (opening == ER_OPEN_STARTER) {
            for (int seat = 0; seat < g->players; seat++) {
                holders = mask_or(holders, g->hands[seat]);
            }
        }
        mask_t own = mask_and(holders, g->elevens);
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

/* Make the legal move `code` (not checked) for the player to move: the state's push (after it
   noted the undo entry) and every step of a playout. The opening 11 and, with ends_after_draw,
   a drawn card laid end the turn by themselves; laying the last card wins. */
static inline void er_apply(game_t *g, int code) {
    int seat = g->to_move;
    if (code >= 0) {
        mask_t fit = g->fit;
        g->hands[seat] = mask_xor(g->hands[seat], ER_BITS[code]);
        g->fit = er_fit_after_lay(fit, code);
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
        g->hands[seat] = mask_or(g->hands[seat], ER_BITS[card]);
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

/* The mask of the 11s of the first `colors` colours (rules.c). */
mask_t er_elevens_mask(int colors);

/* A new game (rules.c): `players` hands (counts from them; the other seats empty), the pile, the rules;
   the 11s on the table as the fit set, the starter to move, nothing done this turn. */
void er_game_start(game_t *g, int players, const mask_t *hands, const int8_t *pile, int pile_len, int colors,
                   int max_draws, int must_play, int ends_after_draw);

/* ---------------------------------------------------------------------- */
/* Moves as Python objects (moves.c)                                      */

extern PyObject *ER_LAYS[DECK]; /* elferraus.moves.LAYS[i], borrowed from its tuple */
extern PyObject *ER_DRAW;
extern PyObject *ER_PASS;

static inline PyObject *er_move_of(int code) { /* borrowed */
    return code >= 0 ? ER_LAYS[code] : code == DRAW_CODE ? ER_DRAW : ER_PASS;
}

int er_code_of(PyObject *move, long *out);
PyObject *er_moves_tuple(const int8_t *codes, int n);
int er_load_moves(void);
void er_clear_moves(void);

/* ---------------------------------------------------------------------- */
/* The state (state.c, pickle.c)                                          */

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
    game_t game;                       /* plain data, copied wholesale */
    int8_t legal_codes[MAX_LEGAL + 1]; /* the codes of the items of `legal` */
    PyObject *legal;                   /* cached legal-move tuple or NULL */
    entry_t *stack;
    Py_ssize_t stack_size;
    Py_ssize_t stack_cap;
} CoreState;

extern PyTypeObject er_state_type;

int er_state_ready(void); /* at import, after er_load_moves: 0, or -1 with an exception */

PyObject *er_state_getstate(CoreState *self, PyObject *ignored);
PyObject *er_state_setstate(CoreState *self, PyObject *state);

/* ---------------------------------------------------------------------- */
/* Rollouts (playout.c, hidden.c, args.c, search.c)                       */

#define MAX_ACTIONS 10000 /* a playout longer than this is an error (games end long before) */
#define POLICY_RANDOM 0
#define POLICY_GREEDY 1
#define POLICY_MEDIUM 2
#define POLICY_BLOCKER 3
#define POLICY_TIGHT_BLOCKER 4
#define POLICY_ONE_LAY 5
#define POLICY_HOARDER 6
#define POLICY_LAST POLICY_HOARDER
#define POLICY_NAMES \
    "0 (random), 1 (greedy), 2 (medium), 3 (blocker), 4 (tight-blocker), 5 (one-lay) or 6 (hoarder)"
#define MIN_SEATS 2

enum { RUN_OK = 0, RUN_TOO_LONG = 1, RUN_STUCK = 2 };

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

/* Fisher-Yates, from the last item down. */
static inline void sm_shuffle(int8_t *items, int n, splitmix_t *rng) {
    for (int i = n - 1; i > 0; i--) {
        int j = sm_below(rng, i + 1);
        int8_t t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
}

/* playout.c */
int er_sim_legal(const game_t *g, int8_t *codes);
int er_sim_run(game_t *g, const int8_t *policies, splitmix_t *rng, long long *actions, int8_t *trace);
int er_run_error(int status);

/* hidden.c: what the searcher knows and how the rest may lie */
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

void er_hidden_prepare(hidden_t *h);
void er_deal_hidden(const hidden_t *h, splitmix_t *rng, game_t *g);

/* args.c */
int er_ll_arg(PyObject *value, const char *name, long long *out);
int er_mask_arg(PyObject *value, const char *name, mask_t *out);
int er_seed_arg(PyObject *value, uint64_t *out);
PyObject *er_int_seq(PyObject *value, const char *name);
Py_ssize_t er_int_items(PyObject *value, const char *name, const char *item_name, long long *out, Py_ssize_t cap);
int er_rules_args(PyObject *colors_arg, PyObject *max_draws_arg, int *colors, int *max_draws);
int er_switch_args(PyObject *must_play_arg, PyObject *ends_arg, int *must_play, int *ends_after_draw);
int er_policies_arg(PyObject *value, int players, int8_t *out);
int er_hidden_args(hidden_t *h, PyObject *seat_arg, PyObject *hand_arg, PyObject *counts_arg, PyObject *pile_arg,
                   PyObject *unknown_arg, PyObject *weights, mask_t *unknown_out);
int er_root_args(game_t *g, const hidden_t *h, mask_t unknown, PyObject *fit_arg, PyObject *laid_arg,
                 PyObject *draws_arg, PyObject *last_arg, PyObject *colors_arg, PyObject *max_draws_arg,
                 PyObject *must_play_arg, PyObject *ends_arg);
int er_check_candidates(const game_t *root, const long long *candidates, Py_ssize_t n);

/* ---------------------------------------------------------------------- */
/* The module's functions (deal.c, search.c; the table is in module.c)    */

PyObject *er_key_order(PyObject *module, PyObject *arg);
PyObject *er_mask_of(PyObject *module, PyObject *arg);
PyObject *er_search(PyObject *module, PyObject *args, PyObject *kwds);
PyObject *er_search_rounds(PyObject *module, PyObject *args, PyObject *kwds);
PyObject *er_sample_deals(PyObject *module, PyObject *args, PyObject *kwds);
PyObject *er_playout(PyObject *module, PyObject *args, PyObject *kwds);
PyObject *er_random_playouts(PyObject *module, PyObject *args, PyObject *kwds);

/* vec.c */
extern PyTypeObject er_vec_type;
int er_vec_ready(void); /* at import: 0, or -1 with an exception */

#if defined(__GNUC__) || defined(__clang__)
#pragma GCC visibility pop
#endif

#endif /* ELFERRAUS_CORE_H */
