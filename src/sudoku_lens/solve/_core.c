/*
 * Exact Sudoku solver core for sudoku_lens.solve.
 *
 * The grid is held as 27 bitboards: for every digit d and band b (three rows), a 27-bit word
 * cand[9*b+d] with bit 9*r+c set when digit d can still go in row r (0..2) of the band, column c.
 * Placed digits stay set in their own digit's word and are cleared from every other digit's word.
 *
 * Propagation, repeated to a fixed point:
 *  - within a band, a digit goes exactly once in each of its three rows and three boxes, so the
 *    (row, box) pairs it can use must be part of a perfect matching; a table keeps only those
 *    (hidden singles in boxes, pointing and claiming within the band fall out of this);
 *  - a box whose candidates for the digit lie in one column takes that column away from the other
 *    two bands, and two bands that share two columns of a stack take both from the third (so a
 *    column that one band alone can hold pins that band's box to it: hidden singles in columns);
 *  - a row with one candidate left places the digit (hidden single in a row);
 *  - a cell with one digit left gets it (naked single), a cell with none is a contradiction.
 * Search: depth-first on an unsolved cell with the fewest candidates, ties going to the cell with
 * the most unsolved peers and then to row-major order (so results are deterministic), copying the
 * 264-byte state per branch, until `limit` solutions are found or the tree is exhausted.
 * A few tables, filled once when the module loads, make each rule a handful of operations.
 *
 * encode_rows writes the text rows of a batch's solved puzzles (sudoku_lens.batch.records): a
 * bank of millions cannot afford a Python loop per puzzle, and one pass in C is ten times faster
 * than NumPy's column-by-column writing.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(_MSC_VER)
#include <intrin.h>
#include <windows.h>
static inline int lowest_bit(uint32_t x) {
    unsigned long index;
    _BitScanForward(&index, x);
    return (int)index;
}
static double now_seconds(void) {
    LARGE_INTEGER count, frequency;
    QueryPerformanceCounter(&count);
    QueryPerformanceFrequency(&frequency);
    return (double)count.QuadPart / (double)frequency.QuadPart;
}
#else
#include <time.h>
static inline int lowest_bit(uint32_t x) { return __builtin_ctz(x); }
static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif

#define BAND_ALL 0x7FFFFFFu

typedef struct {
    uint32_t cand[27];     /* cand[9*b+d]: cells of band b where digit d may be */
    uint32_t seen[27];     /* cand[] as it was when last propagated */
    uint32_t unsolved[3];  /* cells of each band with no digit placed yet */
    uint32_t open_rows[9]; /* per digit, bit 3*b+r: row r of band b has no d placed yet */
} Grid;

typedef struct {
    uint64_t limit;
    uint64_t count;
    uint64_t guesses;
    char *first; /* receives the first solution as 81 ASCII digits */
} Search;

static uint8_t row_boxes[512];     /* 9 columns of one row -> boxes (3 bits) holding one */
static uint32_t matching[512];     /* row/box pairs (bit 3*r+box) -> cells of usable pairs */
static uint32_t lone_keep[512];    /* band columns -> clears columns alone in their stack */
static uint32_t pair_keep[512];    /* two bands' columns -> clears stacks' column pairs */
static uint32_t row_cells[8];      /* rows of a band (3 bits) -> their 27 cells */
static uint32_t peer_keep[81][3];  /* per cell, per band: cells left to its digit when placed */

static inline uint32_t columns_of(uint32_t band) {
    return (band | (band >> 9) | (band >> 18)) & 0x1FFu;
}

/* Bits set in x, without a library call where the target has no popcount instruction. */
static inline int bit_count(uint32_t x) {
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0F0F0F0Fu;
    return (int)((x * 0x01010101u) >> 24);
}

