/* lr_policy_file: see lr_policy_file.h for the format. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "planner/lr_bytes.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_policy_file.h"

#define MAX_FILE (256u << 20)

int
lr_policy_save(const char *path, const struct lr_policy_meta *m,
               const struct lr_ppo *p, char *err, size_t errlen)
{
    char head[4096], splits[128] = "", teacher[160] = "";
    const char *known = m->known_work ? "known-work=1\n" : "";
    const char *held = m->held_work ? "held-work=1\n" : "";
    const char *triples = m->triples ? "triples=1\n" : "";
    const char *quads = m->quads ? "quads=1\n" : "";
    const char *oload = m->observe_load ? "observe-load=1\n" : "";
    /* The default shares write no key: files stay as they were. */
    if (!lr_jenv_splits_default(m->splits, m->n_splits)) {
        char v[96];
        lr_jenv_splits_format(m->splits, m->n_splits, v, sizeof v);
        snprintf(splits, sizeof splits, "splits=%s\n", v);
    }
    /* PPO alone writes no key: files stay as they were. */
    if (m->imitate > 0)
        snprintf(teacher, sizeof teacher, "teacher=%s\nimitate=%ld\n",
                 m->teacher, m->imitate);
    int hn = snprintf(head, sizeof head,
                      "LRPOLICY %d\nmodels=%s\ndemands=%s\nbatch=%.17g\n"
                      "microbatch=%.17g\nk=%d\nblock-penalty=%.17g\n"
                      "holding=%s\nrefuse=%d\n%s%s%s%s%s%s%stopology=%s\n"
                      "dcs=%s\n%s%s%s%s%s%s%s%s%s"
                      "n-obs=%d\nn-actions=%d\n"
                      "command=%s\n\n", LR_POLICY_VERSION, m->models,
                      m->demands, m->batch, m->micro, m->k, m->block_penalty,
                      lr_jenv_holding_name(m->holding_mode), m->refuse ? 1 : 0,
                      splits, teacher, known, held, triples, quads, oload,
                      m->topology,
                      m->dcs, m->gpus[0] ? "gpus=" : "", m->gpus,
                      m->gpus[0] ? "\n" : "", m->gpu_sig[0] ? "gpu-sig=" : "",
                      m->gpu_sig, m->gpu_sig[0] ? "\n" : "",
                      m->net_sig[0] ? "net-sig=" : "",
                      m->net_sig, m->net_sig[0] ? "\n" : "", m->n_obs,
                      m->n_act,
                      m->command);
    if (hn < 0 || (size_t) hn >= sizeof head) {
        lr_set_err(err, errlen, "%s: policy header too long", path);
        return EINVAL;
    }
    size_t wn = lr_ppo_encoded_size(p), n = (size_t) hn + wn + 8;
    uint8_t *buf = malloc(n);
    if (!buf) {
        lr_set_err(err, errlen, "out of memory");
        return ENOMEM;
    }
    memcpy(buf, head, (size_t) hn);
    lr_ppo_encode(p, buf + hn, wn);
    lr_put64(buf + n - 8, lr_fnv1a64(buf, n - 8));
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int rc = 0;
    if (!f || fwrite(buf, 1, n, f) != n) {
        rc = errno ? errno : EIO;
        lr_set_err(err, errlen, "%s: cannot write: %s", tmp, strerror(rc));
    }
    if (f && fclose(f) && !rc) {
        rc = errno ? errno : EIO;
        lr_set_err(err, errlen, "%s: cannot write: %s", tmp, strerror(rc));
    }
    if (!rc && rename(tmp, path)) {
        rc = errno;
        lr_set_err(err, errlen, "%s: cannot rename to %s: %s", tmp, path,
                   strerror(rc));
    }
    if (rc)
        unlink(tmp);
    free(buf);
    return rc;
}

/* Reads the version, the rest of the first line at 'line' (the header
 * ends in a newline), into '*version' as lr_parse_long() reads a whole
 * number: 0, or EINVAL.  out[len] gets the text either way, cut to fit
 * and its control characters made '?', for the refusal to quote in
 * one line. */
