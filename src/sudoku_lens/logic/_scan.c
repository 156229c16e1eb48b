/*
 * The logical solver's unit scans, in C: full houses and hidden singles, naked and hidden
 * subsets, pointing, claiming, locked pairs and triples, the narrow groups of lines that basic
 * fish are made of, the WXYZ- and VWXYZ-wings (an ALS of 3 or 4 cells and a bivalue cell), and
 * each digit's strong links, the chains of two of them (skyscraper, two-string kite, turbot
 * fish) and the empty rectangles; and the walk along chains of almost locked sets.
 *
 * Sudoku Explainer's rating asks for the easiest step at every state of a solving path, so
 * these searches, the first ones tried, run on most states of every puzzle rated, and most of
 * them find nothing. In Python they took over half of the rating time. Here each one takes
 * the state's 81 candidate masks (bit d-1 for digit d, 0 for a filled cell) and returns, in
 * the order the techniques look, only the patterns that prove something; the techniques (in
 * sudoku_lens.logic.patterns) turn each into a step, as they did when they searched.
 *
 * Geometry as in sudoku_lens.logic.units: cells 0-80 row by row; units 0-8 rows, 9-17
 * columns, 18-26 boxes, each with its cells in reading order. A cell set is kept as two 64-bit
 * words (cells 0-63 and 64-80) and given to Python as an int with bit `cell` set.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>

static int UNIT[27][9];
static int CELL_ROW[81], CELL_COL[81], CELL_BOX[81];
static unsigned char BITS[512], LOW[512], HIGH[512];
/* For each 9-bit mask: how many bits are set, the lowest and the highest (0 for 0). */

typedef struct {
    uint64_t lo, hi;
} CellSet;

static CellSet PEER[81];

static void unit_tables(void) {
    for (int i = 0; i < 9; i++) {
        for (int j = 0; j < 9; j++) {
            UNIT[i][j] = 9 * i + j;
            UNIT[9 + i][j] = 9 * j + i;
            UNIT[18 + i][j] = (i / 3 * 3 + j / 3) * 9 + i % 3 * 3 + j % 3;
        }
    }
    for (int cell = 0; cell < 81; cell++) {
        CELL_ROW[cell] = cell / 9;
        CELL_COL[cell] = cell % 9;
        CELL_BOX[cell] = cell / 27 * 3 + cell % 9 / 3;
    }
    for (unsigned mask = 1; mask < 512; mask++) {
        BITS[mask] = (unsigned char)(BITS[mask >> 1] + (mask & 1));
        LOW[mask] = (unsigned char)(mask & 1 ? 0 : LOW[mask >> 1] + 1);
        HIGH[mask] = (unsigned char)(mask >> 1 ? HIGH[mask >> 1] + 1 : 0);
    }
}

static inline int count_bits(unsigned mask) { return BITS[mask]; }

static inline void add_cell(CellSet *set, int cell) {
    if (cell < 64)
        set->lo |= (uint64_t)1 << cell;
    else
        set->hi |= (uint64_t)1 << (cell - 64);
}

static inline int has_cell(CellSet set, int cell) {
    return cell < 64 ? (int)(set.lo >> cell & 1) : (int)(set.hi >> (cell - 64) & 1);
}

static inline CellSet both(CellSet a, CellSet b) {
    CellSet out = {a.lo & b.lo, a.hi & b.hi};
    return out;
}

static void peer_tables(void) {
    for (int cell = 0; cell < 81; cell++) {
        for (int other = 0; other < 81; other++) {
            if (other != cell && (CELL_ROW[other] == CELL_ROW[cell] ||
                                  CELL_COL[other] == CELL_COL[cell] ||
                                  CELL_BOX[other] == CELL_BOX[cell]))
                add_cell(&PEER[cell], other);
        }
    }
}

/* A cell set as a Python int. */
static PyObject *cell_set_object(CellSet set) {
    PyObject *lo = PyLong_FromUnsignedLongLong(set.lo);
    PyObject *hi = PyLong_FromUnsignedLongLong(set.hi);
    PyObject *shift = PyLong_FromLong(64);
    PyObject *out = NULL;
    if (lo && hi && shift) {
        PyObject *high = PyNumber_Lshift(hi, shift);
        if (high) {
            out = PyNumber_Or(high, lo);
            Py_DECREF(high);
        }
    }
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    Py_XDECREF(shift);
    return out;
}

/* Read a sequence of 81 numbers from 0 to `largest` into `out`; 0 on success, -1 with an
 * exception naming them `what`. */
static int read_grid(PyObject *object, unsigned out[81], const char *what, long largest) {
    PyObject *seq = PySequence_Fast(object, "a grid must be a sequence of 81 numbers");
    if (!seq)
        return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 81) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s must be a sequence of 81 numbers", what);
        return -1;
    }
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (int i = 0; i < 81; i++) {
        long value = PyLong_AsLong(items[i]);
        if (value == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (value < 0 || value > largest) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "%s must lie in 0-%ld", what, largest);
            return -1;
        }
        out[i] = (unsigned)value;
    }
    Py_DECREF(seq);
    return 0;
}

/* Read the 81 candidate masks of a state (bit d-1 for digit d). */
static int read_cands(PyObject *object, unsigned cands[81]) {
    return read_grid(object, cands, "candidate masks", 0x1FF);
}

/* Append a new tuple built by Py_BuildValue to `list`; 0 on success. */
static int append_new(PyObject *list, PyObject *item) {
    if (!item)
        return -1;
    int failed = PyList_Append(list, item);
    Py_DECREF(item);
    return failed;
}

static PyObject *int_tuple(const int *values, int count) {
    PyObject *out = PyTuple_New(count);
    if (!out)
        return NULL;
    for (int i = 0; i < count; i++) {
        PyObject *value = PyLong_FromLong(values[i]);
        if (!value) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, value);
    }
    return out;
}

/*
 * The groups of `size` items (key, 9-bit mask) of 2 to `size` bits each whose bits together
 * number `size`, in order of the first item, then the second, and so on; a group grows only
 * while its union stays that narrow, and two items make a pair only with the same bits.
 * Calls found(keys, union, context) for each; stops early when it returns nonzero.
 */
typedef int (*GroupFound)(const int *keys, unsigned bits_union, void *context);

static int narrow_groups(const int *keys, const unsigned *bits, int count, int size,
                         GroupFound found, void *context) {
    int group[4];
    for (int a = 0; a < count; a++) {
        group[0] = keys[a];
        if (size == 2) {
            for (int b = a + 1; b < count; b++) {
                if (bits[b] != bits[a])
                    continue;
                group[1] = keys[b];
                if (found(group, bits[a], context))
                    return -1;
            }
            continue;
        }
        for (int b = a + 1; b < count; b++) {
            unsigned union_b = bits[a] | bits[b];
            if (count_bits(union_b) > size)
                continue;
            group[1] = keys[b];
            for (int c = b + 1; c < count; c++) {
                unsigned union_c = union_b | bits[c];
                int width = count_bits(union_c);
                if (width > size)
                    continue;
                group[2] = keys[c];
                if (size == 3) {
                    if (width == 3 && found(group, union_c, context))
                        return -1;
                    continue;
                }
                for (int d = c + 1; d < count; d++) {
                    unsigned union_d = union_c | bits[d];
                    if (count_bits(union_d) != 4)
                        continue;
                    group[3] = keys[d];
                    if (found(group, union_d, context))
                        return -1;
                }
            }
        }
    }
    return 0;
}