static void init_tables(void) {
    static const int perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                    {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (uint32_t m = 0; m < 512; m++) {
        uint32_t boxes = 0, lone = 0, pair = 0;
        for (int s = 0; s < 3; s++) {
            uint32_t part = (m >> (3 * s)) & 7u;
            uint32_t cols = part << (3 * s);
            uint32_t spread = cols | (cols << 9) | (cols << 18);
            if (part) boxes |= 1u << s;
            if (bit_count(part) == 1) lone |= spread;
            if (bit_count(part) == 2) pair |= spread;
        }
        row_boxes[m] = (uint8_t)boxes;
        lone_keep[m] = BAND_ALL & ~lone;
        pair_keep[m] = BAND_ALL & ~pair;
        uint32_t cells = 0;
        for (int p = 0; p < 6; p++) {
            int ok = 1;
            for (int r = 0; r < 3; r++)
                if (!(m & (1u << (3 * r + perms[p][r])))) ok = 0;
            if (ok)
                for (int r = 0; r < 3; r++) cells |= 7u << (9 * r + 3 * perms[p][r]);
        }
        matching[m] = cells;
    }
    for (uint32_t rows = 0; rows < 8; rows++) {
        uint32_t cells = 0;
        for (int r = 0; r < 3; r++)
            if (rows & (1u << r)) cells |= 0x1FFu << (9 * r);
        row_cells[rows] = cells;
    }
    for (int cell = 0; cell < 81; cell++) {
        int band = cell / 27, r = (cell / 9) % 3, c = cell % 9;
        uint32_t column = (1u << c) * 0x40201u;
        for (int b = 0; b < 3; b++) peer_keep[cell][b] = BAND_ALL & ~column;
        uint32_t own = column | (0x1FFu << (9 * r)) | ((7u << (3 * (c / 3))) * 0x40201u);
        peer_keep[cell][band] = (BAND_ALL & ~own) | (1u << (9 * r + c));
    }
}

static void grid_init(Grid *g) {
    for (int i = 0; i < 27; i++) {
        g->cand[i] = BAND_ALL;
        g->seen[i] = 0;
    }
    for (int b = 0; b < 3; b++) g->unsolved[b] = BAND_ALL;
    for (int d = 0; d < 9; d++) g->open_rows[d] = 0x1FFu;
}

/* Place digit d in cell; 0 when the digit cannot go there. */
static inline int place(Grid *g, int d, int cell) {
    int band = cell / 27;
    uint32_t bit = 1u << (cell % 27);
    if (!(g->cand[9 * band + d] & bit)) return 0;
    g->cand[d] &= peer_keep[cell][0];
    g->cand[9 + d] &= peer_keep[cell][1];
    g->cand[18 + d] &= peer_keep[cell][2];
    for (int e = 0; e < 9; e++) g->cand[9 * band + e] &= ~bit;
    g->cand[9 * band + d] |= bit;
    g->unsolved[band] &= ~bit;
    return 1;
}

/* Apply the per-digit band rules until nothing changes; 0 on a contradiction. */
static int propagate(Grid *g) {
    int changed;
    do {
        changed = 0;
        for (int d = 0; d < 9; d++) {
            uint32_t *c = &g->cand[d];
            uint32_t *seen = &g->seen[d];
            if (c[0] == seen[0] && c[9] == seen[9] && c[18] == seen[18]) continue;
            for (int b = 0; b < 3; b++) {
                uint32_t a = c[9 * b];
                if (a == seen[9 * b]) continue;
                changed = 1;
                uint32_t pairs = (uint32_t)row_boxes[a & 0x1FFu] |
                                 (uint32_t)row_boxes[(a >> 9) & 0x1FFu] << 3 |
                                 (uint32_t)row_boxes[a >> 18] << 6;
                a &= matching[pairs];
                if (!a) return 0;
                uint32_t cols = columns_of(a);
                int y = b == 0 ? 1 : 0, z = b == 2 ? 1 : 2;
                uint32_t keep = lone_keep[cols];
                c[9 * z] &= keep & pair_keep[cols | columns_of(c[9 * y])];
                c[9 * y] &= keep & pair_keep[cols | columns_of(c[9 * z])];
                uint32_t r0 = a & 0x1FFu, r1 = (a >> 9) & 0x1FFu, r2 = a >> 18;
                uint32_t single = (uint32_t)((r0 & (r0 - 1)) == 0) |
                                  (uint32_t)((r1 & (r1 - 1)) == 0) << 1 |
                                  (uint32_t)((r2 & (r2 - 1)) == 0) << 2;
                uint32_t fresh = single & (g->open_rows[d] >> (3 * b));
                if (fresh) {
                    g->open_rows[d] &= ~(fresh << (3 * b));
                    uint32_t placed = a & row_cells[fresh];
                    g->unsolved[b] &= ~placed;
                    for (int e = 0; e < 9; e++) g->cand[9 * b + e] &= ~placed;
                }
                c[9 * b] = seen[9 * b] = a;
            }
        }
    } while (changed);
    return 1;
}

static void write_solution(const Grid *g, char *out) {
    for (int d = 0; d < 9; d++)
        for (int b = 0; b < 3; b++) {
            uint32_t a = g->cand[9 * b + d];
            while (a) {
                int p = lowest_bit(a);
                out[27 * b + p / 9 * 9 + p % 9] = (char)('1' + d);
                a &= a - 1;
            }
        }
}

/* Unsolved peers of a cell (same row, column or box): how much placing a digit there settles. */
static inline int open_peers(const Grid *g, int cell) {
    return bit_count(g->unsolved[0] & ~peer_keep[cell][0]) +
           bit_count(g->unsolved[1] & ~peer_keep[cell][1]) +
           bit_count(g->unsolved[2] & ~peer_keep[cell][2]);
}

/* The cell to branch on: an unsolved cell with the fewest candidates, ties going to the most
 * unsolved peers, then to row-major order; -1 when every cell is solved. `two` holds each band's
 * cells with two candidates, `more` those with three or more. */
static int choose_cell(const Grid *g, const uint32_t two[3], const uint32_t more[3]) {
    int cell = -1, best_count = 10, best_peers = -1;
    for (int b = 0; b < 3; b++)
        for (uint32_t t = two[b]; t; t &= t - 1) {
            int c = 27 * b + lowest_bit(t), peers = open_peers(g, c);
            if (peers > best_peers) {
                best_peers = peers;
                cell = c;
            }
        }
    if (cell >= 0) return cell;
    for (int b = 0; b < 3; b++)
        for (uint32_t t = g->unsolved[b] & more[b]; t; t &= t - 1) {
            int p = lowest_bit(t), c = 27 * b + p, count = 0;
            for (int d = 0; d < 9; d++) count += (g->cand[9 * b + d] >> p) & 1u;
            if (count > best_count) continue;
            int peers = open_peers(g, c);
            if (count < best_count || peers > best_peers) {
                best_count = count;
                best_peers = peers;
                cell = c;
            }
        }
    return cell;
}

/* Search below g (which it may modify); stops once s->count reaches s->limit. */
static void search(Grid *g, Search *s) {
    for (;;) {
        /* Propagate, then place naked singles, until neither changes anything. */
        uint32_t two[3], more[3];
        for (;;) {
            if (!propagate(g)) return;
            int placed = 0;
            for (int b = 0; b < 3; b++) {
                uint32_t u = g->unsolved[b];
                uint32_t r1 = 0, r2 = 0, r3 = 0;
                if (u) {
                    for (int d = 0; d < 9; d++) {
                        uint32_t x = g->cand[9 * b + d];
                        r3 |= r2 & x;
                        r2 |= r1 & x;
                        r1 |= x;
                    }
                    if (u & ~r1) return;
                    uint32_t singles = u & ~r2;
                    while (singles) {
                        int p = lowest_bit(singles);
                        uint32_t bit = 1u << p;
                        int d = 0;
                        while (d < 9 && !(g->cand[9 * b + d] & bit)) d++;
                        if (d == 9 || !place(g, d, 27 * b + p)) return;
                        placed = 1;
                        singles &= singles - 1;
                    }
                }
                two[b] = u & r2 & ~r3;
                more[b] = r3;
            }
            if (!placed) break;
        }
        int cell = choose_cell(g, two, more);
        if (cell < 0) {
            if (s->count == 0 && s->first) write_solution(g, s->first);
            s->count++;
            return;
        }
        int band = cell / 27;
        uint32_t bit = 1u << (cell % 27);
        int digits[9], n = 0;
        for (int d = 0; d < 9; d++)
            if (g->cand[9 * band + d] & bit) digits[n++] = d;
        for (int i = 0; i < n - 1; i++) {
            Grid branch = *g;
            s->guesses++;
            place(&branch, digits[i], cell);
            search(&branch, s);
            if (s->count >= s->limit) return;
        }
        s->guesses++;
        place(g, digits[n - 1], cell);
    }
}

/* Solve one 81-character puzzle ('1'-'9' givens, '0' or '.' empty). Returns the number of
 * solutions found (at most limit), or -1 when a character is not a digit or '.'. */
static int64_t solve_text(const char *text, uint64_t limit, char *first, uint64_t *guesses) {
    Grid g;
    Search s = {limit, 0, 0, first};
    int conflict = 0;
    grid_init(&g);
    *guesses = 0;
    for (int i = 0; i < 81; i++) {
        char ch = text[i];
        if (ch >= '1' && ch <= '9') {
            if (!place(&g, ch - '1', i)) conflict = 1;
        } else if (ch != '0' && ch != '.') {
            return -1;
        }
    }
    if (conflict || limit == 0) return 0;
    search(&g, &s);
    *guesses = s.guesses;
    return (int64_t)s.count;
}

static int read_text(PyObject *obj, Py_buffer *view, const char **data, Py_ssize_t *size) {
    if (PyUnicode_Check(obj)) {
        view->obj = NULL;
        *data = PyUnicode_AsUTF8AndSize(obj, size);
        return *data ? 0 : -1;
    }
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0) return -1;
    *data = (const char *)view->buf;
    *size = view->len;
    return 0;
}

