/* The start of a game: the 11s of a deck, who starts, and a new game_t.
 * (The rules of a move are er_legal_codes and er_apply in core.h, inline
 * for the playouts' sake.)
 */

#include "core.h"

#include <string.h>

mask_t er_elevens_mask(int colors) {
    mask_t m = {0, 0};
    for (int c = 0; c < colors; c++) {
        m = mask_or(m, ER_BITS[c * NUMBERS + ELEVEN - 1]);
    }
    return m;
}

/* The seat holding the lowest 11 (seat 0 if no hand holds one). */
static int starter(const game_t *g) {
    int8_t indices[DECK];
    int n = mask_indices(g->elevens, indices);
    for (int k = 0; k < n; k++) {
        for (int seat = 0; seat < g->players; seat++) {
            if (mask_test(g->hands[seat], indices[k])) {
                return seat;
            }
        }
    }
    return 0;
}

void er_game_start(game_t *g, int players, const mask_t *hands, const int8_t *pile, int pile_len, int colors,
                   int max_draws, int must_play, int ends_after_draw) {
    g->players = players;
    for (int seat = 0; seat < MAX_PLAYERS; seat++) {
        mask_t none = {0, 0};
        g->hands[seat] = seat < players ? hands[seat] : none;
        g->counts[seat] = seat < players ? mask_count(hands[seat]) : 0;
    }
    memcpy(g->pile, pile, (size_t)pile_len);
    g->pile_len = pile_len;
    g->pile_pos = 0;
    g->elevens = er_elevens_mask(colors);
    g->fit = g->elevens;
    g->max_draws = max_draws;
    g->must_play = must_play;
    g->ends_after_draw = ends_after_draw;
    g->laid = 0;
    g->draws = 0;
    g->last_drawn = -1;
    g->winner = -1;
    g->to_move = starter(g);
}
