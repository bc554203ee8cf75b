/* The rollout functions of the module: search, sample_deals, playout and
 * random_playouts (exactly those of elferraus/rollout/). search and
 * random_playouts release the GIL while the playouts run.
 */

#include "core.h"

#include <string.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#endif

static const int DEAL_SIZES[MAX_PLAYERS + 1] = {0, 0, 20, 20, 15, 12, 10};

/* The penalty points of a hand: the sum of its numbers. */
static int hand_penalty(mask_t hand) {
    int8_t cards[DECK];
    int n = mask_indices(hand, cards), sum = 0;
    for (int i = 0; i < n; i++) {
        sum += cards[i] % NUMBERS + 1;
    }
    return sum;
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
    game_t root;
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
        er_deal_hidden(h, &rng, &job->root);
        uint64_t playout_seed = sm_next(&rng);
        for (Py_ssize_t k = 0; k < job->n_candidates; k++) {
            game_t g = job->root;
            splitmix_t playout_rng = {playout_seed};
            long long actions = 0;
            er_apply(&g, job->candidates[k]);
            int status = er_sim_run(&g, job->policies, &playout_rng, &actions, NULL);
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

/* The arguments search and search_rounds share: the searcher's knowledge, the root and the candidates. */
typedef struct {
    PyObject *seat, *hand, *counts, *pile_count, *unknown, *weights, *fit, *laid, *draws, *last_drawn, *colors,
        *max_draws, *must_play, *ends_after_draw, *candidates;
} search_args_t;

/* The buffers of one search: the candidates as move codes, and the tallies of search_job_t. */
typedef struct {
    hidden_t *hidden;
    long long *numbers; /* codes (n), wins (n), penalties (n), step (2n) */
    int8_t *candidates;
} search_buffers_t;

static void search_buffers_free(search_buffers_t *buffers) {
    PyMem_Free(buffers->hidden);
    PyMem_Free(buffers->numbers);
    PyMem_Free(buffers->candidates);
}

/* Read the shared arguments into ``job`` (hidden cards, root, candidates, tallies); -1 with an exception set.
 * The caller frees ``buffers`` either way. */
static int search_prepare(const search_args_t *a, search_job_t *job, search_buffers_t *buffers) {
    memset(job, 0, sizeof(*job));
    memset(buffers, 0, sizeof(*buffers));
    mask_t unknown;
    PyObject *seq = NULL;
    int status = -1;
    if (!(buffers->hidden = PyMem_Malloc(sizeof(hidden_t)))) {
        PyErr_NoMemory();
        return -1;
    }
    hidden_t *hidden = buffers->hidden;
    if (er_hidden_args(hidden, a->seat, a->hand, a->counts, a->pile_count, a->unknown, a->weights, &unknown) < 0 ||
        er_root_args(&job->root, hidden, unknown, a->fit, a->laid, a->draws, a->last_drawn, a->colors, a->max_draws,
                     a->must_play, a->ends_after_draw) < 0) {
        return -1;
    }
    if (!(seq = er_int_seq(a->candidates, "candidates"))) {
        return -1;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    buffers->numbers = PyMem_Calloc((size_t)(5 * n + 1), sizeof(long long));
    buffers->candidates = PyMem_Malloc((size_t)n + 1);
    if (!buffers->numbers || !buffers->candidates) {
        PyErr_NoMemory();
        goto done;
    }
    long long *codes = buffers->numbers;
    for (Py_ssize_t k = 0; k < n; k++) {
        if (er_ll_arg(PySequence_Fast_GET_ITEM(seq, k), "an item of candidates", &codes[k]) < 0) {
            goto done;
        }
    }
    if (er_check_candidates(&job->root, codes, n) < 0) {
        goto done;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        buffers->candidates[k] = (int8_t)codes[k];
    }
    job->hidden = hidden;
    job->candidates = buffers->candidates;
    job->n_candidates = n;
    job->wins = buffers->numbers + n;
    job->penalties = buffers->numbers + 2 * n;
    job->step = buffers->numbers + 3 * n;
    status = 0;
done:
    Py_DECREF(seq);
    return status;
}

PyObject *er_search(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"seat",       "hand",     "counts",    "pile_count",      "unknown",    "weights",
                             "fit",        "laid",     "draws",     "last_drawn",      "colors",     "max_draws",
                             "must_play",  "ends_after_draw", "candidates", "policies", "samples", "seed",
                             "time_limit", NULL};
    search_args_t a;
    PyObject *policies, *samples_arg, *seed_obj;
    double time_limit = 0.0;
    double start = monotonic_seconds();
    if (keywords_only(args, "search") < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOOOOOOOOOOOOO|d:search", kwlist, &a.seat, &a.hand, &a.counts,
                                     &a.pile_count, &a.unknown, &a.weights, &a.fit, &a.laid, &a.draws, &a.last_drawn,
                                     &a.colors, &a.max_draws, &a.must_play, &a.ends_after_draw, &a.candidates,
                                     &policies, &samples_arg, &seed_obj, &time_limit)) {
        return NULL;
    }
    search_job_t job;
    search_buffers_t buffers;
    PyObject *result = NULL, *list = NULL;
    int status;
    if (search_prepare(&a, &job, &buffers) < 0 || er_policies_arg(policies, job.hidden->players, job.policies) < 0) {
        goto done;
    }
    if (er_ll_arg(samples_arg, "samples", &job.samples) < 0) {
        goto done;
    }
    if (job.samples < 1) {
        PyErr_Format(PyExc_ValueError, "samples must be at least 1, not %lld", job.samples);
        goto done;
    }
    if (er_seed_arg(seed_obj, &job.seed) < 0) {
        goto done;
    }
    job.time_limit = time_limit;
    job.start = start;
    Py_BEGIN_ALLOW_THREADS
    status = search_run(&job);
    Py_END_ALLOW_THREADS
    if (status != RUN_OK) {
        er_run_error(status);
        goto done;
    }
    Py_ssize_t n = job.n_candidates;
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
    search_buffers_free(&buffers);
    return result;
}

/* One determinization per entry of the schedule, each seeded and with the playout policies of its entry:
 * exactly search(samples=1, policies=P, seed=S) for each (P, S), without reading the knowledge again. */
PyObject *er_search_rounds(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"seat",      "hand",       "counts",          "pile_count", "unknown",
                             "weights",   "fit",        "laid",            "draws",      "last_drawn",
                             "colors",    "max_draws",  "must_play",       "ends_after_draw", "candidates",
                             "schedule",  NULL};
    search_args_t a;
    PyObject *schedule;
    if (keywords_only(args, "search_rounds") < 0 ||
        !PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOOOOOOOOOOOO:search_rounds", kwlist, &a.seat, &a.hand,
                                     &a.counts, &a.pile_count, &a.unknown, &a.weights, &a.fit, &a.laid, &a.draws,
                                     &a.last_drawn, &a.colors, &a.max_draws, &a.must_play, &a.ends_after_draw,
                                     &a.candidates, &schedule)) {
        return NULL;
    }
    search_job_t job;
    search_buffers_t buffers;
    PyObject *result = NULL, *entries = NULL;
    int8_t *policies = NULL;
    uint64_t *seeds = NULL;
    long long *won = NULL;
    int status = RUN_OK;
    if (search_prepare(&a, &job, &buffers) < 0) {
        goto done;
    }
    if (!(entries = PySequence_Fast(schedule, "schedule must be a sequence of (policies, seed) pairs"))) {
        goto done;
    }
    Py_ssize_t rounds = PySequence_Fast_GET_SIZE(entries), n = job.n_candidates;
    policies = PyMem_Calloc((size_t)(rounds * MAX_PLAYERS + 1), 1);
    seeds = PyMem_Malloc((size_t)(rounds + 1) * sizeof(uint64_t));
    won = PyMem_Calloc((size_t)(rounds * n + 1), sizeof(long long));
    if (!policies || !seeds || !won) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t r = 0; r < rounds; r++) {
        PyObject *entry = PySequence_Fast_GET_ITEM(entries, r);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) != 2) {
            PyErr_Format(PyExc_TypeError, "schedule entry %zd must be a (policies, seed) pair", r);
            goto done;
        }
        if (er_policies_arg(PyTuple_GET_ITEM(entry, 0), job.hidden->players, policies + r * MAX_PLAYERS) < 0 ||
            er_seed_arg(PyTuple_GET_ITEM(entry, 1), &seeds[r]) < 0) {
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rounds && status == RUN_OK; r++) {
        memcpy(job.policies, policies + r * MAX_PLAYERS, MAX_PLAYERS);
        job.seed = seeds[r];
        job.samples = 1;
        job.done = 0;
        memset(job.wins, 0, (size_t)n * sizeof(long long));
        memset(job.penalties, 0, (size_t)n * sizeof(long long));
        status = search_run(&job);
        for (Py_ssize_t k = 0; k < n; k++) {
            won[r * n + k] = job.wins[k];
        }
    }
    Py_END_ALLOW_THREADS
    if (status != RUN_OK) {
        er_run_error(status);
        goto done;
    }
    PyObject *list = PyList_New(rounds);
    if (!list) {
        goto done;
    }
    for (Py_ssize_t r = 0; r < rounds; r++) {
        PyObject *outcome = PyTuple_New(n);
        if (!outcome) {
            Py_DECREF(list);
            goto done;
        }
        for (Py_ssize_t k = 0; k < n; k++) {
            PyObject *value = PyLong_FromLongLong(won[r * n + k]);
            if (!value) {
                Py_DECREF(outcome);
                Py_DECREF(list);
                goto done;
            }
            PyTuple_SET_ITEM(outcome, k, value);
        }
        PyList_SET_ITEM(list, r, outcome);
    }
    result = list;