PyDoc_STRVAR(solve_doc,
             "solve(puzzle, limit=2) -> (count, solution, guesses)\n\n"
             "Search an 81-character puzzle (str or bytes; '0' or '.' empty) for up to `limit`\n"
             "solutions. `count` is the number found, `solution` the first as 81 ASCII digits\n"
             "(bytes) or None, `guesses` the branches tried. ValueError for a bad length or\n"
             "character.");

static PyObject *py_solve(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"puzzle", "limit", NULL};
    PyObject *obj;
    unsigned long long limit = 2;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|K", keywords, &obj, &limit)) return NULL;
    Py_buffer view;
    const char *text;
    Py_ssize_t size;
    if (read_text(obj, &view, &text, &size) < 0) return NULL;
    char first[81];
    uint64_t guesses = 0;
    int64_t count = -1;
    if (size == 81) count = solve_text(text, limit, first, &guesses);
    if (view.obj) PyBuffer_Release(&view);
    if (count < 0) {
        PyErr_SetString(PyExc_ValueError,
                        "puzzle must be 81 characters of digits, '0' or '.' for empty");
        return NULL;
    }
    if (count == 0) return Py_BuildValue("LOK", (long long)count, Py_None, guesses);
    return Py_BuildValue("Ly#K", (long long)count, first, (Py_ssize_t)81, guesses);
}