typedef struct {
    int size;
    PyObject *out;
} GroupList;

static int group_listed(const int *keys, unsigned bits_union, void *context) {
    GroupList *list = context;
    PyObject *group = int_tuple(keys, list->size);
    if (!group)
        return -1;
    return append_new(list->out, Py_BuildValue("(NI)", group, bits_union));
}

PyDoc_STRVAR(narrow_groups_doc,
             "narrow_groups(items, size) -> list of (keys, union)\n\n"
             "The groups of `size` (2-4) items (key, bits), bits a 9-bit mask "
             "with 2 to `size` of them set, whose bits together number `size`; groups grow "
             "only while the union stays that narrow, and two items make a pair only with the "
             "same bits. In order of the first item, then the second, and so on.");

static PyObject *py_narrow_groups(PyObject *self, PyObject *args) {
    PyObject *object;
    int size;
    if (!PyArg_ParseTuple(args, "Oi:narrow_groups", &object, &size))
        return NULL;
    if (size < 2 || size > 4) {
        PyErr_SetString(PyExc_ValueError, "size must be 2, 3 or 4");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(object, "items must be a sequence of (key, bits)");
    if (!seq)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    int keys[32];
    unsigned bits[32];
    if (count > 32) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "at most 32 items");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        int mask;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ii", &keys[i], &mask)) {
            Py_DECREF(seq);
            return NULL;
        }
        if (mask < 0 || mask > 0x1FF) {
            Py_DECREF(seq);
            PyErr_SetString(PyExc_ValueError, "a mask must lie in 0-511");
            return NULL;
        }
        bits[i] = (unsigned)mask;
    }
    Py_DECREF(seq);
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    GroupList list = {size, out};
    if (count >= size && narrow_groups(keys, bits, (int)count, size, group_listed, &list)) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

typedef struct {
    const unsigned *cands;
    int unit;
    int size;
    PyObject *out;
} SubsetSearch;

/* A naked subset (cells of the unit, their digits) that some other cell of the unit loses. */
static int naked_found(const int *cells, unsigned digits, void *context) {
    SubsetSearch *search = context;
    for (int i = 0; i < 9; i++) {
        int cell = UNIT[search->unit][i], member = 0;
        for (int k = 0; k < search->size; k++)
            member |= cells[k] == cell;
        if (member || !(search->cands[cell] & digits))
            continue;
        PyObject *group = int_tuple(cells, search->size);
        if (!group)
            return -1;
        return append_new(search->out,
                          Py_BuildValue("(OiNI)", Py_False, search->unit, group, digits));
    }
    return 0;
}

/* A hidden subset (digits of the unit, the unit positions they fill) whose cells hold another
 * digit. */
static int hidden_found(const int *digits, unsigned positions, void *context) {
    SubsetSearch *search = context;
    unsigned digit_mask = 0;
    for (int i = 0; i < search->size; i++)
        digit_mask |= 1u << (digits[i] - 1);
    CellSet cells = {0, 0};
    int removes = 0;
    for (int i = 0; i < 9; i++) {
        if (!(positions >> i & 1))
            continue;
        int cell = UNIT[search->unit][i];
        add_cell(&cells, cell);
        removes |= (search->cands[cell] & ~digit_mask) != 0;
    }
    if (!removes)
        return 0;
    PyObject *group = int_tuple(digits, search->size);
    if (!group)
        return -1;
    PyObject *set = cell_set_object(cells);
    if (!set) {
        Py_DECREF(group);
        return -1;
    }
    return append_new(search->out, Py_BuildValue("(OiNN)", Py_True, search->unit, group, set));
}

PyDoc_STRVAR(subset_groups_doc,
             "subset_groups(cands, size) -> list of (hidden, unit, keys, union)\n\n"
             "The naked and hidden subsets of `size` (2-4) that remove a candidate, unit by unit "
             "and in each unit the naked ones first: for a naked subset the cells and their "
             "digit mask, for a hidden one the digits and their cell set. Units with `size` or "
             "fewer empty cells, or two or fewer, are skipped.");

