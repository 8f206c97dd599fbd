/*
 * The policy file reader (tools/lightrail/lr_policy_file.h) on hostile
 * bytes: a file cut anywhere and sealed again with valid checksums, a
 * header without its blank line whose checksum holds one, keys that lie
 * about the agent.  Each is refused with one line and no agent, and the
 * reader never reads past the buffer (ASan in the sanitizer build).
 *
 * The valid files are the fuzzer's seeds, tests/fuzz/corpus/policy/
 * (real `lightrail train` files; their README has the commands).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planner/lr_bytes.h"
#include "tools/lightrail/lr_policy_file.h"
#include "tests/lr_test.h"

/* The file at src(rel) in a buffer of exactly its size (so that ASan
 * sees a read past its end); *n its length. */
static uint8_t *
slurp(const char *rel, size_t *n)
{
    uint8_t *b = lr_test_read_file(src(rel), n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    return b;
}

/* The offset of the agent (after the header's blank line). */
static size_t
agent_at(const uint8_t *b, size_t n)
{
    for (size_t i = 1; i + 1 < n; i++)
        if (b[i] == '\n' && b[i + 1] == '\n')
            return i + 2;
    return 0;
}

/* The first place of text in b[n], or NULL. */
static uint8_t *
find(uint8_t *b, size_t n, const char *text)
{
    size_t tl = strlen(text);
    for (size_t i = 0; i + tl <= n; i++)
        if (!memcmp(b + i, text, tl))
            return b + i;
    return NULL;
}

/* The metro seed in a buffer of its size (*n bytes), and where its
 * agent starts (*at). */
static uint8_t *
metro_seed(size_t *n, size_t *at)
{
    uint8_t *b = slurp("tests/fuzz/corpus/policy/metro-h1.pol", n);
    *at = agent_at(b, *n);
    CU_ASSERT_FATAL(*at > 0);
    return b;
}

/* Both checksums as the writer sets them, the agent starting at 'at'. */
static void
seal(uint8_t *b, size_t n, size_t at)
{
    if (at + 16 <= n)
        lr_put64(b + n - 16, lr_fnv1a64(b + at, n - 16 - at));
    if (n >= 8)
        lr_put64(b + n - 8, lr_fnv1a64(b, n - 8));
}

/* Parses b[n] expecting a refusal whose line holds 'want' (NULL: any). */
static void
expect_refused(const uint8_t *b, size_t n, const char *want)
{
    struct lr_policy_meta m;
    struct lr_ppo *agent = (struct lr_ppo *) &agent;
    char err[512] = "";
    int rc = lr_policy_parse(b, n, "t.pol", &m, &agent, err, sizeof err);
    CU_ASSERT_NOT_EQUAL(rc, 0);
    CU_ASSERT_PTR_NULL(agent);
    CU_ASSERT(!strncmp(err, "t.pol: ", 7));
    CU_ASSERT_PTR_NULL(strchr(err, '\n'));
    if (want && !strstr(err, want)) {
        fprintf(stderr, "\n  wanted '%s' in: %s\n", want, err);
        CU_FAIL("the refusal does not say what was wanted");
    }
    if (rc == 0)
        lr_ppo_free(agent);
}

/* The seeds load, and their agents encode back to their bytes. */
static void
test_seeds_load(void)
{
    const char *seeds[] = { "tests/fuzz/corpus/policy/metro-h1.pol",
                            "tests/fuzz/corpus/policy/metro-h1-work.pol" };
    for (int s = 0; s < 2; s++) {
        size_t n;
        uint8_t *b = slurp(seeds[s], &n);
        struct lr_policy_meta m;
        struct lr_ppo *agent = NULL;
        char err[512];
        CU_ASSERT_EQUAL_FATAL(lr_policy_parse(b, n, "t.pol", &m, &agent, err,
                                              sizeof err), 0);
        CU_ASSERT_EQUAL(m.topology[0] != '\0', 1);
        CU_ASSERT_EQUAL(m.n_obs, agent->cfg.n_obs);
        CU_ASSERT_EQUAL(m.held_work, s == 1);
        CU_ASSERT_EQUAL(m.triples, s == 1);
        size_t len = lr_ppo_encoded_size(agent);
        CU_ASSERT_EQUAL_FATAL(len, n - 8 - agent_at(b, n));
        uint8_t *again = malloc(len);
        CU_ASSERT_EQUAL_FATAL(lr_ppo_encode(agent, again, len), len);
        CU_ASSERT_EQUAL(memcmp(again, b + n - 8 - len, len), 0);
        free(again);
        lr_ppo_free(agent);
        free(b);
    }
}

/* Every length short of the whole, sealed again as if the writer had
 * written it: the checksums pass, and the header or the agent's sizes
 * must still refuse it. */
static void
test_sealed_truncations(void)
{
    size_t n, at;
    uint8_t *whole = metro_seed(&n, &at);
    for (size_t k = 0; k < n; k++) {
        uint8_t *b = malloc(k ? k : 1);
        memcpy(b, whole, k);
        seal(b, k, at);
        expect_refused(b, k, NULL);
        free(b);
    }
    free(whole);
}

/* A whole header that never ends, whose last line's '\n' and the
 * checksum's first byte (0x0a) make the only blank line of the file:
 * the reader must not take the agent to start past the checksum (it
 * did, and read past the buffer: ASan's build saw it). */
static void
test_blank_line_in_checksum(void)
{
    size_t n, at;
    uint8_t *whole = metro_seed(&n, &at);
    int found = 0;
    for (int i = 0; i < 100000 && !found; i++) {
        /* The header without its blank line, the command made unique. */
        char tail[32];
        int tl = snprintf(tail, sizeof tail, " #%d\n", i);
        size_t hn = at - 2 + (size_t) tl, bn = hn + 8;
        uint8_t *b = malloc(bn);
        memcpy(b, whole, at - 2);
        memcpy(b + at - 2, tail, (size_t) tl);
        lr_put64(b + hn, lr_fnv1a64(b, hn));
        if (b[hn] == '\n') {
            found = 1;
            expect_refused(b, bn, "no end of header");
        }
        free(b);
    }
    CU_ASSERT_EQUAL(found, 1);    /* about 1 in 256 */
    free(whole);
}

/* Header keys that lie, sealed: the agent's sizes not the header's, a
 * size that is no number, another version. */
static void
test_lying_header(void)
{
    size_t n, at;
    uint8_t *whole = metro_seed(&n, &at);
    const struct {
        const char *from, *to, *want;
    } lies[] = {
        { "n-obs=120", "n-obs=121", "the agent's sizes disagree" },
        { "n-obs=120", "n-obs=12x", "'n-obs' missing or invalid" },
        { "n-actions=57", "n-actions=58", "the agent's sizes disagree" },
        { "LRPOLICY 1", "LRPOLICY 2", "version 2" },
        { "holding=exp", "holding=foo", "'holding' missing or invalid" },
        /* strtod() read this as 2; lightrail writes no blank there. */
        { "batch=32", "batch= 2", "'batch' missing or invalid" },
        /* strtol() read these as 12 (blank) and 120 (+) would still be
         * read: a whole number is as plain as lr_parse_double's. */
        { "n-obs=120", "n-obs= 12", "'n-obs' missing or invalid" },
        { "n-obs=120", "n-obs=\t12", "'n-obs' missing or invalid" },
    };
    for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
        uint8_t *b = malloc(n);
        memcpy(b, whole, n);
        uint8_t *p = find(b, at, lies[i].from);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_EQUAL_FATAL(strlen(lies[i].from), strlen(lies[i].to));
        memcpy(p, lies[i].to, strlen(lies[i].to));
        seal(b, n, at);
        expect_refused(b, n, lies[i].want);
        free(b);
    }
    free(whole);
}