PyDoc_STRVAR(solve_many_doc,
             "solve_many(puzzles, limit=2) -> (solutions, counts, guesses, seconds)\n\n"
             "Solve N puzzles packed as N*81 characters (bytes or str). Returns four bytes\n"
             "objects: N*81 ASCII first solutions found ('0' * 81 where none), N uint8 solution\n"
             "counts (capped at limit, 255 for a bad character), N uint32 guess counts and N\n"
             "float64 seconds per puzzle, in native byte order. limit is 1 to 254. Runs\n"
             "without the GIL.");

static PyObject *py_solve_many(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"puzzles", "limit", NULL};
    PyObject *obj;
    unsigned int limit = 2;
    (void)self;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|I", keywords, &obj, &limit)) return NULL;
    if (limit < 1 || limit > 254) {
        PyErr_SetString(PyExc_ValueError, "limit must be between 1 and 254");
        return NULL;
    }
    Py_buffer view;
    const char *text;
    Py_ssize_t size;
    if (read_text(obj, &view, &text, &size) < 0) return NULL;
    if (size % 81) {
        if (view.obj) PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "puzzles must be a multiple of 81 characters long");
        return NULL;
    }
    Py_ssize_t n = size / 81;
    PyObject *solutions = PyBytes_FromStringAndSize(NULL, n * 81);
    PyObject *counts = PyBytes_FromStringAndSize(NULL, n);
    PyObject *guesses = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(uint32_t));
    PyObject *seconds = PyBytes_FromStringAndSize(NULL, n * (Py_ssize_t)sizeof(double));
    if (!solutions || !counts || !guesses || !seconds) {
        Py_XDECREF(solutions);
        Py_XDECREF(counts);
        Py_XDECREF(guesses);
        Py_XDECREF(seconds);
        if (view.obj) PyBuffer_Release(&view);
        return NULL;
    }
    char *sol = PyBytes_AS_STRING(solutions);
    uint8_t *cnt = (uint8_t *)PyBytes_AS_STRING(counts);
    uint32_t *gss = (uint32_t *)PyBytes_AS_STRING(guesses);
    double *sec = (double *)PyBytes_AS_STRING(seconds);
    Py_BEGIN_ALLOW_THREADS
    double start = now_seconds();
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t g = 0;
        memset(sol + 81 * i, '0', 81);
        int64_t c = solve_text(text + 81 * i, limit, sol + 81 * i, &g);
        cnt[i] = c < 0 ? 255 : (uint8_t)c;
        gss[i] = g > UINT32_MAX ? UINT32_MAX : (uint32_t)g;
        double end = now_seconds();
        sec[i] = end - start;
        start = end;
    }
    Py_END_ALLOW_THREADS
    if (view.obj) PyBuffer_Release(&view);
    return Py_BuildValue("NNNN", solutions, counts, guesses, seconds);
}