static PyObject *py_subset_groups(PyObject *self, PyObject *args) {
    PyObject *object;
    int size;
    unsigned cands[81];
    if (!PyArg_ParseTuple(args, "Oi:subset_groups", &object, &size))
        return NULL;
    if (size < 2 || size > 4) {
        PyErr_SetString(PyExc_ValueError, "size must be 2, 3 or 4");
        return NULL;
    }
    if (read_cands(object, cands))
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    SubsetSearch search = {cands, 0, size, out};
    for (int unit = 0; unit < 27; unit++) {
        int cell_keys[9], digit_keys[9], empty = 0, cell_count = 0, digit_count = 0;
        unsigned cell_bits[9], digit_bits[9], places[9] = {0};
        for (int i = 0; i < 9; i++) {
            unsigned mask = cands[UNIT[unit][i]];
            int width = count_bits(mask);
            if (!width)
                continue;
            empty++;
            if (width >= 2 && width <= size) {
                cell_keys[cell_count] = UNIT[unit][i];
                cell_bits[cell_count++] = mask;
            }
            for (int d = 0; d < 9; d++)
                places[d] |= (mask >> d & 1) << i;
        }
        if (empty <= 2 || empty <= size)
            continue;
        for (int d = 0; d < 9; d++) {
            int width = count_bits(places[d]);
            if (width >= 2 && width <= size) {
                digit_keys[digit_count] = d + 1;
                digit_bits[digit_count++] = places[d];
            }
        }
        search.unit = unit;
        if (cell_count >= size &&
            narrow_groups(cell_keys, cell_bits, cell_count, size, naked_found, &search))
            goto fail;
        if (digit_count >= size &&
            narrow_groups(digit_keys, digit_bits, digit_count, size, hidden_found, &search))
            goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* The cells of unit `unit` where digit `d` (0-8) is a candidate, as positions 0-8. */
static unsigned unit_places(const unsigned cands[81], int unit, int d) {
    unsigned places = 0;
    for (int i = 0; i < 9; i++)
        places |= (cands[UNIT[unit][i]] >> d & 1) << i;
    return places;
}

/* Whether digit `d` (0-8) is a candidate of a cell of `unit` outside unit `other`. */
static int outside(const unsigned cands[81], int unit, int other, int d) {
    for (int i = 0; i < 9; i++) {
        int cell = UNIT[unit][i];
        int in_other = other < 9 ? CELL_ROW[cell] == other
                       : other < 18 ? CELL_COL[cell] == other - 9
                                    : CELL_BOX[cell] == other - 18;
        if (!in_other && cands[cell] >> d & 1)
            return 1;
    }
    return 0;
}

PyDoc_STRVAR(hidden_singles_doc,
             "hidden_singles(cands) -> list of (unit, cell, digit)\n\n"
             "Each digit with one place left in a unit: the boxes first (units 18-26), then the "
             "rows and columns (0-17), each unit's digits in increasing order.");

static PyObject *py_hidden_singles(PyObject *self, PyObject *object) {
    unsigned cands[81];
    if (read_cands(object, cands))
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    for (int k = 0; k < 27; k++) {
        int unit = (k + 18) % 27;
        for (int d = 0; d < 9; d++) {
            unsigned places = unit_places(cands, unit, d);
            if (count_bits(places) == 1 &&
                append_new(out, Py_BuildValue("(iii)", unit, UNIT[unit][LOW[places]], d + 1))) {
                Py_DECREF(out);
                return NULL;
            }
        }
    }
    return out;
}

PyDoc_STRVAR(full_houses_doc,
             "full_houses(values, cands) -> list of (unit, cell, digit)\n\n"
             "Each unit with one empty cell left (value 0) whose one candidate is `digit`, "
             "units in increasing order.");

static PyObject *py_full_houses(PyObject *self, PyObject *args) {
    PyObject *values_object, *cands_object;
    unsigned values[81], cands[81];
    if (!PyArg_ParseTuple(args, "OO:full_houses", &values_object, &cands_object))
        return NULL;
    if (read_grid(values_object, values, "values", 9) || read_cands(cands_object, cands))
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    for (int unit = 0; unit < 27; unit++) {
        int empty = 0, last = 0;
        for (int i = 0; i < 9; i++) {
            if (!values[UNIT[unit][i]]) {
                empty++;
                last = UNIT[unit][i];
            }
        }
        if (empty != 1 || count_bits(cands[last]) != 1)
            continue;
        if (append_new(out, Py_BuildValue("(iii)", unit, last, LOW[cands[last]] + 1))) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* The unit of the other kind that holds every place (positions 0-8 in `unit`, two or more):
 * for a box, the row or else the column they lie in; for a row or column, the box; -1 when
 * they lie in none. */
static int holding_unit(int unit, unsigned places) {
    int first = UNIT[unit][LOW[places]], last = UNIT[unit][HIGH[places]];
    if (unit < 18)
        return CELL_BOX[first] == CELL_BOX[last] ? 18 + CELL_BOX[first] : -1;
    if (CELL_ROW[first] == CELL_ROW[last])
        return CELL_ROW[first];
    if ((places & ~(0x49u << LOW[places] % 3)) == 0)
        return 9 + CELL_COL[first];
    return -1;
}

/* (unit, other, digit) for units `first` to `last` - 1 and each digit whose two or more places
 * in the unit lie in one unit of the other kind (`holding_unit`) that holds it outside the unit
 * too: pointing for boxes, claiming for rows and columns. */
static PyObject *confined(PyObject *object, int first, int last) {
    unsigned cands[81];
    if (read_cands(object, cands))
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    for (int unit = first; unit < last; unit++) {
        for (int d = 0; d < 9; d++) {
            unsigned places = unit_places(cands, unit, d);
            if (count_bits(places) < 2)
                continue;
            int other = holding_unit(unit, places);
            if (other >= 0 && outside(cands, other, unit, d) &&
                append_new(out, Py_BuildValue("(iii)", unit, other, d + 1))) {
                Py_DECREF(out);
                return NULL;
            }
        }
    }
    return out;
}

PyDoc_STRVAR(pointings_doc,
             "pointings(cands) -> list of (box, line, digit)\n\n"
             "Each digit whose two or more places in a box lie in one row or column that holds "
             "it outside the box too, box by box (units 18-26), then digit by digit.");

static PyObject *py_pointings(PyObject *self, PyObject *object) {
    return confined(object, 18, 27);
}

PyDoc_STRVAR(claimings_doc,
             "claimings(cands) -> list of (line, box, digit)\n\n"
             "Each digit whose two or more places in a row or column lie in one box that holds "
             "it outside the line too, line by line (units 0-17), then digit by digit.");

static PyObject *py_claimings(PyObject *self, PyObject *object) {
    return confined(object, 0, 18);
}

PyDoc_STRVAR(locked_groups_doc,
             "locked_groups(cands, size) -> list of (box, line, cells, digits)\n\n"
             "The `size` (2 or 3) cells of a box-line intersection holding `size` digits "
             "between them (each cell two or more) that the box or the line holds elsewhere: "
             "box by box, its three rows and then its three columns, pairs in cell order.");

static PyObject *py_locked_groups(PyObject *self, PyObject *args) {
    PyObject *object;
    int size;
    unsigned cands[81];
    if (!PyArg_ParseTuple(args, "Oi:locked_groups", &object, &size))
        return NULL;
    if (size != 2 && size != 3) {
        PyErr_SetString(PyExc_ValueError, "size must be 2 or 3");
        return NULL;
    }
    if (read_cands(object, cands))
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    for (int b = 0; b < 9; b++) {
        int lines[6] = {b / 3 * 3, b / 3 * 3 + 1, b / 3 * 3 + 2,
                        9 + b % 3 * 3, 10 + b % 3 * 3, 11 + b % 3 * 3};
        for (int l = 0; l < 6; l++) {
            int line = lines[l], empty[3], count = 0;
            for (int i = 0; i < 9; i++) {
                int cell = UNIT[line][i];
                if (CELL_BOX[cell] == b && count_bits(cands[cell]) >= 2)
                    empty[count++] = cell;
            }
            if (count < size)
                continue;
            int groups[3][3], group_count = 0;
            if (size == 3) {
                groups[0][0] = empty[0], groups[0][1] = empty[1], groups[0][2] = empty[2];
                group_count = 1;
            } else {
                for (int i = 0; i < count; i++)
                    for (int j = i + 1; j < count; j++) {
                        groups[group_count][0] = empty[i];
                        groups[group_count++][1] = empty[j];
                    }
            }
            for (int g = 0; g < group_count; g++) {
                unsigned digits = 0;
                for (int k = 0; k < size; k++)
                    digits |= cands[groups[g][k]];
                if (count_bits(digits) != size)
                    continue;
                int removes = 0;
                int units[2] = {18 + b, line};
                for (int u = 0; u < 2 && !removes; u++) {
                    for (int i = 0; i < 9; i++) {
                        int cell = UNIT[units[u]][i], member = 0;
                        for (int k = 0; k < size; k++)
                            member |= groups[g][k] == cell;
                        if (!member && cands[cell] & digits) {
                            removes = 1;
                            break;
                        }
                    }
                }
                if (!removes)
                    continue;
                PyObject *cells = int_tuple(groups[g], size);
                if (!cells ||
                    append_new(out, Py_BuildValue("(iiNI)", 18 + b, line, cells, digits))) {
                    Py_DECREF(out);
                    return NULL;
                }
            }
        }
    }
    return out;
}

/* The cells of the ALS `cells` (count `size`) holding digit `d` (0-8) all see: their common
 * peers, the ALS's own cells left out. */
static CellSet common_peers(const unsigned cands[81], const int *cells, int size, int d) {
    CellSet seen = {~(uint64_t)0, ~(uint64_t)0};
    for (int k = 0; k < size; k++)
        if (cands[cells[k]] >> d & 1)
            seen = both(seen, PEER[cells[k]]);
    for (int k = 0; k < size; k++) {
        if (cells[k] < 64)
            seen.lo &= ~((uint64_t)1 << cells[k]);
        else
            seen.hi &= ~((uint64_t)1 << (cells[k] - 64));
    }
    return seen;
}

typedef struct {
    const unsigned *cands;
    CellSet digit_cells[9];
    int bivalue[81], bivalue_count;
    PyObject *out;
} WingSearch;

/* Every bivalue cell {x, z} outside the ALS `cells` of `unit` that sees all its x, with z among
 * its digits, and the cells holding z that see it and all the ALS's z: one record each. */
static int wings_of(WingSearch *search, int unit, const int *cells, int size) {
    const unsigned *cands = search->cands;
    unsigned mask = 0;
    int largest = 0;
    CellSet members = {0, 0};
    for (int k = 0; k < size; k++) {
        mask |= cands[cells[k]];
        if (count_bits(cands[cells[k]]) > largest)
            largest = count_bits(cands[cells[k]]);
        add_cell(&members, cells[k]);
    }
    PyObject *members_object = NULL;
    for (int x = 0; x < 9; x++) {
        if (!(mask >> x & 1))
            continue;
        CellSet seers = both(common_peers(cands, cells, size, x), search->digit_cells[x]);
        for (int i = 0; i < search->bivalue_count; i++) {
            int cell = search->bivalue[i];
            unsigned pair = cands[cell];
            if (!has_cell(seers, cell) || pair & ~mask)
                continue;
            int z = LOW[pair & ~(1u << x)];
            CellSet targets = both(both(search->digit_cells[z], PEER[cell]),
                                   common_peers(cands, cells, size, z));
            if (!targets.lo && !targets.hi)
                continue;
            if (!members_object && !(members_object = cell_set_object(members)))
                return -1;
            PyObject *targets_object = cell_set_object(targets);
            if (!targets_object ||
                append_new(search->out, Py_BuildValue("(iOiiiiN)", largest, members_object, unit,
                                                      cell, x + 1, z + 1, targets_object))) {
                Py_DECREF(members_object);
                return -1;
            }
        }
    }
    Py_XDECREF(members_object);
    return 0;
}

PyDoc_STRVAR(bivalue_wings_doc,
             "bivalue_wings(cands, size) -> list of (largest, cells, unit, cell, x, z, targets)\n\n"
             "ALS-XZ between an ALS of `size` (3 or 4) cells and a bivalue cell: `size` cells "
             "of a unit holding `size` + 1 digits (`cells`, a cell set, in the first unit "
             "that holds them: a row or column before a box), and a cell outside them with two "
             "digits x and z, both of the ALS, that sees every x of it; `targets` are the cells "
             "holding z that see the bivalue cell and every z of the ALS (never empty), "
             "`largest` the most digits of one ALS cell. Unit by unit, each unit's cell "
             "combinations in order, then x and the bivalue cell in increasing order.");

static PyObject *py_bivalue_wings(PyObject *self, PyObject *args) {
    PyObject *object;
    int size;
    if (!PyArg_ParseTuple(args, "Oi:bivalue_wings", &object, &size))
        return NULL;
    if (size != 3 && size != 4) {
        PyErr_SetString(PyExc_ValueError, "size must be 3 or 4");
        return NULL;
    }
    unsigned cands[81];
    if (read_cands(object, cands))
        return NULL;
    WingSearch search;
    search.cands = cands;
    search.bivalue_count = 0;
    for (int d = 0; d < 9; d++)
        search.digit_cells[d].lo = search.digit_cells[d].hi = 0;
    for (int cell = 0; cell < 81; cell++) {
        for (int d = 0; d < 9; d++)
            if (cands[cell] >> d & 1)
                add_cell(&search.digit_cells[d], cell);
        if (count_bits(cands[cell]) == 2)
            search.bivalue[search.bivalue_count++] = cell;
    }
    if (!(search.out = PyList_New(0)))
        return NULL;
    for (int unit = 0; unit < 27; unit++) {
        int usable[9], count = 0;
        for (int i = 0; i < 9; i++) {
            int width = count_bits(cands[UNIT[unit][i]]);
            if (width >= 1 && width <= size + 1)
                usable[count++] = UNIT[unit][i];
        }
        int pick[4];
        for (pick[0] = 0; pick[0] < count; pick[0]++)
            for (pick[1] = pick[0] + 1; pick[1] < count; pick[1]++)
                for (pick[2] = pick[1] + 1; pick[2] < count; pick[2]++)
                    for (pick[3] = size == 4 ? pick[2] + 1 : 0; pick[3] < (size == 4 ? count : 1);
                         pick[3]++) {
                        int cells[4];
                        unsigned mask = 0;
                        for (int k = 0; k < size; k++)
                            mask |= cands[cells[k] = usable[pick[k]]];
                        if (count_bits(mask) != size + 1)
                            continue;
                        if (unit >= 18) { /* in one row or column: found there first */
                            int row = 1, col = 1;
                            for (int k = 1; k < size; k++) {
                                row &= CELL_ROW[cells[k]] == CELL_ROW[cells[0]];
                                col &= CELL_COL[cells[k]] == CELL_COL[cells[0]];
                            }
                            if (row || col)
                                continue;
                        }
                        if (wings_of(&search, unit, cells, size)) {
                            Py_DECREF(search.out);
                            return NULL;
                        }
                    }
    }
    return search.out;
}

typedef struct {
    int a, b, unit;
} StrongLink;

/* The strong links of digit `d` (0-8): units with exactly two places for it, as (lower cell,
 * higher cell, unit), units in increasing order, a pair met again in a later unit (a row or
 * column pair in one box) left out. Returns how many (at most 27). */
static int links_of(const unsigned cands[81], int d, StrongLink links[27]) {
    int count = 0;
    for (int unit = 0; unit < 27; unit++) {
        unsigned places = unit_places(cands, unit, d);
        if (count_bits(places) != 2)
            continue;
        int a = UNIT[unit][LOW[places]], b = UNIT[unit][HIGH[places]];
        if (a > b) {
            int t = a;
            a = b;
            b = t;
        }
        int seen = 0;
        for (int k = 0; k < count && !seen; k++)
            seen = links[k].a == a && links[k].b == b;
        if (!seen) {
            links[count].a = a;
            links[count].b = b;
            links[count++].unit = unit;
        }
    }
    return count;
}

PyDoc_STRVAR(strong_links_doc,
             "strong_links(cands) -> list of 10 lists of (cell, cell, unit)\n\n"
             "For each digit (index 0 empty), its strong links: the units with exactly two "
             "places for it, as (lower cell, higher cell, unit), units in increasing order, a "
             "pair already met in an earlier unit left out.");

static PyObject *py_strong_links(PyObject *self, PyObject *object) {
    unsigned cands[81];
    if (read_cands(object, cands))
        return NULL;
    PyObject *out = PyList_New(10);
    if (!out)
        return NULL;
    for (int digit = 0; digit < 10; digit++) {
        StrongLink links[27];
        int count = digit ? links_of(cands, digit - 1, links) : 0;
        PyObject *list = PyList_New(count);
        if (!list) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, digit, list);
        for (int k = 0; k < count; k++) {
            PyObject *link = Py_BuildValue("(iii)", links[k].a, links[k].b, links[k].unit);
            if (!link) {
                Py_DECREF(out);
                return NULL;
            }
            PyList_SET_ITEM(list, k, link);
        }
    }
    return out;
}

enum { NO_SHAPE, SKYSCRAPER, KITE, TURBOT };

/* Which name the chain a1=a2-b1=b2 (strong links in units u1, u2) goes by; NO_SHAPE for two
 * parallel links whose both ends line up (an x-wing, not a chain). */
static int chain_shape(int a1, int a2, int u1, int b1, int b2, int u2) {
    int k1 = u1 / 9, k2 = u2 / 9;
    if (k1 == 0 && k2 == 0 && CELL_COL[a2] == CELL_COL[b1])
        return CELL_COL[a1] == CELL_COL[b2] ? NO_SHAPE : SKYSCRAPER;
    if (k1 == 1 && k2 == 1 && CELL_ROW[a2] == CELL_ROW[b1])
        return CELL_ROW[a1] == CELL_ROW[b2] ? NO_SHAPE : SKYSCRAPER;
    if (((k1 == 0 && k2 == 1) || (k1 == 1 && k2 == 0)) && CELL_BOX[a2] == CELL_BOX[b1] &&
        CELL_BOX[a1] != CELL_BOX[a2] && CELL_BOX[b2] != CELL_BOX[b1])
        return KITE;
    return TURBOT;
}

PyDoc_STRVAR(two_link_chains_doc,
             "two_link_chains(cands) -> list of (shape, digit, a1, a2, u1, b1, b2, u2, removed)\n\n"
             "Every chain a1=a2-b1=b2 of two strong links of one digit (in units u1 and u2) "
             "whose inner ends see each other, with the cells holding the digit that see both "
             "outer ends (`removed`, a cell set, never empty); shape 1 skyscraper, 2 two-string "
             "kite, 3 turbot fish. Digit by digit; for each link in `strong_links` order, each "
             "end as a2 in turn, b1 in increasing order and the second link after the first.");

static PyObject *py_two_link_chains(PyObject *self, PyObject *object) {
    unsigned cands[81];
    if (read_cands(object, cands))
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    for (int d = 0; d < 9; d++) {
        StrongLink links[27];
        int count = links_of(cands, d, links);
        if (count < 2)
            continue;
        int is_end[81] = {0}, ends[54], end_count = 0;
        for (int k = 0; k < count; k++)
            is_end[links[k].a] = is_end[links[k].b] = 1;
        for (int cell = 0; cell < 81; cell++)
            if (is_end[cell])
                ends[end_count++] = cell;
        for (int k = 0; k < count; k++) {
            for (int side = 0; side < 2; side++) {
                int a1 = side ? links[k].b : links[k].a, a2 = side ? links[k].a : links[k].b;
                for (int e = 0; e < end_count; e++) {
                    int b1 = ends[e];
                    if (b1 == a1 || !has_cell(PEER[a2], b1))
                        continue;
                    for (int m = k + 1; m < count; m++) {
                        int b2 = links[m].a == b1 ? links[m].b : links[m].b == b1 ? links[m].a : -1;
                        if (b2 < 0 || b2 == a1 || b2 == a2)
                            continue;
                        CellSet removed = {0, 0};
                        for (int cell = 0; cell < 81; cell++)
                            if (cands[cell] >> d & 1 && cell != a2 && cell != b1 &&
                                has_cell(PEER[a1], cell) && has_cell(PEER[b2], cell))
                                add_cell(&removed, cell);
                        if (!removed.lo && !removed.hi)
                            continue;
                        int shape = chain_shape(a1, a2, links[k].unit, b1, b2, links[m].unit);
                        if (shape == NO_SHAPE)
                            continue;
                        PyObject *removed_object = cell_set_object(removed);
                        if (!removed_object ||
                            append_new(out, Py_BuildValue("(iiiiiiiiN)", shape, d + 1, a1, a2,
                                                          links[k].unit, b1, b2, links[m].unit,
                                                          removed_object))) {
                            Py_DECREF(out);
                            return NULL;
                        }
                    }
                }
            }
        }
    }
    return out;
}

PyDoc_STRVAR(empty_rectangles_doc,
             "empty_rectangles(cands) -> list of (digit, box, row, col, p, q, unit, target)\n\n"
             "Each box (0-8) whose two or more places for a digit all lie in one of its rows and "
             "one of its columns (`row`, `col`: 0-8), not in one alone, with a strong link p=q "
             "outside the box in a column `unit` with p in `row` (target: q's row, `col`) or in "
             "a row `unit` with p in `col` (target: `row`, q's column), `target` holding the "
             "digit outside the box. Digit by digit, box by box, the box's rows in order, the "
             "row and column links in `strong_links` order, each end as p in turn.");

static PyObject *py_empty_rectangles(PyObject *self, PyObject *object) {
    unsigned cands[81];
    if (read_cands(object, cands))
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    for (int d = 0; d < 9; d++) {
        StrongLink all[27], links[27];
        int all_count = links_of(cands, d, all), count = 0;
        for (int k = 0; k < all_count; k++)
            if (all[k].unit < 18)
                links[count++] = all[k];
        if (!count)
            continue;
        for (int box = 0; box < 9; box++) {
            unsigned places = unit_places(cands, 18 + box, d);
            if (count_bits(places) < 2)
                continue;
            for (int r = 0; r < 3; r++) {
                unsigned rest = places & ~(7u << 3 * r);
                if (!rest)
                    continue;
                unsigned column = 0x49u << LOW[rest] % 3;
                if (rest & ~column || !(places & ~column))
                    continue;
                int row = box / 3 * 3 + r, col = box % 3 * 3 + LOW[rest] % 3;
                for (int k = 0; k < count; k++) {
                    for (int side = 0; side < 2; side++) {
                        int p = side ? links[k].b : links[k].a, q = side ? links[k].a : links[k].b;
                        if (CELL_BOX[p] == box || CELL_BOX[q] == box)
                            continue;
                        int target;
                        if (links[k].unit >= 9 && CELL_ROW[p] == row)
                            target = CELL_ROW[q] * 9 + col;
                        else if (links[k].unit < 9 && CELL_COL[p] == col)
                            target = row * 9 + CELL_COL[q];
                        else
                            continue;
                        if (!(cands[target] >> d & 1) || CELL_BOX[target] == box)
                            continue;
                        if (append_new(out, Py_BuildValue("(iiiiiiii)", d + 1, box, row, col, p,
                                                          q, links[k].unit, target))) {
                            Py_DECREF(out);
                            return NULL;
                        }
                    }
                }
            }
        }
    }
    return out;
}

/*
 * ALS-XY-chains: chains of almost locked sets A1 -x1- A2 -x2- ... An, each sharing a
 * restricted common candidate with the next, consecutive ones different. If A1 does not hold
 * z it is locked, so x1 is in A1, A2 holds no x1 and is locked, and so on to An, which holds z
 * when z is neither x1 nor the last RCC: one of the ends holds z. The ALS, their links and
 * what they see are gathered in Python (sudoku_lens.logic.patterns.als); this walks the
 * chains, which on a hard state number in the hundreds of thousands.
 */
typedef struct {
    CellSet cells;
    CellSet seers[9]; /* for each digit, the cells that see all the set's cells holding it */
    unsigned mask;    /* its digits */
    unsigned useful;  /* digits z some cell outside could lose: held where it sees them all */
    int size;
    int first_link, links; /* its links: LINK_TO/LINK_DIGIT[first_link ...] */
} ChainSet;

typedef struct {
    ChainSet *sets;
    int *link_to, *link_digit; /* digit 1-9 */
    CellSet digit_cells[9];
    /* For the chain's first set: each set's digits z (bit z-1) whose eliminations both sets
     * would make as the chain's two ends (0 for the sets before the first, which a chain found
     * from its lower end never ends at), and the links that lead to such a set, in link order:
     * the last set of a chain is looked for among those alone. */
    unsigned *ends;
    int *end_first, *end_count, *end_links;
    /* For the same first set and RCC, the fewest links from each set, reached over each digit
     * (index set * 9 + digit - 1), to a possible last one (a bound: whether a set is met twice
     * is not looked at), so that a chain too short to get there is not walked on; the links
     * into each set (their indices), the set each link leaves, and a queue of those states. */
    int *distance, *into_first, *into_count, *into, *link_from, *queue;
    int covered, most_sets;
    int path[16], rccs[16], length;
    uint64_t *seen; /* open addressing table of elimination sets already given */
    int seen_slots, seen_count;
    PyObject *out;
} ChainWalk;

#define ELIMINATION_WORDS 12 /* 729 bits: bit cell * 9 + digit - 1 */

static uint64_t hash_words(const uint64_t *words) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < ELIMINATION_WORDS; i++) {
        h ^= words[i];
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    return h;
}

/* Note an elimination set; 1 when it is new, 0 when given before, -1 on failure. */
static int first_time(ChainWalk *walk, const uint64_t *words) {
    if (2 * (walk->seen_count + 1) > walk->seen_slots) {
        int slots = walk->seen_slots ? 2 * walk->seen_slots : 256;
        uint64_t *table = calloc((size_t)slots * (ELIMINATION_WORDS + 1), sizeof(uint64_t));
        if (!table) {
            PyErr_NoMemory();
            return -1;
        }
        for (int i = 0; i < walk->seen_slots; i++) {
            uint64_t *old = walk->seen + (size_t)i * (ELIMINATION_WORDS + 1);
            if (!old[0])
                continue;
            size_t slot = hash_words(old + 1) & (size_t)(slots - 1);
            while (table[slot * (ELIMINATION_WORDS + 1)])
                slot = (slot + 1) & (size_t)(slots - 1);
            memcpy(table + slot * (ELIMINATION_WORDS + 1), old,
                   (ELIMINATION_WORDS + 1) * sizeof(uint64_t));
        }
        free(walk->seen);
        walk->seen = table;
        walk->seen_slots = slots;
    }
    size_t mask = (size_t)(walk->seen_slots - 1);
    size_t slot = hash_words(words) & mask;
    for (;;) {
        uint64_t *entry = walk->seen + slot * (ELIMINATION_WORDS + 1);
        if (!entry[0]) {
            entry[0] = 1;
            memcpy(entry + 1, words, ELIMINATION_WORDS * sizeof(uint64_t));
            walk->seen_count++;
            return 1;
        }
        if (!memcmp(entry + 1, words, ELIMINATION_WORDS * sizeof(uint64_t)))
            return 0;
        slot = (slot + 1) & mask;
    }
}

/* The cells outside both `first` and `end` that see every z of each, as chain ends. */
static CellSet end_targets(const ChainWalk *walk, const ChainSet *first, const ChainSet *end,
                           int d) {
    CellSet targets = both(both(walk->digit_cells[d], first->seers[d]), end->seers[d]);
    targets.lo &= ~(first->cells.lo | end->cells.lo);
    targets.hi &= ~(first->cells.hi | end->cells.hi);
    return targets;
}

/* Fill walk->ends and the links to the possible last sets for chains that start at `start` with
 * the digit x1. */
static void ends_of(ChainWalk *walk, int start, int x1, int count) {
    ChainSet *first = &walk->sets[start];
    for (int e = 0; e < count; e++) {
        walk->ends[e] = 0;
        unsigned zs = e > start ? first->useful & walk->sets[e].useful & ~(1u << (x1 - 1)) : 0;
        for (int d = 0; d < 9; d++) {
            if (zs >> d & 1) {
                CellSet targets = end_targets(walk, first, &walk->sets[e], d);
                if (targets.lo | targets.hi)
                    walk->ends[e] |= 1u << d;
            }
        }
    }
    int at = 0, head = 0, tail = 0;
    for (int i = 0; i < count; i++) {
        ChainSet *set = &walk->sets[i];
        walk->end_first[i] = at;
        for (int k = set->first_link; k < set->first_link + set->links; k++)
            if (walk->ends[walk->link_to[k]])
                walk->end_links[at++] = k;
        walk->end_count[i] = at - walk->end_first[i];
        for (int d = 0; d < 9; d++) { /* a last set reached over d ends a chain with some z != d */
            int state = i * 9 + d;
            walk->distance[state] = walk->ends[i] & ~(1u << d) ? 0 : walk->most_sets;
            if (!walk->distance[state])
                walk->queue[tail++] = state;
        }
    }
    while (head < tail) { /* breadth first from the possible last sets, against the links */
        int state = walk->queue[head++], set = state / 9;
        for (int j = walk->into_first[set]; j < walk->into_first[set] + walk->into_count[set];
             j++) {
            int k = walk->into[j], digit = walk->link_digit[k] - 1;
            if (digit != state % 9)
                continue;
            for (int d = 0; d < 9; d++) { /* the link's set, reached over any other digit */
                int from = walk->link_from[k] * 9 + d;
                if (d != digit && walk->distance[from] > walk->distance[state] + 1) {
                    walk->distance[from] = walk->distance[state] + 1;
                    walk->queue[tail++] = from;
                }
            }
        }
    }
}

/* The chain of walk->path plus `last` over `x`: its eliminations, given when new. */
static int chain_end(ChainWalk *walk, int last, int x) {
    ChainSet *first = &walk->sets[walk->path[0]], *end = &walk->sets[last];
    unsigned zs = walk->ends[last] & ~(1u << (walk->rccs[0] - 1)) & ~(1u << (x - 1));
    if (!zs) /* the common case: the ends' z are too far apart, or only the RCCs */
        return 0;
    CellSet targets[9];
    for (int d = 0; d < 9; d++) {
        targets[d].lo = targets[d].hi = 0;
        if (zs >> d & 1)
            targets[d] = end_targets(walk, first, end, d);
    }
    uint64_t words[ELIMINATION_WORDS] = {0};
    for (int d = 0; d < 9; d++) {
        for (int cell = 0; cell < 81; cell++) {
            if (has_cell(targets[d], cell)) {
                int bit = cell * 9 + d;
                words[bit / 64] |= (uint64_t)1 << (bit % 64);
            }
        }
    }
    int fresh = first_time(walk, words);
    if (fresh <= 0)
        return fresh;
    int n = walk->length;
    walk->path[n] = last;
    PyObject *path = int_tuple(walk->path, n + 1);
    PyObject *rccs = int_tuple(walk->rccs, n);
    PyObject *eliminations = PyList_New(0);
    int failed = !path || !rccs || !eliminations;
    for (int bit = 0; !failed && bit < 729; bit++) {
        if (words[bit / 64] >> (bit % 64) & 1)
            failed = append_new(eliminations, Py_BuildValue("(ii)", bit / 9, bit % 9 + 1));
    }
    if (!failed)
        failed = append_new(walk->out, PyTuple_Pack(3, path, rccs, eliminations));
    Py_XDECREF(path);
    Py_XDECREF(rccs);
    Py_XDECREF(eliminations);
    return failed ? -1 : 0;
}

/* Extend the chain walk->path (whose largest set has `largest` cells) by each link of its last
 * set, depth first, in the order of the links; to its last set (most_sets) by the links that
 * can end it only. */
static int walk_on(ChainWalk *walk, int largest) {
    int n = walk->length, here = walk->path[n - 1];
    int last_set = n + 1 == walk->most_sets;
    int first = last_set ? walk->end_first[here] : walk->sets[here].first_link;
    int stop = first + (last_set ? walk->end_count[here] : walk->sets[here].links);
    for (int j = first; j < stop; j++) {
        int k = last_set ? walk->end_links[j] : j;
        int next = walk->link_to[k], x = walk->link_digit[k];
        int ends_here = n >= 3 && walk->ends[next];
        int reach = walk->most_sets - n - 1; /* sets the chain may take after `next` */
        if (x == walk->rccs[n - 2] || (!ends_here && walk->distance[next * 9 + x - 1] > reach))
            continue;
        int again = 0;
        for (int i = 0; i < n && !again; i++)
            again = walk->path[i] == next;
        if (again)
            continue;
        int size = walk->sets[next].size;
        int wider = size > largest ? size : largest;
        walk->rccs[n - 1] = x;
        if (ends_here && wider > walk->covered && chain_end(walk, next, x) < 0)
            return -1;
        if (!last_set) {
            walk->path[n] = next;
            walk->length = n + 1;
            int failed = walk_on(walk, wider);
            walk->length = n;
            if (failed)
                return -1;
        }
    }
    return 0;
}

static int cell_count(CellSet set) {
    int count = 0;
    for (int i = 0; i < 64; i += 8)
        count += BITS[set.lo >> i & 0xFF] + BITS[set.hi >> i & 0xFF];
    return count;
}

/* A Python int of up to 81 bits as a cell set; -1 with an exception when it is not one. */
static int read_cell_set(PyObject *object, CellSet *out) {
    PyObject *number = PyNumber_Index(object);
    if (!number)
        return -1;
    PyObject *shift = PyLong_FromLong(64);
    PyObject *high = shift ? PyNumber_Rshift(number, shift) : NULL;
    int failed = !high;
    if (!failed) {
        out->lo = PyLong_AsUnsignedLongLongMask(number);
        out->hi = PyLong_AsUnsignedLongLong(high);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            out->hi = 1ULL << 17; /* negative or too large */
        }
        failed = out->hi >> 17 != 0;
        if (failed)
            PyErr_SetString(PyExc_ValueError, "cell sets must lie in 0 to 2**81 - 1");
    }
    Py_DECREF(number);
    Py_XDECREF(shift);
    Py_XDECREF(high);
    return failed ? -1 : 0;
}

PyDoc_STRVAR(
    als_chains_doc,
    "als_chains(sets, links, digit_cells, covered, most_sets) -> list of "
    "(path, rccs, eliminations)\n\n"
    "The ALS-XY-chains of 4 to `most_sets` almost locked sets that remove a candidate. `sets` "
    "holds each ALS as (cells, digits, seers): a cell set (an int, bit `cell`), a 9-bit digit "
    "mask and 10 cell sets, seers[z] the cells that see every cell of the set holding z; "
    "`links[i]` its restricted commons as (other set, digit), `digit_cells` the cells holding "
    "each digit (index 0 unused). A chain never meets a set twice, consecutive digits differ "
    "and one of its sets has more than `covered` cells. Depth first from each set in turn, "
    "each found from its lower end only; of the chains with the same eliminations (cell, z) "
    "only the first. z is a digit of both ends but the first and last RCC; the cells that "
    "lose it see all its cells in both ends.");

static PyObject *py_als_chains(PyObject *self, PyObject *args) {
    PyObject *sets_arg, *links_arg, *digits_arg;
    ChainWalk walk;
    memset(&walk, 0, sizeof walk);
    if (!PyArg_ParseTuple(args, "OOOii:als_chains", &sets_arg, &links_arg, &digits_arg,
                          &walk.covered, &walk.most_sets))
        return NULL;
    if (walk.most_sets < 4 || walk.most_sets > 16) {
        PyErr_SetString(PyExc_ValueError, "most_sets must lie in 4-16");
        return NULL;
    }
    PyObject *sets = PySequence_Fast(sets_arg, "sets must be a sequence");
    PyObject *links = sets ? PySequence_Fast(links_arg, "links must be a sequence") : NULL;
    PyObject *digits = links ? PySequence_Fast(digits_arg, "digit_cells must be a sequence") : NULL;
    PyObject *out = NULL;
    Py_ssize_t count = 0, total = 0;
    if (!digits)
        goto done;
    count = PySequence_Fast_GET_SIZE(sets);
    if (PySequence_Fast_GET_SIZE(links) != count || PySequence_Fast_GET_SIZE(digits) != 10) {
        PyErr_SetString(PyExc_ValueError, "links must match sets, digit_cells have 10 items");
        goto done;
    }
    for (int d = 1; d <= 9; d++)
        if (read_cell_set(PySequence_Fast_GET_ITEM(digits, d), &walk.digit_cells[d - 1]))
            goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t n = PySequence_Size(PySequence_Fast_GET_ITEM(links, i));
        if (n < 0)
            goto done;
        total += n;
    }
    walk.sets = calloc((size_t)count + 1, sizeof(ChainSet));
    walk.link_to = calloc((size_t)total + 1, sizeof(int));
    walk.link_digit = calloc((size_t)total + 1, sizeof(int));
    walk.ends = calloc((size_t)count + 1, sizeof(unsigned));
    walk.end_first = calloc((size_t)count + 1, sizeof(int));
    walk.end_count = calloc((size_t)count + 1, sizeof(int));
    walk.end_links = calloc((size_t)total + 1, sizeof(int));
    walk.distance = calloc((size_t)count * 9 + 1, sizeof(int));
    walk.into_first = calloc((size_t)count + 1, sizeof(int));
    walk.into_count = calloc((size_t)count + 1, sizeof(int));
    walk.into = calloc((size_t)total + 1, sizeof(int));
    walk.link_from = calloc((size_t)total + 1, sizeof(int));
    walk.queue = calloc((size_t)count * 9 + 1, sizeof(int));
    if (!walk.sets || !walk.link_to || !walk.link_digit || !walk.ends || !walk.end_first ||
        !walk.end_count || !walk.end_links || !walk.distance || !walk.into_first ||
        !walk.into_count || !walk.into || !walk.link_from || !walk.queue) {
        PyErr_NoMemory();
        goto done;
    }
    int at = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        ChainSet *set = &walk.sets[i];
        PyObject *cells, *seers;
        unsigned long mask;
        PyObject *item = PySequence_Tuple(PySequence_Fast_GET_ITEM(sets, i));
        if (!item || !PyArg_ParseTuple(item, "OkO", &cells, &mask, &seers)) {
            Py_XDECREF(item);
            goto done;
        }
        PyObject *seer_list = PySequence_Fast(seers, "seers must be a sequence");
        int failed = !seer_list || read_cell_set(cells, &set->cells) || mask > 0x1FF ||
                     PySequence_Fast_GET_SIZE(seer_list) != 10;
        for (int d = 1; d <= 9 && !failed; d++)
            failed = read_cell_set(PySequence_Fast_GET_ITEM(seer_list, d), &set->seers[d - 1]);
        Py_XDECREF(seer_list);
        Py_DECREF(item);
        if (failed) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a set is (cells, 9-bit digits, 10 seers)");
            goto done;
        }
        set->mask = (unsigned)mask;
        set->size = cell_count(set->cells);
        for (int d = 0; d < 9; d++) {
            CellSet reach = both(walk.digit_cells[d], set->seers[d]);
            if (set->mask >> d & 1 && (reach.lo | reach.hi))
                set->useful |= 1u << d;
        }
        PyObject *own = PySequence_Fast(PySequence_Fast_GET_ITEM(links, i), "links");
        if (!own)
            goto done;
        set->first_link = at;
        for (Py_ssize_t k = 0; k < PySequence_Fast_GET_SIZE(own); k++) {
            int to, digit;
            PyObject *link = PySequence_Tuple(PySequence_Fast_GET_ITEM(own, k));
            int parsed = link && PyArg_ParseTuple(link, "ii", &to, &digit);
            Py_XDECREF(link);
            if (!parsed || to < 0 || to >= count || digit < 1 || digit > 9) {
                Py_DECREF(own);
                if (!PyErr_Occurred())
                    PyErr_SetString(PyExc_ValueError, "a link is (set index, digit 1-9)");
                goto done;
            }
            walk.link_to[at] = to;
            walk.link_digit[at++] = digit;
        }
        set->links = at - set->first_link;
        Py_DECREF(own);
    }
    for (int k = 0; k < at; k++) /* the links into each set, grouped by set */
        walk.into_count[walk.link_to[k]]++;
    for (Py_ssize_t i = 1; i < count; i++)
        walk.into_first[i] = walk.into_first[i - 1] + walk.into_count[i - 1];
    for (Py_ssize_t i = 0; i < count; i++) { /* queue[to]: the links into `to` placed so far */
        ChainSet *set = &walk.sets[i];
        for (int k = set->first_link; k < set->first_link + set->links; k++) {
            int to = walk.link_to[k];
            walk.into[walk.into_first[to] + walk.queue[to]++] = k;
            walk.link_from[k] = (int)i;
        }
    }
    if (!(walk.out = PyList_New(0)))
        goto done;
    for (Py_ssize_t i = 0; i < count; i++) {
        ChainSet *start = &walk.sets[i];
        if (!start->useful)
            continue;
        int x1 = 0;
        for (int k = start->first_link; k < start->first_link + start->links; k++) {
            int next = walk.link_to[k];
            if (next == i)
                continue;
            if (walk.link_digit[k] != x1) {
                x1 = walk.link_digit[k];
                ends_of(&walk, (int)i, x1, (int)count);
            }
            walk.path[0] = (int)i;
            walk.path[1] = next;
            walk.rccs[0] = walk.link_digit[k];
            walk.length = 2;
            int largest = start->size > walk.sets[next].size ? start->size : walk.sets[next].size;
            if (walk_on(&walk, largest)) {
                Py_CLEAR(walk.out);
                goto done;
            }
        }
    }
    out = walk.out;