static int
read_version(const char *line, char *out, size_t len, long *version)
{
    size_t n = strcspn(line, "\n");
    /* A NUL before the newline, or a line cut to fit, is no number
     * whatever its head reads as. */
    int rc = line[n] != '\n' || n >= len ? EINVAL : 0;
    if (n >= len)
        n = len - 1;
    memcpy(out, line, n);
    out[n] = '\0';
    if (!rc)
        rc = lr_parse_long(out, 0, 1000000, version);
    for (unsigned char *p = (unsigned char *) out; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
    return rc;
}

/* Reads "key=value" for 'key' from the header text into out[len]. */
static int
get_key(const char *head, const char *key, char *out, size_t len)
{
    size_t kl = strlen(key);
    for (const char *l = head; *l;) {
        const char *nl = strchr(l, '\n');
        if (!nl)
            break;
        if ((size_t) (nl - l) > kl && !strncmp(l, key, kl) && l[kl] == '=') {
            size_t vl = (size_t) (nl - l) - kl - 1;
            if (vl >= len)
                return EINVAL;
            memcpy(out, l + kl + 1, vl);
            out[vl] = '\0';
            return 0;
        }
        l = nl + 1;
    }
    return ENOENT;
}

/* Drops the white space before each item of the comma-separated list
 * 's', in place.  lightrail train wrote --demands as it was given, and
 * until 2026-12-07 it read a count with strtol(), which skips it: such
 * a file ("4, 8, 16") is read as it was trained ("4,8,16"), where
 * lightrail sim --policy-file, reading counts by today's rule, would
 * refuse it as if the user had given --demands ' 8'.  Blanks anywhere
 * else were refused then too, and are left to the readers. */
static void
pf_unblank_items(char *s)
{
    char *out = s;
    bool item_start = true;
    for (const char *in = s; *in; in++) {
        if (item_start && isspace((unsigned char) *in))
            continue;
        item_start = *in == ',';
        *out++ = *in;
    }
    *out = '\0';
}

int
lr_policy_parse(const uint8_t *buf, size_t n, const char *name,
                struct lr_policy_meta *m, struct lr_ppo **out, char *err,
                size_t errlen)
{
    *out = NULL;
    memset(m, 0, sizeof *m);
    int rc = 0;
    if (n < 16 || memcmp(buf, "LRPOLICY ", 9)) {
        lr_set_err(err, errlen, "%s: not a Lightrail policy file (make one "
                   "with lightrail train)", name);
        return EPROTO;
    }
    if (lr_fnv1a64(buf, n - 8) != lr_get64(buf + n - 8)) {
        lr_set_err(err, errlen, "%s: checksum mismatch: the file is truncated "
                   "or corrupt; copy or train it again", name);
        return EPROTO;
    }
    m->checksum = lr_get64(buf + n - 8);
    /* The header's blank line, before the checksum (whose bytes may
     * hold one too). */
    const uint8_t *end = NULL;
    for (size_t i = 1; i + 1 < n - 8; i++)
        if (buf[i] == '\n' && buf[i + 1] == '\n') {
            end = buf + i + 2;
            break;
        }
    if (!end) {
        lr_set_err(err, errlen, "%s: no end of header", name);
        return EPROTO;
    }
    size_t hl = (size_t) (end - buf);
    char *head = malloc(hl + 1);
    if (!head) {
        lr_set_err(err, errlen, "out of memory");
        return ENOMEM;
    }
    memcpy(head, buf, hl);
    head[hl] = '\0';
    char v[64];
    long version = 0;
    const char *missing = NULL;
    if (read_version(head + 9, v, sizeof v, &version)) {
        rc = EPROTO;
        lr_set_err(err, errlen, "%s: policy file version '%s' is no whole "
                   "number: not a file lightrail train wrote; train it "
                   "again", name, v);
    } else if (version != LR_POLICY_VERSION) {
        rc = EPROTO;
        lr_set_err(err, errlen, "%s: policy file version %ld, this "
                   "lightrail reads version %d: train it again", name,
                   version, LR_POLICY_VERSION);
    } else if (get_key(head, "models", m->models, sizeof m->models))
        missing = "models";
    else if (get_key(head, "demands", m->demands, sizeof m->demands))
        missing = "demands";
    else if (get_key(head, "topology", m->topology, sizeof m->topology))
        missing = "topology";
    else if (get_key(head, "dcs", m->dcs, sizeof m->dcs))
        missing = "dcs";
    else if (get_key(head, "command", m->command, sizeof m->command))
        missing = "command";
    else if (get_key(head, "gpus", m->gpus, sizeof m->gpus) == EINVAL)
        missing = "gpus";
    else if (get_key(head, "gpu-sig", m->gpu_sig, sizeof m->gpu_sig)
             == EINVAL)
        missing = "gpu-sig";
    else if (get_key(head, "net-sig", m->net_sig, sizeof m->net_sig)
             == EINVAL)
        missing = "net-sig";
    else if (get_key(head, "batch", v, sizeof v)
             || lr_parse_double(v, 1, 1e9, &m->batch))
        missing = "batch";
    else if (get_key(head, "microbatch", v, sizeof v)
             || lr_parse_double(v, 1e-9, 1e9, &m->micro))
        missing = "microbatch";
    else if (get_key(head, "block-penalty", v, sizeof v)
             || lr_parse_double(v, 0, 1e6, &m->block_penalty))
        missing = "block-penalty";
    else if (!get_key(head, "holding", v, sizeof v)
             && lr_jenv_holding_parse(v, &m->holding_mode))
        missing = "holding";
    else if (!get_key(head, "refuse", v, sizeof v)
             && strcmp(v, "0") && strcmp(v, "1"))
        missing = "refuse";
    else if (!get_key(head, "splits", v, sizeof v)
             && (m->n_splits = lr_jenv_splits_parse(v, m->splits, NULL, 0))
                < 0)
        missing = "splits";
    else if (!get_key(head, "imitate", v, sizeof v)
             && lr_parse_long(v, 1, 10000000000L, &m->imitate))
        missing = "imitate";
    else if ((m->imitate > 0) != !get_key(head, "teacher", m->teacher,
                                          sizeof m->teacher)
             || (m->imitate > 0 && !m->teacher[0]))
        missing = "teacher";
    else if (!get_key(head, "known-work", v, sizeof v) && strcmp(v, "1"))
        missing = "known-work";
    else if (!get_key(head, "held-work", v, sizeof v)
             && (strcmp(v, "1") || get_key(head, "known-work", v, sizeof v)))
        missing = "held-work";
    else if (!get_key(head, "triples", v, sizeof v) && strcmp(v, "1"))
        missing = "triples";
    else if (!get_key(head, "quads", v, sizeof v) && strcmp(v, "1"))
        missing = "quads";
    else if (!get_key(head, "observe-load", v, sizeof v) && strcmp(v, "1"))
        missing = "observe-load";
    else {
        m->observe_load = !get_key(head, "observe-load", v, sizeof v);
        m->triples = !get_key(head, "triples", v, sizeof v);
        m->quads = !get_key(head, "quads", v, sizeof v);
        m->known_work = !get_key(head, "known-work", v, sizeof v);
        m->held_work = !get_key(head, "held-work", v, sizeof v);
        m->refuse = !get_key(head, "refuse", v, sizeof v) && !strcmp(v, "1");
        long k, no, na;
        if (get_key(head, "k", v, sizeof v) || lr_parse_long(v, 1, 16, &k))
            missing = "k";
        else if (get_key(head, "n-obs", v, sizeof v)
                 || lr_parse_long(v, 1, 1000000, &no))
            missing = "n-obs";
        else if (get_key(head, "n-actions", v, sizeof v)
                 || lr_parse_long(v, 1, 1000000, &na))
            missing = "n-actions";
        else {
            m->k = (int) k;
            m->n_obs = (int) no;
            m->n_act = (int) na;
        }
    }
    if (!missing)
        pf_unblank_items(m->demands);
    free(head);
    if (missing) {
        rc = EPROTO;
        lr_set_err(err, errlen, "%s: header key '%s' missing or invalid",
                   name, missing);
    }
    if (rc)
        return rc;
    char e2[256];
    rc = lr_ppo_decode(end, (size_t) (buf + n - 8 - end), out, e2, sizeof e2);
    if (rc) {
        lr_set_err(err, errlen, "%s: %s", name, e2);
        return rc;
    }
    if ((*out)->cfg.n_obs != m->n_obs || (*out)->cfg.n_act != m->n_act) {
        rc = EPROTO;
        lr_set_err(err, errlen, "%s: the agent's sizes disagree with its "
                   "header", name);
        lr_ppo_free(*out);
        *out = NULL;
    }
    return rc;
}

int
lr_policy_load(const char *path, struct lr_policy_meta *m,
               struct lr_ppo **out, char *err, size_t errlen)
{
    *out = NULL;
    memset(m, 0, sizeof *m);
    /* Non-blocking, and a regular file only, read to its size: lightraild
     * reads the policy on its event loop, where a FIFO would block open()
     * for good and /dev/zero would be read to the cap. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        lr_set_err(err, errlen, "%s: %s", path, strerror(e));
        return e;
    }
    uint8_t *buf = NULL;
    size_t n = 0;
    int rc = 0;
    struct stat st;
    if (fstat(fd, &st)) {
        rc = errno;
        lr_set_err(err, errlen, "%s: %s", path, strerror(rc));
        goto cleanup;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = EINVAL;
        lr_set_err(err, errlen, "%s: not a regular file, not a policy", path);
        goto cleanup;
    }
    if (st.st_size > (off_t) MAX_FILE) {
        rc = EFBIG;
        lr_set_err(err, errlen, "%s: larger than %u MB, not a policy", path,
                   MAX_FILE >> 20);
        goto cleanup;
    }
    size_t size = (size_t) st.st_size;
    if (!(buf = malloc(size + 1))) {
        rc = ENOMEM;
        lr_set_err(err, errlen, "%s: out of memory", path);
        goto cleanup;
    }
    /* A file cut meanwhile reads short; one that grew is read to the
     * size it had (the checksums judge either). */
    while (n < size) {
        ssize_t got = read(fd, buf + n, size - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rc = errno;
            lr_set_err(err, errlen, "%s: %s", path, strerror(rc));
            goto cleanup;
        }
        if (got == 0)
            break;
        n += (size_t) got;
    }
    rc = lr_policy_parse(buf, n, path, m, out, err, errlen);
cleanup:
    close(fd);
    free(buf);
    return rc;
}

void
lr_policy_print_trained(FILE *out, const char *topology, const char *holding,
                        bool refuse, bool known_work, bool held_work)
{
    fprintf(out, "trained     on %s, holding %s; refusal %s, known work %s, "
            "held work %s\n", topology, holding, refuse ? "yes" : "no",
            known_work ? "yes" : "no", held_work ? "yes" : "no");
}

void
lr_policy_dcs(const struct lr_cluster *cl, char *out, size_t len)
{
    out[0] = '\0';
    for (int d = 0; d < cl->n_dcs; d++) {
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s%s", d ? "," : "", cl->dcs[d].name);
    }
}

void
lr_policy_gpus(const struct lr_cluster *cl, char *out, size_t len)
{
    out[0] = '\0';
    for (int d = 0; d < cl->n_dcs; d++) {
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s%d %s", d ? "," : "",
                 cl->dcs[d].n_devices,
                 cl->types[cl->dcs[d].device_type].name);
    }
}

