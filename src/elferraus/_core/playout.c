/* The playout engine: a game_t played to its end without Python objects,
 * allocation or the GIL, by the random, greedy, medium, blocking and hoarding policies, with
 * the rules of core.h (er_legal_codes, er_apply) that the state uses too.
 * Exactly the playouts of elferraus/rollout/ (the reference).
 */

#include "core.h"

/* medium's constants, in hundredths (see elferraus/rollout/) */
#define SCORE_BASE 100
#define SCORE_FREE 50
#define SCORE_UNLOCK 2000
#define SCORE_KEEP_DRAWN (-40)
#define WEIGHT_NORMAL 100
#define WEIGHT_CLOSE 160
#define CLOSE_COUNT 3
#define SHORT_HAND 2
/* bots.blocking.LEAD_GAP: the longest gap a blocker's lay towards its own cards may open */
#define LEAD_GAP 2

/* The playouts' legal move codes (room for MAX_LEGAL in `codes`): the state's rules, except
   at the opening (ER_OPEN_OWN: the lowest 11 of the mover's own hand, none if he holds no 11). */
int er_sim_legal(const game_t *g, int8_t *codes) { return er_legal_codes(g, ER_OPEN_OWN, codes); }

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
        own = mask_xor(own, ER_BITS[index]);
        fit = er_fit_after_lay(fit, index);
        playable = mask_and(own, fit);
    }
    return mask_empty(own);
}

/* medium's move; a hoarder (`hoards`) lays only to go out or when the rules leave it no other move. */
static int medium_choose(const game_t *g, const int8_t *codes, int n, int hoards) {
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
    if (hoards && last < 0) {
        return last; /* draw, or end the turn keeping every card */
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

/* bots.blocking's door from number `start` outward in the row `own` (bit number - 1): the cards
   not in `own` up to the first own card (*gap), then the run of own cards there (*unlocks). */
static void door(uint32_t own, int start, int step, int *gap, int *unlocks) {
    int number = start;
    while (number >= 1 && number <= NUMBERS && !(own >> (number - 1) & 1)) {
        ++*gap;
        number += step;
    }
    int run = 0;
    while (number >= 1 && number <= NUMBERS && (own >> (number - 1) & 1)) {
        run++;
        number += step;
    }
    *unlocks += run;
}

/* A lay read as bots.blocking reads it: returns its sort key (frees * 64 - unlocks; ties: the lower
   code); *leads: every door is free or leads to own cards within LEAD_GAP; *frees_nothing: it frees nothing. */
static int lay_reading(mask_t own, int code, int *leads, int *frees_nothing) {
    int color = code / NUMBERS, number = code % NUMBERS + 1;
    uint32_t row = row_bits(own, color);
    int frees = 0, unlocks = 0;
    *leads = 1;
    int starts[2], steps[2], doors = 0;
    if (number == ELEVEN) { /* a legal 11 always opens its row */
        starts[0] = ELEVEN - 1, steps[0] = -1;
        starts[1] = ELEVEN + 1, steps[1] = 1;
        doors = 2;
    }
    else {
        steps[0] = number < ELEVEN ? -1 : 1;
        starts[0] = number + steps[0];
        doors = 1;
    }
    for (int d = 0; d < doors; d++) {
        int gap = 0, run = 0;
        door(row, starts[d], steps[d], &gap, &run);
        if (gap && !(run && gap <= LEAD_GAP)) {
            *leads = 0;
        }
        frees += gap;
        unlocks += run;
    }
    *frees_nothing = frees == 0;
    return frees * 64 - unlocks;
}

/* bots.blocking's BlockerBot, TightBlockerBot and OneLayBot: they read only their own hand and the table. */
static int blocking_choose(const game_t *g, const int8_t *codes, int n, int policy) {
    if (n == 1) {
        return codes[0];
    }
    int last = codes[n - 1]; /* draw or pass when the rules let the mover lay nothing, else a lay */
    if (policy == POLICY_ONE_LAY && g->laid && last == PASS_CODE) {
        return PASS_CODE;
    }
    if (codes[0] < 0) {
        return last;
    }
    int seat = g->to_move;
    mask_t own = g->hands[seat];
    int best = -1, best_key = 0, accepted = -1, accepted_key = 0;
    for (int i = 0; i < n && codes[i] >= 0; i++) {
        int leads, frees_nothing;
        int key = lay_reading(own, codes[i], &leads, &frees_nothing);
        if (best < 0 || key < best_key) {
            best = codes[i];
            best_key = key;
        }
        if ((policy == POLICY_TIGHT_BLOCKER ? frees_nothing : leads) && (accepted < 0 || key < accepted_key)) {
            accepted = codes[i];
            accepted_key = key;
        }
    }
    if (policy == POLICY_ONE_LAY) {
        return best;
    }
    int goes_out = g->draws && !g->laid && g->ends_after_draw ? g->counts[seat] == 1 : can_go_out(own, g->fit);
    if (goes_out) {
        return best;
    }
    if (accepted >= 0) {
        return accepted;
    }
    return last < 0 ? last : best;
}

/* Play `g` to the end. Adds the actions to *actions; records them in
   `trace` (room for MAX_ACTIONS) unless NULL. */
int er_sim_run(game_t *g, const int8_t *policies, splitmix_t *rng, long long *actions, int8_t *trace) {
    int8_t codes[MAX_LEGAL + 1];
    int count = 0;
    while (g->winner < 0) {
        int n = er_sim_legal(g, codes);
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
        else if (policies[g->to_move] == POLICY_MEDIUM || policies[g->to_move] == POLICY_HOARDER) {
            code = medium_choose(g, codes, n, policies[g->to_move] == POLICY_HOARDER);
        }
        else {
            code = blocking_choose(g, codes, n, policies[g->to_move]);
        }
        er_apply(g, code);
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

int er_run_error(int status) {
    if (status == RUN_TOO_LONG) {
        PyErr_Format(PyExc_RuntimeError, "a playout did not end within %d actions", MAX_ACTIONS);
    }
    else {
        PyErr_SetString(PyExc_RuntimeError,
                        "the player to move has no legal move (an opening without an 11 in his hand)");
    }
    return -1;
}