/* Rows of text for solved puzzles: parts[0] line parts[1] puzzle parts[2] solution parts[3]
 * seconds parts[4], for each puzzle, with the line counted from first_line and the seconds
 * written with 7 decimals (rint: rounded half to even). */
#define ROW_PARTS 5

static int decimal_width(uint64_t value) {
    int width = 1;
    while (value >= 10) {
        value /= 10;
        width++;
    }
    return width;
}

static char *put(char *out, const char *data, Py_ssize_t size) {
    memcpy(out, data, (size_t)size);
    return out + size;
}

static char *write_decimal(char *out, uint64_t value, int width) {
    for (int i = width - 1; i >= 0; i--) {
        out[i] = (char)('0' + value % 10);
        value /= 10;
    }
    return out + width;
}

static uint64_t seconds_in_tenths_of_microseconds(double seconds) {
    double tenths = rint(seconds * 1e7);
    if (!(tenths > 0)) return 0; /* NaN too */
    return tenths < 1e19 ? (uint64_t)tenths : 10000000000000000000u;
}

PyDoc_STRVAR(encode_rows_doc,
             "encode_rows(puzzles, solutions, seconds, first_line, parts) -> bytes\n\n"
             "One row of text per puzzle: parts[0], the line number (first_line, then one more\n"
             "each row), parts[1], the puzzle's 81 characters, parts[2], the solution's 81,\n"
             "parts[3], the seconds with 7 decimals, parts[4]. puzzles and solutions are N*81\n"
             "bytes, seconds N float64 in native byte order (as solve_many returns them), parts\n"
             "a tuple of five bytes. Runs without the GIL.");

static PyObject *py_encode_rows(PyObject *self, PyObject *args) {
    PyObject *puzzles_obj, *solutions_obj, *seconds_obj, *parts_obj;
    unsigned long long first_line;
    (void)self;
    if (!PyArg_ParseTuple(args, "OOOKO!", &puzzles_obj, &solutions_obj, &seconds_obj,
                          &first_line, &PyTuple_Type, &parts_obj))
        return NULL;
    if (PyTuple_GET_SIZE(parts_obj) != ROW_PARTS) {
        PyErr_SetString(PyExc_ValueError, "parts must be a tuple of five bytes");
        return NULL;
    }
    const char *part[ROW_PARTS];
    Py_ssize_t part_size[ROW_PARTS], constant = 0;
    for (int k = 0; k < ROW_PARTS; k++) {
        PyObject *item = PyTuple_GET_ITEM(parts_obj, k);
        if (!PyBytes_Check(item)) {
            PyErr_SetString(PyExc_TypeError, "parts must be a tuple of five bytes");
            return NULL;
        }
        part[k] = PyBytes_AS_STRING(item);
        part_size[k] = PyBytes_GET_SIZE(item);
        constant += part_size[k];
    }
    Py_buffer puzzles, solutions, seconds;
    if (PyObject_GetBuffer(puzzles_obj, &puzzles, PyBUF_SIMPLE) < 0) return NULL;
    if (PyObject_GetBuffer(solutions_obj, &solutions, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&puzzles);
        return NULL;
    }
    if (PyObject_GetBuffer(seconds_obj, &seconds, PyBUF_SIMPLE) < 0) {
        PyBuffer_Release(&puzzles);
        PyBuffer_Release(&solutions);
        return NULL;
    }
    PyObject *rows = NULL;
    Py_ssize_t n = puzzles.len / 81;
    if (puzzles.len % 81 || solutions.len != puzzles.len ||
        seconds.len != n * (Py_ssize_t)sizeof(double)) {
        PyErr_SetString(PyExc_ValueError,
                        "puzzles and solutions must be N*81 bytes and seconds N float64");
        goto done;
    }
    const double *times = (const double *)seconds.buf;
    Py_ssize_t size = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t tenths = seconds_in_tenths_of_microseconds(times[i]);
        size += constant + decimal_width(first_line + (uint64_t)i) + 2 * 81 +
                decimal_width(tenths / 10000000u) + 8;
    }
    rows = PyBytes_FromStringAndSize(NULL, size);
    if (!rows) goto done;
    char *out = PyBytes_AS_STRING(rows);
    const char *puzzle = (const char *)puzzles.buf, *solution = (const char *)solutions.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t line = first_line + (uint64_t)i;
        uint64_t tenths = seconds_in_tenths_of_microseconds(times[i]);
        out = put(out, part[0], part_size[0]);
        out = write_decimal(out, line, decimal_width(line));
        out = put(out, part[1], part_size[1]);
        out = put(out, puzzle + 81 * i, 81);
        out = put(out, part[2], part_size[2]);
        out = put(out, solution + 81 * i, 81);
        out = put(out, part[3], part_size[3]);
        out = write_decimal(out, tenths / 10000000u, decimal_width(tenths / 10000000u));
        *out++ = '.';
        out = write_decimal(out, tenths % 10000000u, 7);
        out = put(out, part[4], part_size[4]);
    }
    Py_END_ALLOW_THREADS