/* FNV-1a 64 of 'h' continued over one line of text. */
static void
sig_line(uint64_t *h, const char *fmt, ...)
{
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    for (const char *s = line; *s; s++) {
        *h ^= (uint8_t) *s;
        *h *= UINT64_C(0x100000001b3);
    }
}

void
lr_policy_gpu_sig(const struct lr_cluster *cl, char out[17])
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int d = 0; d < cl->n_dcs; d++) {
        const struct lr_dc *dc = &cl->dcs[d];
        const struct lr_device_type *t = &cl->types[dc->device_type];
        sig_line(&h, "dc %.17g %.17g %.17g %.17g %.17g\n", t->peak_flops,
                 t->efficiency, t->memory_bytes, dc->intra_bw,
                 dc->intra_latency);
    }
    snprintf(out, 17, "%016llx", (unsigned long long) h);
}

void
lr_policy_net_sig(const struct lr_topo *topo, const struct lr_cluster *cl,
                  char out[17])
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    sig_line(&h, "roadms %d\n", topo->n_nodes);
    for (int i = 0; i < topo->n_links; i++) {
        const struct lr_link *l = &topo->links[i];
        sig_line(&h, "link %d %d %.17g %d\n", l->src, l->dst, l->length_km,
                 l->n_slots);
    }
    for (int d = 0; d < cl->n_dcs; d++)
        sig_line(&h, "dc %d\n", lr_topo_attach_node(topo, cl->dcs[d].name,
                                                    cl->dcs[d].attach_node));
    snprintf(out, 17, "%016llx", (unsigned long long) h);
}