done:
    Py_XDECREF(entries);
    PyMem_Free(policies);
    PyMem_Free(seeds);
    PyMem_Free(won);
    search_buffers_free(&buffers);
    return result;
}

PyObject *er_sample_deals(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds) {
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
    game_t g;
    if (er_hidden_args(hidden, seat, hand, counts, pile_count, unknown_arg, weights, &unknown) < 0 ||
        er_ll_arg(samples_arg, "samples", &samples) < 0) {
        goto done;
    }
    if (samples < 0) {
        PyErr_Format(PyExc_ValueError, "samples must not be negative, not %lld", samples);
        goto done;
    }
    if (er_seed_arg(seed_obj, &seed) < 0) {
        goto done;
    }
    if (!(list = PyList_New(0))) {
        goto done;
    }
    rng.state = seed;
    memset(&g, 0, sizeof(g));
    for (long long i = 0; i < samples; i++) {
        er_deal_hidden(hidden, &rng, &g);
        g.hands[hidden->seat] = hidden->hand;
        uint64_t playout_seed = sm_next(&rng);
        PyObject *hands = PyTuple_New(hidden->players), *pile = PyTuple_New(g.pile_len), *item = NULL;
        int ok = hands && pile;
        for (int s = 0; ok && s < hidden->players; s++) {
            PyObject *mask = er_mask_to_pylong(g.hands[s]);
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

PyObject *er_playout(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds) {
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
    if (er_rules_args(colors_arg, max_draws_arg, &colors, &max_draws) < 0) {
        return NULL;
    }
    PyObject *seq = er_int_seq(hands_arg, "hands");
    if (!seq) {
        return NULL;
    }
    Py_ssize_t players = PySequence_Fast_GET_SIZE(seq);
    mask_t hands[MAX_PLAYERS];
    for (Py_ssize_t s = 0; s < players; s++) {
        mask_t mask;
        if (er_mask_arg(PySequence_Fast_GET_ITEM(seq, s), "a hand", &mask) < 0) {
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
    Py_ssize_t pile_len = er_int_items(pile_arg, "pile", "an item of pile", pile_items, DECK + 1);
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
        seen = mask_or(seen, ER_BITS[pile_items[i]]);
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
    if (er_ll_arg(turn_arg, "turn", &turn) < 0) {
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
    er_hidden_prepare(hidden);
    game_t g;
    int8_t policy_ids[MAX_PLAYERS];
    uint64_t seed;
    PyObject *result = NULL;
    if (er_root_args(&g, hidden, unknown, fit, laid, draws, last_drawn, colors_arg, max_draws_arg, must_play,
                  ends_after_draw) < 0 ||
        er_policies_arg(policies, (int)players, policy_ids) < 0 || er_seed_arg(seed_obj, &seed) < 0) {
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
    int status = er_sim_run(&g, policy_ids, &rng, &actions, trace);
    if (status != RUN_OK) {
        er_run_error(status);
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
    mask_t elevens = er_elevens_mask(MAX_COLORS);
    for (long long game = 0; game < games; game++) {
        game_t g;
        mask_t hands[MAX_PLAYERS];
        int8_t deck[DECK];
        int any;
        do {
            for (int i = 0; i < DECK; i++) {
                deck[i] = (int8_t)i;
            }
            sm_shuffle(deck, DECK, &rng);
            for (int s = 0; s < players; s++) {
                mask_t hand = {0, 0};
                for (int i = s * size; i < (s + 1) * size; i++) {
                    hand = mask_or(hand, ER_BITS[deck[i]]);
                }
                hands[s] = hand;
            }
            any = 0;
            for (int s = 0; s < players; s++) {
                any |= !mask_empty(mask_and(hands[s], elevens));
            }
        } while (!any);
        /* the classic rules: four colours, up to 3 draws, no must-play, a drawn card laid ends the turn */
        er_game_start(&g, players, hands, deck + dealt, DECK - dealt, MAX_COLORS, 3, 0, 1);
        int status = er_sim_run(&g, policies, &rng, actions, NULL);
        if (status != RUN_OK) {
            return status;
        }
    }
    return RUN_OK;
}

PyObject *er_random_playouts(PyObject *Py_UNUSED(module), PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"games", "players", "seed", "policy", NULL};
    PyObject *games_arg, *players_arg, *seed_obj, *policy_arg = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOO|O:random_playouts", kwlist, &games_arg, &players_arg,
                                     &seed_obj, &policy_arg)) {
        return NULL;
    }
    long long games, players, policy = POLICY_RANDOM;
    uint64_t seed;
    if (er_ll_arg(games_arg, "games", &games) < 0 || er_ll_arg(players_arg, "players", &players) < 0) {
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
    if (policy_arg && er_ll_arg(policy_arg, "an item of policies", &policy) < 0) {
        return NULL;
    }
    if (policy < POLICY_RANDOM || policy > POLICY_LAST) {
        PyErr_Format(PyExc_ValueError, "a policy must be " POLICY_NAMES ", not %lld", policy);
        return NULL;
    }
    if (er_seed_arg(seed_obj, &seed) < 0) {
        return NULL;
    }
    long long actions = 0;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = playouts_run(games, (int)players, (int)policy, seed, &actions);
    Py_END_ALLOW_THREADS
    if (status != RUN_OK) {
        er_run_error(status);
        return NULL;
    }
    return Py_BuildValue("(LL)", games, actions);
}
