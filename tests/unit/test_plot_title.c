/*
 * The --plot titles' words (tools/lightrail/lr_plot_title.h): a PNG is
 * read alone, so its title names what was run and gives every number
 * its unit.  Each title is compared whole, as the PNG shows it.
 */
#include <stdio.h>
#include <string.h>

#include "tools/lightrail/lr_plot_title.h"
#include "tools/lightrail/lr_jenv_cli.h"
#include "tests/lr_test.h"

/* Durations in the unit that fits, 3 significant digits: toy-4's
 * 2.4 ms and 2.5 ms used to read 0.002 s and 0.003 s. */
static void
test_duration(void)
{
    static const struct {
        double s;
        const char *text;
    } rows[] = {
        { 0.0024, "2.40 ms" },
        { 0.0025, "2.50 ms" },
        { 0.671, "671 ms" },
        { 0.9996, "1.00 s" },          /* not 1.00e+03 ms */
        { 1.2836, "1.28 s" },
        { 12.5, "12.5 s" },
        { 4321, "4321 s" },            /* no exponent */
        { 0.00085, "850 µs" },
        { 0.0009996, "1.00 ms" },
        { 0.009996, "10.0 ms" },       /* rounded first: not 10.00 */
        { 0, "0.00 s" },
    };
    char buf[32];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        lr_plot_duration(rows[i].s, buf, sizeof buf);
        if (strcmp(buf, rows[i].text))
            fprintf(stderr, "%g s: '%s', not '%s'\n", rows[i].s, buf,
                    rows[i].text);
        CU_ASSERT_STRING_EQUAL(buf, rows[i].text);
    }
    double f;
    CU_ASSERT_STRING_EQUAL(lr_plot_time_unit(0.0024, &f), "ms");
    CU_ASSERT_DOUBLE_EQUAL(f, 1e3, 0);
    CU_ASSERT_STRING_EQUAL(lr_plot_time_unit(3, &f), "s");
    CU_ASSERT_DOUBLE_EQUAL(f, 1, 0);
    CU_ASSERT_STRING_EQUAL(lr_plot_time_unit(2e-5, &f), "µs");
    CU_ASSERT_DOUBLE_EQUAL(f, 1e6, 0);
}

/* One seed is "seed S" (never "1 seeds"); several, the range run. */
static void
test_seeds(void)
{
    char buf[64];
    CU_ASSERT_STRING_EQUAL(lr_plot_seeds(7, 1, buf, sizeof buf), "seed 7");
    CU_ASSERT_STRING_EQUAL(lr_plot_seeds(2001, 10, buf, sizeof buf),
                           "seeds 2001-2010");
}

/* lightrail sim's plots: words, not JSON keys (dc_load_variance), the
 * seeds run, and one seed said to have no interval. */
static void
test_sim(void)
{
    char buf[256];
    CU_ASSERT_STRING_EQUAL(lr_plot_load_title("metro", "variance of GPU use "
                                              "across DCs", NULL, 2001, 10,
                                              buf, sizeof buf),
                           "metro: variance of GPU use across DCs against load "
                           "(seeds 2001-2010, mean and 95% CI)");
    CU_ASSERT_STRING_EQUAL(lr_plot_load_title("metro", "blocking", NULL, 7,
                                              1, buf, sizeof buf),
                           "metro: blocking against load (seed 7, one run: "
                           "no CI)");
}

/* lightrail rsa-sim's plot: the paths' K and order before the seeds;
 * one seed, said to have no interval (it used to read "1 seeds, 95%
 * CI"). */
static void
test_rsa_sim(void)
{
    char buf[256];
    CU_ASSERT_STRING_EQUAL(lr_plot_load_title("nsfnet", "blocking "
                                              "probability", "K=3, hops "
                                              "order", 1, 1, buf,
                                              sizeof buf),
                           "nsfnet: blocking probability against load "
                           "(K=3, hops order, seed 1, one run: no CI)");
    CU_ASSERT_STRING_EQUAL(lr_plot_load_title("nsfnet", "blocking "
                                              "probability", "K=5, km "
                                              "order", 41, 5, buf,
                                              sizeof buf),
                           "nsfnet: blocking probability against load "
                           "(K=5, km order, seeds 41-45, mean and 95% CI)");
}

/* lightrail train's curve: it used to name no topology, load or seed
 * ("PPO training: moving averages over the last 20 rollouts"). */
