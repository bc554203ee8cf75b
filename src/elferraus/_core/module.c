/* The module elferraus._core: its function table and its initialisation
 * (the card tables, the move objects of elferraus.moves, the CoreState type).
 */

#include "core.h"

static PyMethodDef core_functions[] = {
    {"key_order", er_key_order, METH_O,
     "key_order(data, /)\n--\n\n"
     "The indices of the little-endian unsigned 64-bit keys packed in ``data``, in\n"
     "increasing key order (equal keys by index): exactly\n"
     "``sorted(range(n), key=struct.unpack(f\"<{n}Q\", data).__getitem__)``."},
    {"mask_of", er_mask_of, METH_O,
     "mask_of(indices, /)\n--\n\n"
     "The bitmask of the card indices 0-79 in ``indices``: bit ``i`` set for each ``i``."},
    {"search", (PyCFunction)(void (*)(void))er_search, METH_VARARGS | METH_KEYWORDS,
     "search(*, seat, hand, counts, pile_count, unknown, weights, fit, laid, draws, last_drawn, colors,\n"
     "       max_draws, must_play, ends_after_draw, candidates, policies, samples, seed, time_limit=0.0)\n"
     "--\n\n"
     "Evaluate candidate moves over sampled hidden cards: ``([(wins, playouts, penalty_sum)\n"
     "per candidate], determinizations)``. Exactly :func:`elferraus.rollout.search`; the GIL\n"
     "is released while the playouts run."},
    {"search_rounds", (PyCFunction)(void (*)(void))er_search_rounds, METH_VARARGS | METH_KEYWORDS,
     "search_rounds(*, seat, hand, counts, pile_count, unknown, weights, fit, laid, draws, last_drawn, colors,\n"
     "              max_draws, must_play, ends_after_draw, candidates, schedule)\n"
     "--\n\n"
     "One determinization per ``(policies, seed)`` of ``schedule``: for each, the wins (0 or 1) of every\n"
     "candidate, exactly ``search(policies=policies, samples=1, seed=seed)``. Exactly\n"
     ":func:`elferraus.rollout.search_rounds`; the GIL is released while the playouts run."},
    {"sample_deals", (PyCFunction)(void (*)(void))er_sample_deals, METH_VARARGS | METH_KEYWORDS,
     "sample_deals(*, seat, hand, counts, pile_count, unknown, weights, samples, seed)\n--\n\n"
     "The determinizations ``search`` plays with ``seed``: ``[(hands, pile, playout_seed), ...]``.\n"
     "Exactly :func:`elferraus.rollout.sample_deals`."},
    {"playout", (PyCFunction)(void (*)(void))er_playout, METH_VARARGS | METH_KEYWORDS,
     "playout(*, hands, pile, turn, fit, laid, draws, last_drawn, colors, max_draws, must_play,\n"
     "        ends_after_draw, policies, seed)\n--\n\n"
     "The move codes of one playout from a fully known position to the end.\n"
     "Exactly :func:`elferraus.rollout.playout`."},
    {"random_playouts", (PyCFunction)(void (*)(void))er_random_playouts, METH_VARARGS | METH_KEYWORDS,
     "random_playouts(games, players, seed, policy=0)\n--\n\n"
     "Deal ``games`` classic games of ``players`` and play them out with ``policy`` for every\n"
     "seat: ``(games, actions)``. Exactly :func:`elferraus.rollout.random_playouts`; the GIL\n"
     "is released while the games run."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "elferraus._core",
    .m_doc = "The game's hot core, compiled: CoreState, with the semantics of elferraus._pystate.PyState.",
    .m_size = -1,
    .m_methods = core_functions,
};

PyMODINIT_FUNC PyInit__core(void) {
    er_init_tables();
    if (er_load_moves() < 0) {
        er_clear_moves();
        return NULL;
    }
    if (er_state_ready() < 0 || er_vec_ready() < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&core_module);
    if (!module) {
        return NULL;
    }
    Py_INCREF(&er_state_type);
    if (PyModule_AddObject(module, "CoreState", (PyObject *)&er_state_type) < 0) {
        Py_DECREF(&er_state_type);
        Py_DECREF(module);
        return NULL;
    }
    Py_INCREF(&er_vec_type);
    if (PyModule_AddObject(module, "VecGames", (PyObject *)&er_vec_type) < 0) {
        Py_DECREF(&er_vec_type);
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