done:
    free(walk.sets);
    free(walk.link_to);
    free(walk.link_digit);
    free(walk.ends);
    free(walk.end_first);
    free(walk.end_count);
    free(walk.end_links);
    free(walk.distance);
    free(walk.into_first);
    free(walk.into_count);
    free(walk.into);
    free(walk.link_from);
    free(walk.queue);
    free(walk.seen);
    Py_XDECREF(sets);
    Py_XDECREF(links);
    Py_XDECREF(digits);
    return out;
}

static PyMethodDef methods[] = {
    {"hidden_singles", py_hidden_singles, METH_O, hidden_singles_doc},
    {"full_houses", py_full_houses, METH_VARARGS, full_houses_doc},
    {"narrow_groups", py_narrow_groups, METH_VARARGS, narrow_groups_doc},
    {"subset_groups", py_subset_groups, METH_VARARGS, subset_groups_doc},
    {"pointings", py_pointings, METH_O, pointings_doc},
    {"claimings", py_claimings, METH_O, claimings_doc},
    {"locked_groups", py_locked_groups, METH_VARARGS, locked_groups_doc},
    {"bivalue_wings", py_bivalue_wings, METH_VARARGS, bivalue_wings_doc},
    {"strong_links", py_strong_links, METH_O, strong_links_doc},
    {"two_link_chains", py_two_link_chains, METH_O, two_link_chains_doc},
    {"empty_rectangles", py_empty_rectangles, METH_O, empty_rectangles_doc},
    {"als_chains", py_als_chains, METH_VARARGS, als_chains_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "sudoku_lens.logic._scan",
    .m_doc = "The logical solver's unit scans (see _scan.c).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__scan(void) {
    unit_tables();
    peer_tables();
    return PyModule_Create(&module);
}
