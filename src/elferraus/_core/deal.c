/* The dealing helpers: key_order (the stable sort behind elferraus.deal's
 * shuffle) and mask_of (the bitmask of a hand, for Game.deal).
 */

#include "core.h"

#include <string.h>

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

PyObject *er_key_order(PyObject *Py_UNUSED(module), PyObject *arg) {
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
PyObject *er_mask_of(PyObject *Py_UNUSED(module), PyObject *arg) {
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
        mask = mask_or(mask, ER_BITS[card]);
    }
    Py_DECREF(seq);
    return er_mask_to_pylong(mask);
}
