/*
 * A --plot title broken into lines that fit the PNG (lr_plot_wrap()):
 * gnuplot cuts a title line wider than the picture at both edges, and a
 * run with many options off their defaults has a title of 200
 * characters.  Each result is compared whole.
 */
#include <stdio.h>
#include <string.h>

#include "tools/lightrail/lr_plot.h"
#include "tests/lr_test.h"

static void
test_wrap(void)
{
    static const struct {
        const char *title;
        int width, max_lines;
        const char *lines;
    } rows[] = {
        /* Short enough: as it was. */
        { "metro: blocking against load (seed 7)", 40, 4,
          "metro: blocking against load (seed 7)" },
        /* A line of exactly 'width' is not broken. */
        { "aaaa bbbb", 9, 4, "aaaa bbbb" },
        { "aaaa bbbb", 8, 4, "aaaa\nbbbb" },
        /* At spaces only: "8,16," stays whole. */
        { "demands 8,16, triples, seed 7", 14, 4,
          "demands 8,16,\ntriples,\nseed 7" },
        /* Never between a word and its number, nor at an "=": "K ="
         * on one line and "3" on the next reads as two settings. */
        { "PPO K = 3, seeds 1-5", 6, 4, "PPO\nK = 3,\nseeds 1-5" },
        { "rsa-sim: blocking, K = 3 paths", 16, 4,
          "rsa-sim:\nblocking, K = 3\npaths" },
        { "metro (seed 7) at 3.5 E", 10, 4, "metro\n(seed 7)\nat 3.5 E" },
        { "a b=\n1", 3, 4, "a\nb=\n1" },
        /* A number after a number is a list, which may break. */
        { "loads 1 2 3", 9, 4, "loads 1 2\n3" },
        /* The " ..." takes the last setting whole. */
        { "one two three four", 14, 1, "one two ..." },
        { "one K = 3 x y", 10, 1, "one ..." },
        /* A line that is one unit gives its last word for it: not past
         * the width (until 2026-12-07 "load 0.5 ..."). */
        { "load 0.5 0.6 0.7 0.8", 8, 1, "load ..." },
        /* A chain of "=" past the width breaks after three words (until
         * 2026-12-07 one line of 25). */
        { "a = b = c = d = e = f = g", 5, 8,
          "a = b\n= c =\nd = e\n= f =\ng" },
        /* A "\n" already there stays a break; each line is wrapped. */
        { "PPO training on metro\nmodels a, b; moving averages", 16, 4,
          "PPO training on\nmetro\nmodels a, b;\nmoving averages" },
        /* A word longer than the line has a line of its own, whole. */
        { "a bert-large,gpt-1.9b b", 6, 4, "a\nbert-large,gpt-1.9b\nb" },
        /* Characters, not bytes: "µs" is two wide. */
        { "plan 850 µs, T 1.00 ms", 11, 4, "plan 850\nµs, T 1.00\nms" },
        { "plan 850 µs, T 1.00 ms", 12, 4, "plan 850 µs,\nT 1.00 ms" },
        /* Past max_lines: " ..." says words were left out, and the last
         * line's words make room for it. */
        { "one two three four five six", 9, 2, "one two\nthree ..." },
        { "one two three four", 14, 1, "one two ..." },
        { "l1\nl2\nl3", 10, 2, "l1\nl2 ..." },
        /* Runs of spaces are one; spaces at the ends go. */
        { "  a   b  ", 10, 4, "a b" },
        { "", 10, 4, "" },
    };
    char buf[128];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        lr_plot_wrap(rows[i].title, rows[i].width, rows[i].max_lines, buf,
                     sizeof buf);
        if (strcmp(buf, rows[i].lines))
            fprintf(stderr, "'%s' in %d: '%s', not '%s'\n", rows[i].title,
                    rows[i].width, buf, rows[i].lines);
        CU_ASSERT_STRING_EQUAL(buf, rows[i].lines);
    }
}

/* The buffer's bound holds: a result cut to fit is still a string, of
 * whole UTF-8 characters. */
static void
test_cut(void)
{
    char buf[8];
    memset(buf, 'x', sizeof buf);
    lr_plot_wrap("abcdef ghijkl", 6, 4, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "abcdef\n");
    /* Cut at a character, never inside one: "\xc2" alone, half of
     * "µ", is no UTF-8, and gnuplot's pngcairo would draw it as a box
     * or drop the title.  Nothing follows a cut (no " s" after it). */
    lr_plot_wrap("abcde µs", 6, 4, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "abcde\n");
    lr_plot_wrap("abcde µ s", 6, 4, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "abcde\n");
    lr_plot_wrap(NULL, 6, 4, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "");
}

static CU_TestInfo tests[] = {
    { "wrap: at spaces, to the width, at most N lines", test_wrap },
    { "wrap: cut to the buffer, NULL is empty", test_cut },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("plot_wrap", tests)