static void
test_train(void)
{
    char buf[256];
    CU_ASSERT_STRING_EQUAL(lr_plot_train_title("metro", "examples/clusters/"
                                               "metro.json", 3, 0, 1, NULL, 20,
                                               buf, sizeof buf),
                           "PPO training on metro, cluster metro.json, load "
                           "3 Erlang, seed 1\nmoving averages over the last "
                           "20 rollouts");
    CU_ASSERT_STRING_EQUAL(lr_plot_train_title("nsfnet", "nsfnet6.json", 1.5,
                                               6, 42, "", 20, buf, sizeof buf),
                           "PPO training on nsfnet, cluster nsfnet6.json, "
                           "load 1.5-6 Erlang (drawn per episode), seed 42\n"
                           "moving averages over the last 20 rollouts");
    CU_ASSERT_STRING_EQUAL(lr_plot_train_title("metro", "metro.json", 3, 0,
                                               1, "triples, gamma 0.9", 20,
                                               buf, sizeof buf),
                           "PPO training on metro, cluster metro.json, load "
                           "3 Erlang, seed 1\ntriples, gamma 0.9; moving "
                           "averages over the last 20 rollouts");
}

/* The options sim and train share, named when off their defaults only:
 * runs with --triples or --demands once had a default run's title. */
static void
test_env_words(void)
{
    char buf[256];
    struct lr_jenv_cli_opts o = { LR_JENV_CLI_DEFAULTS };
    CU_ASSERT_STRING_EQUAL(lr_plot_env_words(&o, buf, sizeof buf), "");
    o.demands = "8,16";
    o.triples = true;
    o.known_work = true;
    o.holding_mode = LR_JENV_HOLD_WORK;
    o.block_penalty = 5;
    o.k = 2;
    CU_ASSERT_STRING_EQUAL(lr_plot_env_words(&o, buf, sizeof buf),
                           "demands 8,16, K=2, block penalty 5, work "
                           "holding, known work, triples");
    struct lr_jenv_cli_opts s = { LR_JENV_CLI_DEFAULTS };
    s.models = "bert-large";
    s.n_splits = 2;
    s.splits[0] = (struct lr_jenv_split) { 1, 4 };
    s.splits[1] = (struct lr_jenv_split) { 1, 2 };
    s.reward_blocking_only = true;
    CU_ASSERT_STRING_EQUAL(lr_plot_env_words(&s, buf, sizeof buf),
                           "models bert-large, splits 1/4,1/2, reward "
                           "blocking");
    /* Cut to fit, NUL-terminated, and appending to a full buffer is
     * harmless. */
    char small[12];
    lr_plot_env_words(&o, small, sizeof small);
    CU_ASSERT_STRING_EQUAL(small, "demands 8,1");
    CU_ASSERT_STRING_EQUAL(lr_plot_words_add(small, sizeof small, "x"),
                           "demands 8,1");
}

/* lightrail plan's Gantt chart: the cluster's file without its folders,
 * times in ms for a toy model. */
static void
test_plan(void)
{
    char buf[256];
    CU_ASSERT_STRING_EQUAL(lr_plot_plan_title("toy-4",
                                              "examples/clusters/man3.json",
                                              "exact", 0.0024, 0.0025, buf,
                                              sizeof buf),
                           "toy-4 on man3.json, exact: one iteration, "
                           "simulated GPipe schedule (makespan 2.40 ms; "
                           "the model's T = 2.50 ms)");
    CU_ASSERT_STRING_EQUAL(lr_plot_plan_title("gpt-1.9b", "man3.json",
                                              "cdynp", 0.671, 0.685, buf,
                                              sizeof buf),
                           "gpt-1.9b on man3.json, cdynp: one iteration, "
                           "simulated GPipe schedule (makespan 671 ms; "
                           "the model's T = 685 ms)");
}

static CU_TestInfo tests[] = {
    { "durations: the unit that fits, 3 digits", test_duration },
    { "seeds: one is singular, several a range", test_seeds },
    { "sim: words, seeds run, one seed no CI", test_sim },
    { "rsa-sim: K, order, seeds", test_rsa_sim },
    { "train: topology, cluster, load, seed", test_train },
    { "env: the options off their defaults", test_env_words },
    { "plan: model, cluster, algorithm, ms", test_plan },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("plot_title", tests)