/* The seed with its first line "LRPOLICY " 'version', sealed again,
 * in a buffer of its size (*n2 bytes). */
static uint8_t *
with_version(const uint8_t *whole, size_t n, size_t at, const char *version,
             size_t *n2)
{
    const uint8_t *nl = memchr(whole, '\n', at);
    CU_ASSERT_PTR_NOT_NULL_FATAL(nl);
    size_t old = (size_t) (nl - whole) - 9, vl = strlen(version);
    *n2 = n - old + vl;
    uint8_t *b = malloc(*n2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    memcpy(b, "LRPOLICY ", 9);
    memcpy(b + 9, version, vl);
    memcpy(b + 9 + vl, nl, n - (size_t) (nl - whole));
    seal(b, *n2, at - old + vl);
    return b;
}

/* The version is a whole number and nothing else: atoi() read "1x",
 * " 1" and "1.5" as 1 and took the file, and "" as version 0. */
static void
test_version_number(void)
{
    size_t n, at, n2;
    uint8_t *whole = metro_seed(&n, &at);
    const struct {
        const char *version, *want;
    } cases[] = {
        { "1x", "policy file version '1x' is no whole number" },
        { " 1", "policy file version ' 1' is no whole number" },
        { "1.5", "policy file version '1.5' is no whole number" },
        { "", "policy file version '' is no whole number" },
        { "1\t", "policy file version '1?' is no whole number" },
        { "99999999999999999999", "version '99999999999999999999' is no "
                                  "whole number" },
        { "2", "policy file version 2, this lightrail reads version 1" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *b = with_version(whole, n, at, cases[i].version, &n2);
        expect_refused(b, n2, cases[i].want);
        free(b);
    }
    /* The seed's own "1" still reads, rebuilt the same way. */
    uint8_t *b = with_version(whole, n, at, "1", &n2);
    struct lr_policy_meta m;
    struct lr_ppo *agent = NULL;
    char err[512] = "";
    CU_ASSERT_EQUAL(lr_policy_parse(b, n2, "t.pol", &m, &agent, err,
                                    sizeof err), 0);
    lr_ppo_free(agent);
    free(b);
    free(whole);
}

/* The keys that say what the policy was trained on (gpus, gpu-sig,
 * net-sig) are written in that order and read back; a file without them
 * (the seeds) reads them empty, unchecked. */
static void
test_trained_on_keys(void)
{
    char dir[64], path[96], err[512];
    struct lr_policy_meta m, back;
    struct lr_ppo *p = NULL, *q = NULL;
    snprintf(dir, sizeof dir, "/tmp/lr-test-policy-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/keys.pol", dir);
    CU_ASSERT_EQUAL_FATAL(lr_policy_load(src("tests/fuzz/corpus/policy/"
                                             "metro-h1.pol"), &m, &p, err,
                                         sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(m.gpus, "");
    CU_ASSERT_STRING_EQUAL(m.gpu_sig, "");
    CU_ASSERT_STRING_EQUAL(m.net_sig, "");
    snprintf(m.gpus, sizeof m.gpus, "16 A100-80GB,32 V100-32GB,8 H100-80GB");
    snprintf(m.gpu_sig, sizeof m.gpu_sig, "74ee223d38b354ed");
    snprintf(m.net_sig, sizeof m.net_sig, "40d4d48985f380d2");
    CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &m, p, err, sizeof err), 0);
    size_t n;
    uint8_t *b = lr_test_read_file(path, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NOT_NULL(find(b, n, "\ngpus=16 A100-80GB,32 V100-32GB,8 "
                                "H100-80GB\ngpu-sig=74ee223d38b354ed\n"
                                "net-sig=40d4d48985f380d2\n"));
    free(b);
    CU_ASSERT_EQUAL_FATAL(lr_policy_load(path, &back, &q, err, sizeof err),
                          0);
    CU_ASSERT_STRING_EQUAL(back.gpus, m.gpus);
    CU_ASSERT_STRING_EQUAL(back.gpu_sig, m.gpu_sig);
    CU_ASSERT_STRING_EQUAL(back.net_sig, m.net_sig);
    lr_ppo_free(q);
    lr_ppo_free(p);
    unlink(path);
    rmdir(dir);
}

/* A job mix's GPU counts as lightrail train wrote them until
 * 2026-12-07: the --demands it was given, verbatim, where a blank
 * before a count was taken ("4, 8, 16").  lightrail sim --policy reads
 * them by today's rule, which refuses " 8" ("--demands wants up to 8
 * GPU counts ..., not ' 8'", an option the user never gave), and
 * lightraild's strtol() took them: such a file is read as "4,8,16".
 * Blanks elsewhere ("4 ,8") were never written: left to the readers. */
static void
test_demands_blanks(void)
{
    char dir[64], path[96], err[512];
    struct lr_policy_meta m, back;
    struct lr_ppo *p = NULL, *q = NULL;
    snprintf(dir, sizeof dir, "/tmp/lr-test-policy-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/blanks.pol", dir);
    CU_ASSERT_EQUAL_FATAL(lr_policy_load(src("tests/fuzz/corpus/policy/"
                                             "metro-h1.pol"), &m, &p, err,
                                         sizeof err), 0);
    static const char *const rows[][2] = {
        { "4, 8, 16", "4,8,16" },
        { " 4,\t8", "4,8" },
        { "4,8,16", "4,8,16" },
        { "4 ,8", "4 ,8" },
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        snprintf(m.demands, sizeof m.demands, "%s", rows[i][0]);
        CU_ASSERT_EQUAL_FATAL(lr_policy_save(path, &m, p, err, sizeof err),
                              0);
        CU_ASSERT_EQUAL_FATAL(lr_policy_load(path, &back, &q, err,
                                             sizeof err), 0);
        if (strcmp(back.demands, rows[i][1]))
            fprintf(stderr, "demands '%s' read '%s'\n", rows[i][0],
                    back.demands);
        CU_ASSERT_STRING_EQUAL(back.demands, rows[i][1]);
        lr_ppo_free(q);
        q = NULL;
    }
    lr_ppo_free(p);
    unlink(path);
    rmdir(dir);
}

/* What is no regular file is refused at once (lightraild reads the
 * policy on its event loop): a FIFO nobody writes (open() blocked for
 * good), a directory, /dev/zero (read to the cap); a regular file loads
 * from its path. */
static void
test_not_a_file(void)
{
    char dir[64], fifo[96], err[512];
    struct lr_policy_meta m;
    struct lr_ppo *p = NULL;
    snprintf(dir, sizeof dir, "/tmp/lr-test-policy-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/fifo.pol", dir);
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    const char *paths[] = { fifo, dir, "/dev/zero" };
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        CU_ASSERT_EQUAL(lr_policy_load(paths[i], &m, &p, err, sizeof err),
                        EINVAL);
        CU_ASSERT_PTR_NULL(p);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, "not a regular file"));
    }
    unlink(fifo);
    rmdir(dir);
    CU_ASSERT_EQUAL(lr_policy_load(src("tests/fuzz/corpus/policy/metro-h1.pol"),
                                   &m, &p, err, sizeof err), 0);
    CU_ASSERT_PTR_NOT_NULL(p);
    lr_ppo_free(p);
}

static CU_TestInfo tests[] = {
    { "the seeds load and encode back to their bytes", test_seeds_load },
    { "every sealed truncation is refused", test_sealed_truncations },
    { "a blank line in the checksum is no end of header",
      test_blank_line_in_checksum },
    { "header keys that lie about the agent are refused", test_lying_header },
    { "the version is a whole number and nothing else",
      test_version_number },
    { "a job mix's counts written with blanks are read without",
      test_demands_blanks },
    { "a FIFO, a directory, a device are refused at once", test_not_a_file },
    { "gpus, gpu-sig and net-sig are written and read back",
      test_trained_on_keys },
    CU_TEST_INFO_NULL,
};

LR_TEST_MAIN("policy_file", tests)
