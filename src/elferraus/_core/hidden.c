/* The hidden cards: from what the searcher knows (hidden_t: its hand, the
 * unknown cards, the hand sizes, the weights of what the others have
 * shown), one determinization, the other hands and the pile order, drawn
 * in exactly the order of elferraus/rollout/ (see its docstring).
 */

#include "core.h"

#include <string.h>

/* The slots, the allowed sets and the look-ahead tables (after the weights are known). */
void er_hidden_prepare(hidden_t *h) {
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
void er_deal_hidden(const hidden_t *h, splitmix_t *rng, game_t *g) {
    int8_t cards[DECK];
    int n = h->n_cards, nd = h->nd, slots = nd + 1, subsets = 1 << slots;
    memcpy(cards, h->cards, (size_t)n);
    sm_shuffle(cards, n, rng);
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
            g->hands[s] = mask_or(g->hands[s], ER_BITS[card]);
        }
        if (restricted) {
            int allowed = h->allowed[card];
            for (int sub = 0; sub < subsets; sub++) {
                slack[sub] += ((sub & allowed) == allowed) - (sub >> chosen & 1);
            }
        }
    }
    sm_shuffle(g->pile, pile_n, rng);
    g->pile_len = pile_n;
    g->pile_pos = 0;
}