done:
    PyBuffer_Release(&puzzles);
    PyBuffer_Release(&solutions);
    PyBuffer_Release(&seconds);
    return rows;
}

/* How many bytes of p[0..size) are c, eight at a time: a byte of x = word ^ (c in every byte) is
 * zero exactly where the word holds c, and ~(((x & 0x7f..) + 0x7f..) | x) has the high bit of
 * exactly those bytes set. Each byte of `lanes` counts its matches for up to 255 words, and
 * their sum is taken in 16-bit lanes (at most 8 * 255 = 2040). */
static Py_ssize_t count_byte(const unsigned char *p, Py_ssize_t size, unsigned char c) {
    const uint64_t ones = 0x0101010101010101u, low7 = 0x7f7f7f7f7f7f7f7fu, pattern = ones * c;
    Py_ssize_t count = 0, i = 0;
    while (size - i >= 8) {
        Py_ssize_t words = (size - i) / 8 < 255 ? (size - i) / 8 : 255;
        uint64_t lanes = 0;
        for (Py_ssize_t w = 0; w < words; w++, i += 8) {
            uint64_t word;
            memcpy(&word, p + i, 8);
            uint64_t x = word ^ pattern;
            lanes += (~(((x & low7) + low7) | x) & ~low7) >> 7;
        }
        uint64_t pairs = (lanes & 0x00ff00ff00ff00ffu) + ((lanes >> 8) & 0x00ff00ff00ff00ffu);
        count += (Py_ssize_t)((pairs * 0x0001000100010001u) >> 48);
    }
    for (; i < size; i++) count += p[i] == c;
    return count;
}

PyDoc_STRVAR(count_newlines_doc,
             "count_newlines(data) -> int\n\n"
             "How many line breaks (b'\\n') data, any bytes-like object, holds: what\n"
             "bytes.count(b'\\n') gives, some ten times faster (a batch counts the lines of every\n"
             "piece of a puzzle file it cuts). Runs without the GIL.");

static PyObject *py_count_newlines(PyObject *self, PyObject *arg) {
    Py_buffer data;
    (void)self;
    if (PyObject_GetBuffer(arg, &data, PyBUF_SIMPLE) < 0) return NULL;
    Py_ssize_t count;
    Py_BEGIN_ALLOW_THREADS
    count = count_byte((const unsigned char *)data.buf, data.len, '\n');
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    return PyLong_FromSsize_t(count);
}

static PyMethodDef methods[] = {
    {"solve", (PyCFunction)(void (*)(void))py_solve, METH_VARARGS | METH_KEYWORDS, solve_doc},
    {"solve_many", (PyCFunction)(void (*)(void))py_solve_many, METH_VARARGS | METH_KEYWORDS,
     solve_many_doc},
    {"encode_rows", py_encode_rows, METH_VARARGS, encode_rows_doc},
    {"count_newlines", py_count_newlines, METH_O, count_newlines_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "sudoku_lens.solve._core",
    .m_doc = "Bitboard Sudoku solver (see _core.c).",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__core(void) {
    init_tables();
    return PyModule_Create(&module);
}