enum lr_policy_net
lr_policy_net_diff(const struct lr_policy_meta *m, const struct lr_topo *topo,
                   const struct lr_cluster *cl, char *here, size_t len)
{
    char sig[17], dcs[sizeof m->dcs];
    lr_policy_dcs(cl, dcs, sizeof dcs);
    if (strcmp(m->topology, topo->name) || strcmp(m->dcs, dcs)) {
        snprintf(here, len, "'%s' with DCs %s", topo->name, dcs);
        return LR_POLICY_NET_NAMES;
    }
    lr_policy_gpus(cl, here, len);
    if (m->gpus[0] && strcmp(m->gpus, here))
        return LR_POLICY_NET_GPUS;
    lr_policy_gpu_sig(cl, sig);
    snprintf(here, len, "%s", sig);
    if (m->gpu_sig[0] && strcmp(m->gpu_sig, sig))
        return LR_POLICY_NET_GPU_SIG;
    lr_policy_net_sig(topo, cl, sig);
    snprintf(here, len, "%s", sig);
    if (m->net_sig[0] && strcmp(m->net_sig, sig))
        return LR_POLICY_NET_SIG;
    here[0] = '\0';
    return LR_POLICY_NET_SAME;
}

void
lr_policy_net_why(const struct lr_policy_meta *m, enum lr_policy_net d,
                  const char *here, const char *side, char *buf, size_t len)
{
    switch (d) {
    case LR_POLICY_NET_NAMES:
        snprintf(buf, len, "trained for topology '%s' with DCs %s, %s has %s",
                 m->topology, m->dcs, side, here);
        return;
    case LR_POLICY_NET_GPUS:
        /* The same DC names over other devices: its observations would
         * read GPU counts of an inventory it never saw. */
        snprintf(buf, len, "trained for the GPUs %s in its DCs, %s has %s",
                 m->gpus, side, here);
        return;
    case LR_POLICY_NET_GPU_SIG:
        /* The same GPU names over other devices: the stage times and
         * memory limits it learnt are not these. */
        snprintf(buf, len, "trained for other GPU or DC specifications "
                 "(signature %s, %s's %s: a device type's TFLOP/s, "
                 "efficiency or memory, or a DC's intra-DC bandwidth or "
                 "latency differ)", m->gpu_sig, side, here);
        return;
    case LR_POLICY_NET_SIG:
        /* The same name over other links: its routes are not those it
         * learnt. */
        snprintf(buf, len, "trained for another network named '%s' "
                 "(signature %s, %s's %s: its ROADMs, links, lengths, slots "
                 "or DC attachments differ)", m->topology, m->net_sig, side,
                 here);
        return;
    case LR_POLICY_NET_SAME:
        break;
    }
    if (len)
        buf[0] = '\0';
}

