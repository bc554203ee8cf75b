/* The cards: the tables of card masks and of the cards a lay makes fit,
 * and masks to and from Python ints.
 */

#include "core.h"

mask_t ER_BITS[DECK];
mask_t ER_NEWLY_FITTING[DECK];

void er_init_tables(void) {
    for (int i = 0; i < DECK; i++) {
        ER_BITS[i] = mask_bit(i);
    }
    for (int i = 0; i < DECK; i++) {
        int number = i % NUMBERS + 1;
        mask_t none = {0, 0};
        if (number == ELEVEN) {
            ER_NEWLY_FITTING[i] = mask_or(ER_BITS[i - 1], ER_BITS[i + 1]);
        }
        else if (number < ELEVEN) {
            ER_NEWLY_FITTING[i] = number > 1 ? ER_BITS[i - 1] : none;
        }
        else {
            ER_NEWLY_FITTING[i] = number < NUMBERS ? ER_BITS[i + 1] : none;
        }
    }
}

PyObject *er_mask_to_pylong(mask_t m) {
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
int er_mask_from_pylong(PyObject *value, mask_t *out, const char *what) {
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