int
lr_policy_describe(FILE *out, const char *path, char *err, size_t errlen)
{
    struct lr_policy_meta m;
    struct lr_ppo *agent = NULL;
    int rc = lr_policy_load(path, &m, &agent, err, errlen);
    if (rc)
        return rc;
    char splits[64];
    lr_jenv_splits_format(m.splits, m.n_splits, splits, sizeof splits);
    fprintf(out, "file        %s\n", path);
    fprintf(out, "checksum    %016llx\n", (unsigned long long) m.checksum);
    lr_policy_print_trained(out, m.topology,
                            lr_jenv_holding_name(m.holding_mode), m.refuse,
                            m.known_work, m.held_work);
    fprintf(out, "dcs         %s\n", m.dcs);
    if (m.gpus[0])
        fprintf(out, "gpus        %s\n", m.gpus);
    if (m.gpu_sig[0])
        fprintf(out, "gpu specs   signature %s\n", m.gpu_sig);
    if (m.net_sig[0])
        fprintf(out, "network     signature %s\n", m.net_sig);
    fprintf(out, "jobs        models %s; GPU demands %s; batch %g, "
            "microbatch %g; GPU shares %s%s%s%s\n", m.models, m.demands,
            m.batch, m.micro, splits,
            m.triples ? "; pipelines over three DCs" : "",
            m.quads ? "; pipelines over four DCs" : "",
            m.observe_load ? "; observes the load" : "");
    fprintf(out, "agent       %d observations, %d actions, hidden %d x %d; "
            "K %d, block penalty %g\n", m.n_obs, m.n_act,
            agent->cfg.hidden[0], agent->cfg.hidden[1], m.k,
            m.block_penalty);
    if (m.teacher[0])
        fprintf(out, "teacher     %s, imitated for %ld decisions\n",
                m.teacher, m.imitate);
    fprintf(out, "command     %s\n", m.command);
    lr_ppo_free(agent);
    return 0;
}
