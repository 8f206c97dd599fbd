/*
 * lightrail train: PPO (planner/lr_ppo.h) on the joint environment
 * (planner/lr_jenv.h) at one load, writing a policy file
 * (lr_policy_file.h) at every checkpoint and at the end, and a training
 * curve (mean reward and blocking per rollout against steps).
 *
 * With --envs N, N environments (one built, N - 1 clones sharing its
 * tables: lr_jenv_clone) step in lockstep and the agent acts on their N
 * observations in one batched pass (lr_ppo_act_batch); the rollout of
 * --rollout transitions is --rollout / N steps of each.  Environment e
 * restarts every --episode of its own steps; its k-th episode runs from
 * seed S * 1000003 + k * N + e (for N = 1: S * 1000003 + k, as before
 * --envs existed), so every episode of a run has its own seed and the
 * evaluation seeds of `lightrail sim` (1001 on by default) are never
 * among them for S >= 1.  The run is deterministic for (S, N); different
 * N give different (equally valid) runs.
 *
 * With --load FROM:TO each episode runs at its own load, uniform on
 * [FROM, TO] and drawn from the episode's seed (reset_episode), so the
 * run stays deterministic for (S, N); the agent does not observe the
 * load, only its effect on the network.
 *
 * The mask of each transition is copied before the environment steps:
 * lr_jenv_mask() is the pending job's and changes with the step.
 *
 * An episode's end at --episode steps is a time limit on a process that
 * never ends (Poisson arrivals), not a terminal state: its last
 * transition is stored as done (nothing flows back from the restarted
 * network) and bootstrapped from V of the state the step left
 * (lr_ppo_truncate, lr_ppo_imitate_truncate), not from 0.
 *
 * With --teacher NAME [--imitate N], PPO starts from an imitation of the
 * teacher (planner/lr_ppo_imitate.h has the model): N decisions of
 * DAgger on the same N environments and their seeds, in segments of
 * IMITATE_SEGMENT decisions.  In a segment every environment is stepped
 * by the teacher's action (the first segment: DAgger's beta = 1) or by
 * the student's most probable allowed action (every later one: beta =
 * 0); every visited state is labelled with the teacher's action (a
 * refusal, -1, as the refusal action: the teacher may refuse only when
 * the environment has it) and stored with the reward of the step that
 * followed; when the segment closes, its states (with their discounted
 * returns) go into the replay buffer (--imitate-buffer states, a
 * uniform sample of all those seen: reservoir) and the agent takes
 * IMITATE_EPOCHS x segment / IMITATE_MINIBATCH minibatch steps on the
 * buffer, the critic fitted to the returns.  Then --steps of PPO
 * continue from the imitated weights (with a new agent's Adam state),
 * the environments where imitation left them.  The teacher is any
 * lr_jenv_policy with its own 'arg' (imitate() takes both); the CLI
 * offers the baselines of lr_jenv_policies.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <cblas.h>

#include "planner/lr_jenv.h"
#include "planner/lr_jenv_rollout.h"
#include "planner/lr_obsnorm.h"
#include "planner/lr_ppo.h"
#include "planner/lr_ppo_imitate.h"
#include "planner/lr_util.h"
#include "tools/lightrail/lr_cli.h"
#include "tools/lightrail/lr_jenv_cli.h"
#include "tools/lightrail/lr_rollout_cli.h"
#include "tools/lightrail/lr_plot.h"
#include "tools/lightrail/lr_plot_title.h"
#include "tools/lightrail/lr_policy_file.h"

#define CMD "train"
/* The default of --envs: see docs/benchmarks.md for the measurement. */
#define TRAIN_ENVS 16
/* Imitation: --imitate's default when only --teacher is given; decisions
 * per DAgger segment; minibatch rows; passes over a segment's worth of
 * rows per segment (as PPO's 4 epochs, about 4 rows of update per
 * decision); the replay buffer's default (2.3 kB a state on NSFNET/6:
 * 75 MB). */
#define IMITATE_DEFAULT 200000
#define IMITATE_SEGMENT 4096
#define IMITATE_MINIBATCH 256
#define IMITATE_EPOCHS 4
#define IMITATE_BUFFER 32768

struct opts {
    struct lr_jenv_cli_opts env;
    double load_to;               /* --load FROM:TO: TO (env.load is FROM) */
    const char *out, *plot;
    long steps, episode, checkpoint;
    unsigned long long seed;
    int rollout, hidden, quiet, envs;
    int epochs, minibatches;      /* PPO's passes and their minibatches */
    double lr, gamma;
    const struct lr_jenv_policy *teacher;
    long imitate, imitate_buffer;
    double imitate_lr;
    double refusal_weight;        /* a refusal label's weight in imitation */
    double deviation_weight;      /* a rollout label off its base's choice */
    double work_cap;              /* the teacher greedy-work's theta */
    /* --teacher rollout-BASE: teacher is lr_jenv_rollout_policy, ro.base
     * the base; teacher_name as given. */
    struct lr_jenv_rollout_config ro;
    char teacher_name[64];
    const char *init;             /* --init: start from this file's weights */
    double entropy;               /* PPO's entropy coefficient */
    double anchor;                /* --anchor: c_A, 0 for none */
    double anchor_final;          /* --anchor-final, or -1: c_A kept */
    long critic_warmup;           /* PPO steps that train the critic only */
    long norm_obs;                /* --norm-obs: warm-up decisions, 0 off */
    int norm_reward;              /* --norm-reward */
};

static void
usage(FILE *f)
{
    fprintf(f,
"usage: lightrail train --topology FILE --cluster FILE --steps N --seed S\n"
"                       --out FILE [--load E|FROM:TO] [--episode N]\n"
"                       [--rollout N] [--hidden N] [--lr X] [--checkpoint N]\n"
"                       [--envs N] [--plot FILE.png] [--quiet]\n"
"                       [environment options]\n"
"\n"
"Trains a PPO agent (actor and critic MLPs, invalid-action masking) that\n"
"places arriving training jobs on GPUs and lightpaths, at one load or a\n"
"range of loads.  A progress bar on stderr gives steps/s, the mean reward\n"
"and the blocking of the last rollout (where stderr is not a terminal, a\n"
"line every 30 s, or every LIGHTRAIL_PROGRESS_SECONDS).  The policy file\n"
"is written at every checkpoint and at the end; use it with lightrail sim\n"
"--policy-file.  Stopped before its end (Ctrl-C, SIGTERM), train leaves\n"
"FILE as of its last checkpoint (before the first, FILE as it was), a\n"
"file sim runs whose command= line names the whole run, no curve, and\n"
"perhaps a FILE.tmp cut short.\n"
"\n"
"  --steps N           environment steps (decisions) to train for, over\n"
"                      all environments (rounded up to a multiple of\n"
"                      --envs), at least one --rollout: PPO updates once\n"
"                      per rollout, and the steps past the last whole one\n"
"                      are not learned from\n"
"  --seed S            seed of the agent and of the training arrivals,\n"
"                      1 to 2147483647\n"
"  --out FILE          the policy file (versioned, checksummed binary)\n"
"  --load E            offered load in Erlang while training (default 3);\n"
"                      FROM:TO, a range: each episode's load is drawn\n"
"                      uniformly from it (from the episode's seed)\n"
"  --episode N         restart the network every N steps (default 5000):\n"
"                      a time limit, not an end, so the last step's\n"
"                      return bootstraps from the critic (lines on\n"
"                      stderr count the episodes PPO and the imitation\n"
"                      learnt so)\n"
"  --rollout N         steps per PPO update (default 512)\n"
"  --hidden N          units in each of the two hidden layers (default 64)\n"
"  --epochs N          PPO's passes over each rollout (default 4)\n"
"  --minibatches N     minibatches per pass; must divide --rollout,\n"
"                      at most --rollout / 2 (default 4)\n"
"  --lr X              Adam's learning rate, annealed to 0 (default 2.5e-4)\n"
"  --gamma G           discount per decision (default 0.5, the best of\n"
"                      0, 0.3, 0.5, 0.9, 0.99 on the metro: docs/ppo.md)\n"
"  --checkpoint N      write the policy every N steps (default 50000)\n"
"  --envs N            environments stepped in lockstep, acted on in one\n"
"                      batched pass; must divide --rollout (default %d,\n"
"                      the fastest measured: docs/benchmarks.md); the run\n"
"                      is deterministic for a seed and N\n"
"  --plot FILE.png     the training curve (default: FILE of --out + .png;\n"
"                      none with --steps 0)\n"
"  --quiet             no progress bar\n"
"  --entropy X         PPO's entropy bonus (default 0.01)\n"
"  --anchor C          fine-tuning a start (--init or --teacher): adds C x\n"
"                      KL(start || agent) to PPO's loss, the start being\n"
"                      the actor as PPO begins (kickstarting's distillation\n"
"                      term; docs/ppo.md)\n"
"  --anchor-final C1   with --anchor: the coefficient goes linearly from C\n"
"                      at the actor's first step to C1 at the last (0: the\n"
"                      anchor fades out); default: C throughout\n"
"  --critic-warmup N   fine-tuning a start: the first N steps of PPO train\n"
"                      the critic only, to this run's reward and discount\n"
"  --reward R          slowdown: an admission earns -T / T_ref, a blocked\n"
"                      job -P of --block-penalty (default); blocking: an\n"
"                      admission earns 0 (only blocking counts; in the\n"
"                      work mode slow placements still cost, as they hold\n"
"                      GPUs longer)\n"
"  --refuse            add the action 'refuse the job' (blocked, reward\n"
"                      -block-penalty), offered whenever a job is pending,\n"
"                      and the job's least slowdown to the observation;\n"
"                      recorded in the file (refuse=1)\n"
"  --teacher NAME      start from an imitation of the baseline NAME (one\n"
"                      of lightrail sim's: greedy, static, ...): DAgger,\n"
"                      the environments stepped by the teacher for the\n"
"                      first %d decisions, by the student after, every\n"
"                      state labelled with the teacher's choice; then\n"
"                      --steps of PPO from the imitated weights; recorded\n"
"                      in the file (teacher=, imitate=); rollout-BASE:\n"
"                      the rollout policy of the baseline BASE (as\n"
"                      lightrail sim --rollout BASE) with the --rollout-*\n"
"                      options below; slow: a label costs a rollout\n"
"                      decision; rollout-ppo: the rollout policy of the\n"
"                      agent of --init (kept as loaded, while the student\n"
"                      starts from its weights): one step of policy\n"
"                      iteration\n"
"  --init FILE         start from the weights of the policy FILE (trained\n"
"                      for the same environment and --hidden) instead of\n"
"                      random ones: imitation, if asked, then PPO go on\n"
"                      from there; FILE's teacher= and imitate= carry over\n"
"                      when this run imitates nothing; a FILE without\n"
"                      held work into a run with --held-work is widened\n"
"                      (the new inputs start at weight 0)\n"
"  --imitate N         decisions of imitation before PPO, rounded up to a\n"
"                      multiple of --envs (default 0: none; %d when\n"
"                      --teacher is given); --steps 0 then means\n"
"                      imitation alone\n"
"  --work-cap THETA    greedy-work's threshold (as in lightrail sim;\n"
"                      default 1), for --teacher greedy-work or\n"
"                      rollout-greedy-work (which need --known-work)\n"
"  --imitate-lr X      Adam's learning rate while imitating, constant\n"
"                      (default 3e-3)\n"
"  --imitate-buffer N  labelled states kept for the minibatches, a uniform\n"
"                      sample of all seen (default %d)\n"
"  --refusal-weight W  with --refuse: a state the teacher refused weighs W\n"
"                      in the imitation's cross-entropy, every other 1\n"
"                      (default 1; refusals are rare labels)\n"
"  --deviation-weight W  with a rollout-BASE teacher: a state where the\n"
"                      rollout left its base's choice weighs W in the\n"
"                      imitation's cross-entropy, every other 1 (default\n"
"                      1; such labels are rare)\n"
"  --norm-obs N        standardise the observations while training, with\n"
"                      the mean and deviation of N decisions of greedy on\n"
"                      seeds of their own (20000 is plenty; default 0:\n"
"                      off); the file gets them folded into its first\n"
"                      layers, so it decides on raw observations\n"
"  --norm-reward       PPO stores each reward divided by the deviation of\n"
"                      the discounted returns so far (CleanRL's\n"
"                      NormalizeReward; default off)\n"
"%s"
"%s"
"\nexit status: 0 done, 1 internal failure, 2 bad input\n", TRAIN_ENVS,
            IMITATE_SEGMENT, IMITATE_DEFAULT, IMITATE_BUFFER,
            lr_rollout_cli_help, lr_jenv_cli_help);
}

/* "E" into *from = *to = E, or "FROM:TO" (0 < FROM <= TO); -1 unless
 * well formed (*from and *to then unchanged). */
static int
parse_load_range(const char *s, double *from, double *to)
{
    const char *colon = strchr(s, ':');
    double a, b;
    if (!colon) {
        if (lr_parse_double(s, 1e-6, 1e6, &a))
            return -1;
        *from = *to = a;
        return 0;
    }
    char head[64];
    size_t n = (size_t) (colon - s);
    if (n >= sizeof head)
        return -1;
    memcpy(head, s, n);
    head[n] = '\0';
    if (lr_parse_double(head, 1e-6, 1e6, &a)
        || lr_parse_double(colon + 1, 1e-6, 1e6, &b) || b < a)
        return -1;
    *from = a;
    *to = b;
    return 0;
}

/* Restarts 'env' on the episode of 'seed', at that episode's load:
 * --load's, or with a range a uniform draw from it, a function of the
 * seed alone. */
static void
reset_episode(struct lr_jenv *env, const struct opts *o, uint64_t seed)
{
    double load = o->env.load;
    if (o->load_to > o->env.load) {
        uint64_t x = seed ^ UINT64_C(0x6c6f6164);     /* "load" */
        double u = (double) (lr_rng_splitmix64(&x) >> 11) * 0x1p-53;
        load += u * (o->load_to - o->env.load);
    }
    lr_jenv_set_load(env, load);
    lr_jenv_reset(env, seed, 0);
}

static int
parse_args(int argc, char **argv, struct opts *o)
{
    enum { O_TOPO = 256, O_CLUSTER, O_STEPS, O_SEED, O_OUT, O_LOAD, O_EP,
           O_ROLL, O_HIDDEN, O_LR, O_GAMMA, O_CKPT, O_PLOT, O_QUIET, O_ENVS,
           O_REFUSE, O_TEACHER, O_IMITATE, O_IMLR, O_IMBUF, O_WCAP, O_INIT,
           O_REWARD, O_ENTROPY, O_ANCHOR, O_CWARM, O_AFINAL, O_RWEIGHT,
           O_DWEIGHT, O_NORM, O_NORMR, O_EPOCHS, O_MINIB, O_HELP };
    static const struct option longopts[] = {
        { "topology", required_argument, NULL, O_TOPO },
        { "cluster", required_argument, NULL, O_CLUSTER },
        { "steps", required_argument, NULL, O_STEPS },
        { "seed", required_argument, NULL, O_SEED },
        { "out", required_argument, NULL, O_OUT },
        { "load", required_argument, NULL, O_LOAD },
        { "episode", required_argument, NULL, O_EP },
        { "rollout", required_argument, NULL, O_ROLL },
        { "hidden", required_argument, NULL, O_HIDDEN },
        { "lr", required_argument, NULL, O_LR },
        { "gamma", required_argument, NULL, O_GAMMA },
        { "checkpoint", required_argument, NULL, O_CKPT },
        { "plot", required_argument, NULL, O_PLOT },
        { "quiet", no_argument, NULL, O_QUIET },
        { "envs", required_argument, NULL, O_ENVS },
        { "refuse", no_argument, NULL, O_REFUSE },
        { "teacher", required_argument, NULL, O_TEACHER },
        { "imitate", required_argument, NULL, O_IMITATE },
        { "imitate-lr", required_argument, NULL, O_IMLR },
        { "imitate-buffer", required_argument, NULL, O_IMBUF },
        { "work-cap", required_argument, NULL, O_WCAP },
        { "init", required_argument, NULL, O_INIT },
        { "reward", required_argument, NULL, O_REWARD },
        { "entropy", required_argument, NULL, O_ENTROPY },
        { "anchor", required_argument, NULL, O_ANCHOR },
        { "critic-warmup", required_argument, NULL, O_CWARM },
        { "anchor-final", required_argument, NULL, O_AFINAL },
        { "refusal-weight", required_argument, NULL, O_RWEIGHT },
        { "deviation-weight", required_argument, NULL, O_DWEIGHT },
        { "norm-obs", required_argument, NULL, O_NORM },
        { "norm-reward", no_argument, NULL, O_NORMR },
        { "epochs", required_argument, NULL, O_EPOCHS },
        { "minibatches", required_argument, NULL, O_MINIB },
        LR_ROLLOUT_CLI_LONGOPTS,
        LR_JENV_CLI_LONGOPTS,
        { "help", no_argument, NULL, O_HELP },
        { NULL, 0, NULL, 0 },
    };
    long v;
    int c, have_seed = 0, have_imitate = 0, have_steps = 0, have_rweight = 0;
    int have_dweight = 0, have_wcap = 0;
    /* Options of one teacher, which any other would ignore: the first
     * given, for the message. */
    const char *ro_opt = NULL, *im_opt = NULL;
    char known[512];
    /* Each option that takes a value at most once (lr_cli_once()). */
    struct lr_cli_once once = { 0 };
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        int rc_once = lr_cli_once(CMD, longopts, c, optarg, &once);
        if (rc_once)
            return rc_once;
        const char *bad = NULL;
        switch (c) {
        case O_TOPO: o->env.topology = optarg; break;
        case O_CLUSTER: o->env.cluster = optarg; break;
        case O_STEPS:
            if (lr_parse_long(optarg, 0, 10000000000L, &o->steps))
                bad = "--steps wants a positive integer, up to 10000000000";
            have_steps = 1;
            break;
        case O_SEED:
            if (lr_parse_long(optarg, 1, 2147483647L, &v))
                bad = "--seed wants an integer from 1 to 2147483647";
            o->seed = (unsigned long long) v;
            have_seed = 1;
            break;
        case O_OUT: o->out = optarg; break;
        case O_LOAD:
            if (parse_load_range(optarg, &o->env.load, &o->load_to))
                bad = "--load wants a positive number of Erlang, or a "
                      "range FROM:TO with 0 < FROM <= TO";
            break;
        case O_EP:
            if (lr_parse_long(optarg, 10, 1000000000L, &o->episode))
                bad = "--episode wants an integer >= 10";
            break;
        case O_ROLL:
            if (lr_parse_long(optarg, 8, 1000000, &v))
                bad = "--rollout wants an integer in 8..1000000";
            o->rollout = (int) v;
            break;
        case O_HIDDEN:
            if (lr_parse_long(optarg, 1, 4096, &v))
                bad = "--hidden wants an integer in 1..4096";
            o->hidden = (int) v;
            break;
        case O_EPOCHS:
            if (lr_parse_long(optarg, 1, 64, &v))
                bad = "--epochs wants an integer in 1..64";
            o->epochs = (int) v;
            break;
        case O_MINIB:
            if (lr_parse_long(optarg, 1, 1024, &v))
                bad = "--minibatches wants an integer in 1..1024";
            o->minibatches = (int) v;
            break;
        case O_LR:
            if (lr_parse_double(optarg, 1e-9, 1, &o->lr))
                bad = "--lr wants a number in (0, 1]";
            break;
        case O_GAMMA:
            if (lr_parse_double(optarg, 0, 1, &o->gamma))
                bad = "--gamma wants a number in [0, 1]";
            break;
        case O_CKPT:
            if (lr_parse_long(optarg, 1, 10000000000L, &o->checkpoint))
                bad = "--checkpoint wants a positive integer, "
                    "up to 10000000000";
            break;
        case O_PLOT: o->plot = optarg; break;
        case O_QUIET: o->quiet = 1; break;
        case O_REFUSE: o->env.refuse = true; break;
        case O_TEACHER:
            snprintf(o->teacher_name, sizeof o->teacher_name, "%s", optarg);
            o->ro.base = NULL;
            if (!strcasecmp(optarg, "rollout-ppo")) {
                /* the base is the agent of --init, kept frozen */
                o->ro.base = &lr_ppo_jenv_policy;
                o->teacher = &lr_jenv_rollout_policy;
                break;
            }
            if (!strncasecmp(optarg, "rollout-", 8)
                && (o->ro.base = lr_jenv_policy_find(optarg + 8))) {
                o->teacher = &lr_jenv_rollout_policy;
                break;
            }
            if (!(o->teacher = lr_jenv_policy_find(optarg))) {
                known[0] = '\0';
                for (int i = 0; lr_jenv_policies[i]; i++)
                    snprintf(known + strlen(known), sizeof known
                             - strlen(known), "%s%s", i ? ", " : "",
                             lr_jenv_policies[i]->name);
                lr_cli_err(CMD, "--teacher: no policy '%s'; the teachers "
                           "are %s, rollout-NAME for each, and rollout-ppo "
                           "(with --init)", optarg,
                           known);
                return LR_EXIT_USAGE;
            }
            break;
        case O_NORM:
            if (lr_parse_long(optarg, 0, 100000000L, &o->norm_obs)
                || (o->norm_obs > 0 && o->norm_obs < 2))
                bad = "--norm-obs wants a number of decisions >= 2 (0: off)";
            break;
        case O_NORMR: o->norm_reward = 1; break;
        case O_IMITATE:
            if (lr_parse_long(optarg, 0, 10000000000L, &o->imitate))
                bad = "--imitate wants an integer >= 0 (decisions)";
            have_imitate = 1;
            break;
        case O_IMLR:
            im_opt = "--imitate-lr";
            if (lr_parse_double(optarg, 1e-9, 1, &o->imitate_lr))
                bad = "--imitate-lr wants a number in (0, 1]";
            break;
        case O_IMBUF:
            im_opt = "--imitate-buffer";
            if (lr_parse_long(optarg, IMITATE_MINIBATCH, 100000000L,
                              &o->imitate_buffer))
                bad = "--imitate-buffer wants an integer in 256..100000000";
            break;
        case O_INIT: o->init = optarg; break;
        case O_REWARD:
            if (!strcmp(optarg, "blocking"))
                o->env.reward_blocking_only = true;
            else if (!strcmp(optarg, "slowdown"))
                o->env.reward_blocking_only = false;
            else
                bad = "--reward wants slowdown or blocking";
            break;
        case O_ENTROPY:
            if (lr_parse_double(optarg, 0, 1, &o->entropy))
                bad = "--entropy wants a number in [0, 1]";
            break;
        case O_ANCHOR:
            if (lr_parse_double(optarg, 1e-9, 1e6, &o->anchor))
                bad = "--anchor wants a positive number, up to 1e6";
            break;
        case O_AFINAL:
            if (lr_parse_double(optarg, 0, 1e6, &o->anchor_final))
                bad = "--anchor-final wants a number in [0, 1e6]";
            break;
        case O_RWEIGHT:
            if (lr_parse_double(optarg, 1e-6, 1e6, &o->refusal_weight))
                bad = "--refusal-weight wants a positive number, up to 1e6";
            have_rweight = 1;
            break;
        case O_DWEIGHT:
            if (lr_parse_double(optarg, 1e-6, 1e6, &o->deviation_weight))
                bad = "--deviation-weight wants a positive number, up to 1e6";
            have_dweight = 1;
            break;
        case O_CWARM:
            if (lr_parse_long(optarg, 1, 10000000000L, &o->critic_warmup))
                bad = "--critic-warmup wants a positive integer (steps), "
                    "up to 10000000000";
            break;
        case O_WCAP:
            if (lr_parse_double(optarg, 1e-9, 1e9, &o->work_cap))
                bad = "--work-cap wants a positive number, up to 1e9";
            have_wcap = 1;
            break;
        case O_ENVS:
            if (lr_parse_long(optarg, 1, 4096, &v))
                bad = "--envs wants an integer in 1..4096";
            o->envs = (int) v;
            break;
        case O_HELP:
            usage(stdout);
            return -1;
        default:
            if (!lr_rollout_cli_env_option(c, optarg, &o->ro, &o->env,
                                           &ro_opt, &bad))
                return lr_cli_bad_option(CMD, argv, optind);
        }
        if (bad)
            return lr_cli_bad_value(CMD, bad, optarg);
    }
    if (lr_cli_extra_args(CMD, argc, argv, optind))
        return LR_EXIT_USAGE;
    if (o->teacher && !have_imitate)
        o->imitate = IMITATE_DEFAULT;
    if (ro_opt && (!o->imitate || o->teacher != &lr_jenv_rollout_policy)) {
        lr_cli_err(CMD, "--%s sets the rollout teacher: add --teacher "
                   "rollout-BASE", ro_opt);
        return LR_EXIT_USAGE;
    }
    if (im_opt && !o->imitate) {
        lr_cli_err(CMD, "%s sets the imitation: add --teacher NAME", im_opt);
        return LR_EXIT_USAGE;
    }

    if (o->imitate > 0 && !o->teacher) {
        lr_cli_err(CMD, "--imitate %ld wants --teacher NAME: the policy to "
                   "imitate", o->imitate);
        return LR_EXIT_USAGE;
    }
    bool greedy_work = o->teacher == &lr_jenv_greedy_work
                       || (o->teacher == &lr_jenv_rollout_policy
                           && o->ro.base == &lr_jenv_greedy_work);
    if (greedy_work && !o->env.known_work) {
        lr_cli_err(CMD, "--teacher %s reads each job's length: add "
                   "--known-work", o->teacher_name);
        return LR_EXIT_USAGE;
    }
    /* Only greedy-work reads the threshold, and only while it teaches:
     * given to any other run, it would change nothing, silently. */
    if (have_wcap && !greedy_work) {
        lr_cli_err(CMD, "--work-cap is greedy-work's threshold, and no "
                   "greedy-work teaches: add --teacher greedy-work or "
                   "--teacher rollout-greedy-work, or leave --work-cap out");
        return LR_EXIT_USAGE;
    }
    if (have_wcap && !o->imitate) {
        lr_cli_err(CMD, "--work-cap is the teacher %s's threshold, and "
                   "--imitate 0 runs no teacher: give --imitate N, or "
                   "leave --work-cap out", o->teacher_name);
        return LR_EXIT_USAGE;
    }
    if (have_rweight && (!o->imitate || !o->env.refuse)) {
        lr_cli_err(CMD, "--refusal-weight weighs the teacher's refusals in "
                   "imitation: add --teacher NAME and --refuse");
        return LR_EXIT_USAGE;
    }
    if (have_dweight
        && (!o->imitate || o->teacher != &lr_jenv_rollout_policy)) {
        lr_cli_err(CMD, "--deviation-weight weighs the labels where a "
                   "rollout teacher leaves its base: add --teacher "
                   "rollout-BASE");
        return LR_EXIT_USAGE;
    }
    if (o->ro.base == &lr_ppo_jenv_policy && !o->init) {
        lr_cli_err(CMD, "--teacher rollout-ppo wants --init FILE: the "
                   "agent whose rollout teaches");
        return LR_EXIT_USAGE;
    }
    if (have_steps && !o->steps && !o->imitate) {
        lr_cli_err(CMD, "--steps wants a positive integer, not '0' (0 only "
                   "with --teacher: imitation alone)");
        return LR_EXIT_USAGE;
    }
    if ((o->anchor > 0 || o->critic_warmup) && !o->init && !o->imitate) {
        lr_cli_err(CMD, "%s fine-tunes a start: add --init FILE or "
                   "--teacher NAME", o->anchor > 0 ? "--anchor"
                   : "--critic-warmup");
        return LR_EXIT_USAGE;
    }
    if (o->anchor_final >= 0 && !(o->anchor > 0)) {
        lr_cli_err(CMD, "--anchor-final anneals the anchor: add --anchor C");
        return LR_EXIT_USAGE;
    }
    if (o->critic_warmup && o->critic_warmup >= o->steps) {
        lr_cli_err(CMD, "--critic-warmup %ld leaves no step for the actor: "
                   "make it smaller than --steps %ld", o->critic_warmup,
                   o->steps);
        return LR_EXIT_USAGE;
    }
    if (!have_steps || !have_seed || !o->out) {
        lr_cli_err(CMD, "--steps N, --seed S and --out FILE are required");
        return LR_EXIT_USAGE;
    }
    if (o->rollout % o->envs) {
        lr_cli_err(CMD, "--envs %d does not divide --rollout %d: each "
                   "environment contributes rollout / envs steps; pick "
                   "--envs among the divisors of --rollout", o->envs,
                   o->rollout);
        return LR_EXIT_USAGE;
    }
    if (o->rollout % o->minibatches) {
        lr_cli_err(CMD, "--minibatches %d does not divide --rollout %d: "
                   "pick it among the divisors of --rollout",
                   o->minibatches, o->rollout);
        return LR_EXIT_USAGE;
    }
    if (o->rollout / o->minibatches < 2) {
        lr_cli_err(CMD, "--minibatches %d leaves one transition in each of "
                   "--rollout %d's minibatches, whose advantage normalises "
                   "to 0 (the actor would not learn): pick at most %d",
                   o->minibatches, o->rollout, o->rollout / 2);
        return LR_EXIT_USAGE;
    }
    /* PPO updates once per full rollout and drops a partial last one
     * (lr_ppo.h): a run of fewer steps, once rounded up to --envs, would
     * write its start (random weights, --init's or the imitation's) as
     * if trained, and exit 0. */
    long run = (o->steps + o->envs - 1) / o->envs * o->envs;
    if (o->steps > 0 && run < o->rollout) {
        lr_cli_err(CMD, "--steps %ld makes no PPO update: PPO learns once "
                   "every --rollout (%d) steps, and the file would be its "
                   "start, untrained; give --steps %d or more, or a "
                   "smaller --rollout%s", o->steps, o->rollout, o->rollout,
                   o->imitate ? " (--steps 0: imitation alone)" : "");
        return LR_EXIT_USAGE;
    }
    /* The curve is PPO's rollouts; imitation alone draws none, and the
     * user would learn it only after the imitation. */
    if (o->steps == 0 && o->plot) {
        lr_cli_err(CMD, "--plot %s: --steps 0 trains no PPO, so there is "
                   "no training curve to draw: leave --plot out, or give "
                   "--steps %d or more", o->plot, o->rollout);
        return LR_EXIT_USAGE;
    }
    return LR_EXIT_OK;
}

/* The training curve: each rollout's mean reward and blocking,
 * averaged over the last PLOT_WINDOW rollouts (one rollout's are too
 * noisy to see a trend in), blocking in percent on the right axis. */
#define PLOT_WINDOW 20
#define PLOT_REWARD "mean reward per decision"
#define PLOT_BLOCKING "blocking (%)"

struct moving {
    double v[PLOT_WINDOW], sum;
    int n, next;
};

/* Adds x; returns the mean of the last PLOT_WINDOW values added (fewer
 * at the start). */
static double
moving_add(struct moving *m, double x)
{
    if (m->n == PLOT_WINDOW)
        m->sum -= m->v[m->next];
    else
        m->n++;
    m->v[m->next] = x;
    m->sum += x;
    m->next = (m->next + 1) % PLOT_WINDOW;
    return m->sum / m->n;
}

/* The bar of PPO's steps; with --anchor, also how far the agent has
 * moved from its start (the last update's mean KL), and "critic" while
 * the actor waits for --critic-warmup. */
static void
progress(struct lr_cli_progress *pg, const struct opts *o, long step,
         double t0, double reward, double blocking, double anchor_kl)
{
    int width = 30, fill = (int) (width * (double) step / o->steps);
    double dt = lr_cli_now() - t0;
    char tail[64] = "";
    if (step < o->critic_warmup)
        snprintf(tail, sizeof tail, " critic ");
    else if (o->anchor > 0)
        snprintf(tail, sizeof tail, " KL to start %.4f ", anchor_kl);
    lr_cli_progress_show(pg, "%s: [%.*s%*s] %3d%% %ld/%ld  %7.0f steps/s  "
                         "reward %7.3f  blocking %6.2f%% %s", CMD, fill,
                         "##############################", width - fill, "",
                         (int) (100.0 * step / o->steps), step, o->steps,
                         dt > 0 ? step / dt : 0, reward, 100 * blocking,
                         tail);
}

static void
imitate_progress(struct lr_cli_progress *pg, const struct opts *o, long n,
                 double t0, double agree, double blocking)
{
    int width = 30, fill = (int) (width * (double) n / o->imitate);
    double dt = lr_cli_now() - t0;
    lr_cli_progress_show(pg, "%s: imitating %s [%.*s%*s] %3d%% %ld/%ld  "
                         "%7.0f states/s  agreement %6.2f%%  blocking "
                         "%6.2f%% ", CMD, o->teacher_name, fill,
                         "##############################", width - fill, "",
                         (int) (100.0 * n / o->imitate), n, o->imitate,
                         dt > 0 ? n / dt : 0, 100 * agree, 100 * blocking);
}

/* The environments as imitation and PPO share them: N states, each one's
 * steps in its episode, episodes begun, and metrics at the last count. */
struct envs {
    int N;
    struct lr_jenv **env;
    long *ep_steps, *episode;
    struct lr_jenv_metrics *m0;
    uint64_t base;
    const struct opts *o;         /* the loads of the episodes */
    const struct lr_obsnorm *norm;    /* --norm-obs, or NULL */
};

/* Rows 0..N-1 of obs and masks: each environment's observation, as the
 * agent sees it (standardised with --norm-obs), and its mask. */
static void
observe_all(const struct envs *v, float *obs, uint8_t *masks, int no,
            int na)
{
    for (int e = 0; e < v->N; e++) {
        lr_jenv_observe(v->env[e], obs + (size_t) e * no);
        memcpy(masks + (size_t) e * na, lr_jenv_mask(v->env[e]), (size_t) na);
    }
    if (v->norm)
        lr_obsnorm_apply(v->norm, obs, v->N);
}

/* Starts environment e's episode v->episode[e] at its seed and load. */
static void
start_episode(struct envs *v, int e)
{
    uint64_t seed = v->base + (uint64_t) v->episode[e] * v->N + (uint64_t) e;
    reset_episode(v->env[e], v->o, seed);
    v->ep_steps[e] = 0;
    memset(&v->m0[e], 0, sizeof v->m0[e]);
}

/* --norm-obs: the statistics of o->norm_obs observations of greedy's
 * decisions on a clone of the environments, episodes of --episode
 * decisions on seeds base - 1, base - 2, ... (this run's training seeds
 * start at base; the previous seed's would reach them only after 10^6
 * episodes), at each seed's load.  Greedy rather than the agent: an
 * untrained agent's states are not those of training for long, and
 * greedy's are close to a trained agent's.  An exit status, with one
 * line on stderr unless 0; *out then the caller's. */
static int
observation_stats(const struct opts *o, const struct envs *v,
                  struct lr_obsnorm **out)
{
    int no = lr_jenv_obs_size(v->env[0]), rc = LR_EXIT_OK;
    struct lr_jenv *w = NULL;
    struct lr_obsnorm *s = NULL;
    float *x = malloc((size_t) no * sizeof *x);
    if (!x || lr_jenv_clone(v->env[0], &w) || lr_obsnorm_new(no, &s)) {
        lr_cli_err(CMD, "out of memory for --norm-obs");
        rc = LR_EXIT_FAIL;
        goto done;
    }
    struct lr_rng rng;
    lr_rng_seed(&rng, o->seed + 3000003ULL);
    long in_ep = 0;
    uint64_t seed = v->base - 1;
    reset_episode(w, o, seed);
    for (long k = 0; k < o->norm_obs; k++) {
        lr_jenv_observe(w, x);
        lr_obsnorm_add(s, x);
        int a = lr_jenv_greedy.choose(NULL, w, lr_jenv_mask(w), &rng);
        lr_jenv_step(w, a);
        if (++in_ep >= o->episode || lr_jenv_done(w)) {
            in_ep = 0;
            reset_episode(w, o, --seed);
        }
    }
    lr_obsnorm_freeze(s);
    *out = s;
    s = NULL;
done:
    lr_obsnorm_free(s);
    lr_jenv_free(w);
    free(x);
    return rc;
}

/* Writes the policy file; with --norm-obs, the statistics folded into
 * the first layers for the file only (so it decides on raw
 * observations), the weights in training restored bit for bit. */
static int
save_policy(const char *path, const struct lr_policy_meta *meta,
            struct lr_ppo *ppo, const struct lr_obsnorm *norm, char *err,
            size_t errlen)
{
    if (!norm)
        return lr_policy_save(path, meta, ppo, err, errlen);
    size_t na = (size_t) ppo->actor->n_params;
    size_t nc = (size_t) ppo->critic->n_params;
    double *keep = malloc((na + nc) * sizeof *keep);
    if (!keep) {
        snprintf(err, errlen, "out of memory writing %s", path);
        return ENOMEM;
    }
    memcpy(keep, ppo->actor->params, na * sizeof *keep);
    memcpy(keep + na, ppo->critic->params, nc * sizeof *keep);
    lr_obsnorm_fold(norm, ppo->actor);
    lr_obsnorm_fold(norm, ppo->critic);
    int rc = lr_policy_save(path, meta, ppo, err, errlen);
    memcpy(ppo->actor->params, keep, na * sizeof *keep);
    memcpy(ppo->critic->params, keep + na, nc * sizeof *keep);
    lr_mlp_params_changed(ppo->actor);
    lr_mlp_params_changed(ppo->critic);
    free(keep);
    return rc;
}

/* Whether environment e's episode was cut by --episode rather than
 * ended (end[e]: either).  The process it samples never ends (Poisson
 * arrivals); only a scripted trace runs out (lr_jenv_done). */
static bool
cut_short(const struct envs *v, const bool *end, int e)
{
    return end[e] && !lr_jenv_done(v->env[e]);
}

/* When an episode was cut (cut_short), V of each environment's state
 * as its step left it, before any restart, into vals[e]: one batched
 * pass of the critic over the rows obs, masks and acts (the caller's
 * scratch of N rows, overwritten), no random draw.  The bootstrap of a
 * cut episode: its last state is not terminal, and treating it as one
 * (V = 0) gave the last transitions a target short of gamma V(s').
 * Returns whether any episode was cut (vals untouched otherwise). */
static bool
values_of_cut(const struct envs *v, struct lr_ppo *ppo, const bool *end,
              float *obs, uint8_t *masks, int *acts, double *vals)
{
    bool any = false;
    for (int e = 0; e < v->N; e++)
        any |= cut_short(v, end, e);
    if (!any)
        return false;
    observe_all(v, obs, masks, ppo->cfg.n_obs, ppo->cfg.n_act);
    lr_ppo_act_batch(ppo, v->N, obs, masks, false, acts, NULL, vals);
    return true;
}

/* Restarts the environments whose episode ended (end[e]), each on the
 * next seed of its own sequence. */
static void
restart_ended(struct envs *v, const bool *end)
{
    for (int e = 0; e < v->N; e++)
        if (end[e]) {
            v->episode[e]++;
            start_episode(v, e);
        }
}

/* The blocking of the environments since the last count; counts again. */
static double
blocking_since(struct envs *v)
{
    long arr = 0, blocked = 0;
    for (int e = 0; e < v->N; e++) {
        struct lr_jenv_metrics m1;
        lr_jenv_metrics(v->env[e], &m1);
        arr += m1.arrivals - v->m0[e].arrivals;
        blocked += m1.blocked - v->m0[e].blocked;
        v->m0[e] = m1;
    }
    return arr > 0 ? (double) blocked / arr : 0;
}

/* --init: copies the actor's and the critic's weights of the policy file
 * 'path' into 'ppo' (the same sizes), and its teacher= and imitate= into
 * 'meta' unless this run imitates.  A file without held work into a run
 * with --held-work (and otherwise the same options) is widened: the
 * held-work inputs start at weight 0, so the agent decides as the file
 * does until training moves them.  With 'keep' non-NULL the agent as
 * loaded (widened alike) is left in *keep, unchanged by training (the
 * caller frees it): the base of --teacher rollout-ppo.  Returns an exit
 * status, with one line on stderr unless 0. */
static int
init_weights(const char *path, struct lr_ppo *ppo, struct lr_policy_meta *meta,
             struct lr_ppo **keep)
{
    struct lr_policy_meta im;
    struct lr_ppo *from = NULL;
    char err[1024];
    if (lr_policy_load(path, &im, &from, err, sizeof err)) {
        lr_cli_err(CMD, "--init: %s", err);
        return LR_EXIT_USAGE;
    }
    bool widen = !im.held_work && meta->held_work;
    if ((widen ? im.n_obs > ppo->cfg.n_obs : im.n_obs != ppo->cfg.n_obs)
        || im.n_act != ppo->cfg.n_act
        || (!widen && (from->actor->n_params != ppo->actor->n_params
                       || from->critic->n_params
                          != ppo->critic->n_params))
        || im.known_work != meta->known_work
        || (im.held_work && !meta->held_work)
        || !lr_mlp_copy_widened(from->actor, ppo->actor)
        || !lr_mlp_copy_widened(from->critic, ppo->critic)) {
        lr_cli_err(CMD, "--init %s: trained for %d observations, %d actions "
                   "and %d hidden units, this run has %d, %d and %d: give "
                   "the options it was trained with (%s)", path, im.n_obs,
                   im.n_act, from->cfg.hidden[0], ppo->cfg.n_obs,
                   ppo->cfg.n_act, ppo->cfg.hidden[0], im.command);
        lr_ppo_free(from);
        return LR_EXIT_USAGE;
    }
    if (meta->imitate == 0 && im.imitate > 0) {
        snprintf(meta->teacher, sizeof meta->teacher, "%s", im.teacher);
        meta->imitate = im.imitate;
    }
    lr_ppo_free(from);
    if (!keep)
        return LR_EXIT_OK;
    /* The base: a copy of the weights as loaded (widened). */
    size_t n = lr_ppo_encoded_size(ppo);
    uint8_t *buf = malloc(n);
    int rc = buf && lr_ppo_encode(ppo, buf, n) == n
             ? lr_ppo_decode(buf, n, keep, err, sizeof err) : ENOMEM;
    free(buf);
    if (rc) {
        lr_cli_err(CMD, "--init %s: %s", path, rc == ENOMEM
                   ? "out of memory" : err);
        return LR_EXIT_FAIL;
    }
    return LR_EXIT_OK;
}

/* DAgger (the file's comment, planner/lr_ppo_imitate.h) of 'teacher'
 * with its 'arg' for o->imitate decisions over the environments of v,
 * training 'ppo'; 'ro', the teacher's rollout when it is one (else
 * NULL), tells which labels left its base (o->deviation_weight).
 * Returns an exit status, with one line on stderr unless 0. */
static int
imitate(const struct opts *o, const struct lr_jenv_policy *teacher,
        void *arg, struct lr_jenv_rollout *ro, struct lr_ppo *ppo,
        struct envs *v, struct lr_cli_progress *pg)
{
    int N = v->N, no = ppo->cfg.n_obs, na = ppo->cfg.n_act;
    int refuse = lr_jenv_refuse_action(v->env[0]);
    struct lr_ppo_imitate_config ic = {
        .capacity = (int) o->imitate_buffer, .n_envs = N,
        .segment = (IMITATE_SEGMENT + N - 1) / N * N,
        .minibatch = IMITATE_MINIBATCH, .gamma = ppo->cfg.gamma,
        .seed = o->seed + 2000003ULL,
        /* with the refusal action, its labels are counted (and weighed) */
        .label_action = refuse, .label_weight = refuse >= 0
                                                ? o->refusal_weight : 0,
    };
    struct lr_ppo_imitate *im = NULL;
    float *obs = malloc((size_t) N * no * sizeof *obs);
    uint8_t *masks = malloc((size_t) N * na);
    int *sacts = malloc((size_t) N * sizeof *sacts);
    int *tacts = malloc((size_t) N * sizeof *tacts);
    double *tw = malloc((size_t) N * sizeof *tw);
    double *lastv = malloc((size_t) N * sizeof *lastv);
    bool *end = calloc((size_t) N, sizeof *end);
    struct lr_rng trng;
    lr_rng_seed(&trng, o->seed + 1000003ULL);
    int rc = LR_EXIT_OK, seg = 0;
    if (!obs || !masks || !sacts || !tacts || !tw || !lastv || !end
        || lr_ppo_imitate_new(no, na, &ic, &im)) {
        lr_cli_err(CMD, "out of memory for imitation: try a smaller "
                   "--imitate-buffer");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    double t0 = lr_cli_now(), agree = 0, blocking = 0;
    long n = 0, seen = 0, agreed = 0;
    struct lr_ppo_imitate_stats st = { 0 };
    for (int e = 0; e < N; e++)
        lr_jenv_metrics(v->env[e], &v->m0[e]);
    while (n < o->imitate) {
        observe_all(v, obs, masks, no, na);
        lr_ppo_act_batch(ppo, N, obs, masks, false, sacts, NULL, NULL);
        for (int e = 0; e < N; e++) {
            const uint8_t *mk = masks + (size_t) e * na;
            struct lr_jenv_rollout_stats rs0, rs1;
            if (ro)
                lr_jenv_rollout_stats(ro, &rs0);
            int a = teacher->choose(arg, v->env[e], mk, &trng);
            tw[e] = 1;
            if (ro) {
                lr_jenv_rollout_stats(ro, &rs1);
                if (rs1.deviated > rs0.deviated)
                    tw[e] = o->deviation_weight;
            }
            if (a < 0 && refuse < 0) {
                lr_cli_err(CMD, "the teacher %s refused a job and the "
                           "student cannot: add --refuse (the refusal "
                           "action) or pick another teacher", o->teacher_name);
                rc = LR_EXIT_USAGE;
                goto cleanup;
            }
            if (a < 0)
                a = refuse;
            if (a >= na || !mk[a]) {
                lr_cli_err(CMD, "the teacher %s chose action %d, which the "
                           "mask forbids: a bug in that policy", o->teacher_name,
                           a);
                rc = LR_EXIT_FAIL;
                goto cleanup;
            }
            tacts[e] = a;
            agreed += sacts[e] == a;
        }
        seen += N;
        bool full = false;
        for (int e = 0; e < N; e++) {
            /* DAgger's beta: 1 in the first segment, 0 after. */
            double r = lr_jenv_step(v->env[e], seg ? sacts[e] : tacts[e]);
            end[e] = ++v->ep_steps[e] >= o->episode || lr_jenv_done(v->env[e]);
            full = lr_ppo_imitate_store_w(im, obs + (size_t) e * no,
                                          masks + (size_t) e * na, tacts[e],
                                          tw[e], r, end[e]);
        }
        if (values_of_cut(v, ppo, end, obs, masks, sacts, lastv))
            for (int e = 0; e < N; e++)
                if (cut_short(v, end, e))
                    lr_ppo_imitate_truncate(im, e, lastv[e]);
        n += N;
        if (full || n >= o->imitate) {
            observe_all(v, obs, masks, no, na);
            lr_ppo_act_batch(ppo, N, obs, masks, false, sacts, NULL, lastv);
            for (int e = 0; e < N; e++)
                if (end[e])
                    lastv[e] = 0;
            lr_ppo_imitate_close(im, lastv);
            blocking = blocking_since(v);
            agree = (double) agreed / seen;
            agreed = seen = 0;
            if (lr_ppo_imitate_fit(im, ppo, IMITATE_EPOCHS, o->imitate_lr,
                                   true, &st)) {
                lr_cli_err(CMD, "imitation: a labelled state the agent "
                           "cannot take (internal error)");
                rc = LR_EXIT_FAIL;
                goto cleanup;
            }
            seg++;
        }
        if (lr_cli_progress_due(pg))
            imitate_progress(pg, o, n < o->imitate ? n : o->imitate, t0,
                             agree, blocking);
        restart_ended(v, end);
    }
    lr_cli_progress_end(pg);
    if (!o->quiet)
        fprintf(stderr, "%s: imitated %s for %ld decisions (%d segments, "
                "%d environments) in %.1f s (%.0f states/s); agreement "
                "%.2f%% and blocking %.2f%% on the last segment (before "
                "training on it), cross-entropy %.4f\n", CMD, o->teacher_name,
                n, seg, N, lr_cli_now() - t0,
                n / fmax(1e-9, lr_cli_now() - t0), 100 * agree,
                100 * blocking, st.loss);
    /* The imitation's own count of the cuts its returns bootstrapped,
     * not ours: a cut stored as an episode end would leave it 0. */
    if (!o->quiet && im->truncated > 0)
        fprintf(stderr, "%s: %ld episodes cut at --episode %ld steps while "
                "imitating, each return bootstrapped from the critic\n",
                CMD, im->truncated, o->episode);
    if (!o->quiet && refuse >= 0)
        fprintf(stderr, "%s: refusals were %.2f%% of the labels in the last "
                "fit's minibatches (weight %g); the student agreed on %.2f%% "
                "of them\n", CMD, st.rows ? 100.0 * st.label_rows / st.rows
                : 0, o->refusal_weight, 100 * st.label_agreement);
    if (!o->quiet && ro && o->deviation_weight != 1)
        fprintf(stderr, "%s: labels off the rollout's base were %.2f%% of "
                "the last fit's minibatches (weight %g); the student agreed "
                "on %.2f%% of them\n", CMD, st.rows ? 100.0 * st.heavy_rows
                / st.rows : 0, o->deviation_weight,
                100 * st.heavy_agreement);
    lr_ppo_imitate_finish(ppo);
cleanup:
    lr_ppo_imitate_free(im);
    free(obs);
    free(masks);
    free(sacts);
    free(tacts);
    free(tw);
    free(lastv);
    free(end);
    return rc;
}

/* The defaults (env.load apart: 3, set after), for the options and for
 * the title, which names what differs from them. */
#define TRAIN_OPTS_DEFAULTS                                                 \
    {                                                                       \
        .env = { LR_JENV_CLI_DEFAULTS }, .episode = 5000, .rollout = 512,   \
        .hidden = 64, .epochs = 4, .minibatches = 4, .lr = 2.5e-4,          \
        .gamma = 0.5, .checkpoint = 50000,                                  \
        .envs = TRAIN_ENVS, .imitate_lr = 3e-3,                             \
        .imitate_buffer = IMITATE_BUFFER, .refusal_weight = 1,              \
        .deviation_weight = 1,                                              \
        .work_cap = LR_JENV_WORK_CAP_DEFAULT,                               \
        .ro = { LR_JENV_ROLLOUT_DEFAULTS }, .entropy = 0.01,                \
        .anchor_final = -1,                                                 \
    }

int
lr_cmd_train(int argc, char **argv)
{
    struct opts o = TRAIN_OPTS_DEFAULTS;
    const struct opts d = TRAIN_OPTS_DEFAULTS;
    o.env.load = 3;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? LR_EXIT_OK : rc;
    /* The policy is first written at a checkpoint or at the end, after
     * minutes or hours of imitation and training. */
    if (lr_cli_output_check(CMD, "--out", o.out)
        || lr_cli_output_check(CMD, "--plot", o.plot))
        return LR_EXIT_USAGE;
    /* One BLAS thread: one core, and bit-for-bit repeatable runs. */
    openblas_set_num_threads(1);
    struct lr_jenv_cli j;
    if ((rc = lr_jenv_cli_open(CMD, &o.env, &j)))
        return rc;
    int N = o.envs;
    struct lr_ppo_config pc;
    lr_ppo_defaults(&pc, lr_jenv_obs_size(j.env), lr_jenv_n_actions(j.env));
    pc.hidden[0] = pc.hidden[1] = o.hidden;
    pc.n_steps = o.rollout;
    pc.n_epochs = o.epochs;
    pc.n_minibatches = o.minibatches;
    pc.n_envs = N;
    pc.lr = o.lr;
    pc.gamma = o.gamma;
    pc.ent_coef = o.entropy;
    pc.total_steps = o.steps;
    pc.seed = o.seed;
    pc.norm_reward = o.norm_reward;
    struct lr_ppo *ppo = NULL;
    struct lr_jenv_rollout *ro = NULL;
    struct lr_ppo *base_agent = NULL;     /* rollout-ppo's base, frozen */
    struct lr_obsnorm *norm = NULL;       /* --norm-obs's statistics */
    /* Per environment e: its state, row e of the observations and masks,
     * its action, log-probability, value, bootstrap value, steps in the
     * episode, episodes begun, end flag, and metrics at the rollout's
     * start. */
    struct lr_jenv **envs = calloc((size_t) N, sizeof *envs);
    float *obs = malloc((size_t) N * pc.n_obs * sizeof *obs);
    uint8_t *masks = malloc((size_t) N * pc.n_act);
    int *acts = malloc((size_t) N * sizeof *acts);
    double *logps = malloc((size_t) N * sizeof *logps);
    double *values = malloc((size_t) N * sizeof *values);
    double *lastv = malloc((size_t) N * sizeof *lastv);
    long *ep_steps = calloc((size_t) N, sizeof *ep_steps);
    long *episode = calloc((size_t) N, sizeof *episode);
    bool *end = calloc((size_t) N, sizeof *end);
    struct lr_jenv_metrics *m0 = calloc((size_t) N, sizeof *m0);
    /* The title names every option off its default (the environment's,
     * then PPO's and the start's), so that two agents' curves differ. */
    char setup[512], title[1024];
    lr_plot_env_words(&o.env, setup, sizeof setup);
    if (o.gamma != d.gamma)
        lr_plot_words_add(setup, sizeof setup, "gamma %g", o.gamma);
    if (o.hidden != d.hidden)
        lr_plot_words_add(setup, sizeof setup, "hidden %d", o.hidden);
    if (o.lr != d.lr)
        lr_plot_words_add(setup, sizeof setup, "lr %g", o.lr);
    if (o.entropy != d.entropy)
        lr_plot_words_add(setup, sizeof setup, "entropy %g", o.entropy);
    if (o.teacher)
        lr_plot_words_add(setup, sizeof setup, "teacher %s", o.teacher_name);
    if (o.init)
        lr_plot_words_add(setup, sizeof setup, "init %s", o.init);
    if (o.anchor != d.anchor)
        lr_plot_words_add(setup, sizeof setup, "anchor %g", o.anchor);
    if (o.norm_obs)
        lr_plot_words_add(setup, sizeof setup, "norm-obs %ld", o.norm_obs);
    if (o.norm_reward)
        lr_plot_words_add(setup, sizeof setup, "norm-reward");
    lr_plot_train_title(j.topo->name, o.env.cluster, o.env.load, o.load_to,
                        o.seed, setup, PLOT_WINDOW, title, sizeof title);
    struct lr_plot *plot = lr_plot_new(title, "steps (decisions over all "
                                       "environments)",
                                       "mean reward per decision", false);
    struct moving avg_r = { 0 }, avg_b = { 0 };
    char err[1024], plot_path[4096];
    struct lr_policy_meta meta = { .batch = o.env.batch, .micro = o.env.micro,
                                   .k = o.env.k,
                                   .block_penalty = o.env.block_penalty,
                                   .holding_mode = o.env.holding_mode,
                                   .refuse = o.env.refuse,
                                   .n_splits = o.env.n_splits,
                                   .known_work = o.env.known_work,
                                   .held_work = o.env.held_work,
                                   .triples = o.env.triples,
                                   .quads = o.env.quads,
                                   .observe_load = o.env.observe_load,
                                   .n_obs = pc.n_obs, .n_act = pc.n_act };
    memcpy(meta.splits, o.env.splits, sizeof meta.splits);
    if (o.imitate > 0) {
        snprintf(meta.teacher, sizeof meta.teacher, "%s",
                 o.teacher == &lr_jenv_rollout_policy ? o.teacher_name
                 : o.teacher->name);
        meta.imitate = o.imitate;
    }
    snprintf(meta.models, sizeof meta.models, "%s", o.env.models);
    snprintf(meta.demands, sizeof meta.demands, "%s", o.env.demands);
    snprintf(meta.topology, sizeof meta.topology, "%s", j.topo->name);
    lr_policy_dcs(j.cl, meta.dcs, sizeof meta.dcs);
    lr_policy_gpus(j.cl, meta.gpus, sizeof meta.gpus);
    lr_policy_gpu_sig(j.cl, meta.gpu_sig);
    lr_policy_net_sig(j.topo, j.cl, meta.net_sig);
    for (int i = 0; i < argc; i++)
        snprintf(meta.command + strlen(meta.command), sizeof meta.command
                 - strlen(meta.command), "%s%s", i ? " " : "lightrail ",
                 argv[i]);
    snprintf(plot_path, sizeof plot_path, "%s", o.plot ? o.plot : "");
    if (!o.plot)
        snprintf(plot_path, sizeof plot_path, "%s.png", o.out);
    if (!envs || !obs || !masks || !acts || !logps || !values || !lastv
        || !ep_steps || !episode || !end || !m0 || !plot
        || lr_plot_style(plot, PLOT_REWARD, LR_PLOT_LINE)
        || lr_plot_style(plot, PLOT_BLOCKING, LR_PLOT_LINE | LR_PLOT_Y2)
        || lr_ppo_new(&pc, &ppo)) {
        lr_cli_err(CMD, "out of memory");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    lr_plot_y2label(plot, PLOT_BLOCKING);
    if (o.init && (rc = init_weights(o.init, ppo, &meta,
                                     o.ro.base == &lr_ppo_jenv_policy
                                     ? &base_agent : NULL)))
        goto cleanup;
    envs[0] = j.env;
    for (int e = 1; e < N; e++)
        if (lr_jenv_clone(j.env, &envs[e])) {
            lr_cli_err(CMD, "out of memory for %d environments: try a "
                       "smaller --envs", N);
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
    struct envs v = { N, envs, ep_steps, episode, m0, o.seed * 1000003ULL,
                      &o, NULL };
    for (int e = 0; e < N; e++)
        start_episode(&v, e);
    if (o.norm_obs > 0) {
        if ((rc = observation_stats(&o, &v, &norm)))
            goto cleanup;
        v.norm = norm;
        /* A start trained on raw observations computes the same on the
         * standardised ones. */
        if (o.init && (lr_obsnorm_unfold(norm, ppo->actor)
                       || lr_obsnorm_unfold(norm, ppo->critic))) {
            lr_cli_err(CMD, "--init: the networks' input is not the "
                       "observation's width: a bug");
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
    }
    struct lr_cli_progress pg;
    lr_cli_progress_init(&pg, o.quiet);
    if (o.imitate > 0) {
        void *targ = o.teacher == &lr_jenv_greedy_work ? &o.work_cap : NULL;
        if (o.teacher == &lr_jenv_rollout_policy) {
            o.ro.base_arg = o.ro.base == &lr_jenv_greedy_work ? &o.work_cap
                            : o.ro.base == &lr_ppo_jenv_policy
                            ? (void *) base_agent
                            : NULL;
            if (lr_jenv_rollout_new(envs[0], &o.ro, &ro)) {
                lr_cli_err(CMD, "out of memory for the rollout teacher");
                rc = LR_EXIT_FAIL;
                goto cleanup;
            }
            targ = ro;
        }
        if ((rc = imitate(&o, o.teacher, targ, ro, ppo, &v, &pg)))
            goto cleanup;
        if (o.steps > 0
            && save_policy(o.out, &meta, ppo, norm, err, sizeof err)) {
            lr_cli_err(CMD, "%s", err);
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
    }
    if (o.anchor > 0 && lr_ppo_anchor(ppo, o.anchor)) {
        lr_cli_err(CMD, "out of memory for the anchor");
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    double t0 = lr_cli_now(), roll_reward = 0;
    long step = 0;
    /* Cut episodes that reached PPO's GAE as cuts (its own count, not
     * ours: a cut stored as an end would leave it 0). */
    long truncated = 0;
    while (step < o.steps) {
        ppo->freeze_actor = step < o.critic_warmup;
        if (o.anchor_final >= 0) {
            /* Linear from --anchor at the actor's first step to
             * --anchor-final at the last. */
            double f = (double) (step - o.critic_warmup)
                       / (double) (o.steps - o.critic_warmup);
            f = f < 0 ? 0 : f > 1 ? 1 : f;
            ppo->anchor_coef = o.anchor + (o.anchor_final - o.anchor) * f;
        }
        observe_all(&v, obs, masks, pc.n_obs, pc.n_act);
        lr_ppo_act_batch(ppo, N, obs, masks, true, acts, logps, values);
        bool full = false;
        for (int e = 0; e < N; e++) {
            double r = lr_jenv_step(envs[e], acts[e]);
            roll_reward += r;
            end[e] = ++ep_steps[e] >= o.episode || lr_jenv_done(envs[e]);
            full = lr_ppo_store(ppo, obs + (size_t) e * pc.n_obs,
                                masks + (size_t) e * pc.n_act, acts[e],
                                logps[e], values[e], r, end[e]);
        }
        if (values_of_cut(&v, ppo, end, obs, masks, acts, lastv))
            for (int e = 0; e < N; e++)
                if (cut_short(&v, end, e))
                    lr_ppo_truncate(ppo, e, lastv[e]);
        long prev = step;
        step += N;
        if (full) {
            double blocking = blocking_since(&v);
            /* V of each environment's next state; an ended or cut
             * one's is not used (its episode stops there, a cut one
             * bootstrapped by lr_ppo_truncate above). */
            observe_all(&v, obs, masks, pc.n_obs, pc.n_act);
            lr_ppo_act_batch(ppo, N, obs, masks, false, acts, NULL, lastv);
            for (int e = 0; e < N; e++)
                if (end[e])
                    lastv[e] = 0;
            double mean_r = roll_reward / pc.n_steps;
            roll_reward = 0;
            struct lr_ppo_stats st;
            lr_ppo_update_envs(ppo, lastv, &st);
            truncated += st.truncated;
            if (lr_plot_add(plot, PLOT_REWARD, (double) step,
                            moving_add(&avg_r, mean_r), 0)
                || lr_plot_add(plot, PLOT_BLOCKING, (double) step,
                               100 * moving_add(&avg_b, blocking), 0)) {
                lr_cli_err(CMD, "out of memory");
                rc = LR_EXIT_FAIL;
                goto cleanup;
            }
            if (lr_cli_progress_due(&pg))
                progress(&pg, &o, step < o.steps ? step : o.steps, t0,
                         mean_r, blocking, st.anchor_kl);
        }
        restart_ended(&v, end);
        if (step / o.checkpoint > prev / o.checkpoint && step < o.steps
            && save_policy(o.out, &meta, ppo, norm, err, sizeof err)) {
            lr_cli_err(CMD, "%s", err);
            rc = LR_EXIT_FAIL;
            goto cleanup;
        }
    }
    lr_cli_progress_end(&pg);
    if (save_policy(o.out, &meta, ppo, norm, err, sizeof err)) {
        lr_cli_err(CMD, "%s", err);
        rc = LR_EXIT_FAIL;
        goto cleanup;
    }
    if (!o.quiet && !o.steps)
        fprintf(stderr, "%s: imitation alone (--steps 0); wrote %s\n", CMD,
                o.out);
    else if (!o.quiet)
        fprintf(stderr, "%s: %ld steps (%d environments) in %.1f s (%.0f "
                "steps/s); wrote %s\n", CMD, step, N, lr_cli_now() - t0,
                step / fmax(1e-9, lr_cli_now() - t0), o.out);
    if (!o.quiet && truncated > 0)
        fprintf(stderr, "%s: %ld episodes cut at --episode %ld steps, "
                "each bootstrapped from the critic by PPO\n", CMD,
                truncated, o.episode);
    if (step < pc.n_steps) {
        if (!o.quiet && o.steps > 0)
            fprintf(stderr, "%s: no training curve: fewer steps than one "
                    "rollout (%d)\n", CMD, pc.n_steps);
    } else {
        if (lr_plot_write_png(plot, plot_path, err, sizeof err)) {
            lr_cli_err(CMD, "%s", err);
            rc = LR_EXIT_FAIL;
        } else if (!o.quiet) {
            fprintf(stderr, "%s: wrote %s\n", CMD, plot_path);
        }
    }
cleanup:
    lr_jenv_rollout_free(ro);
    lr_ppo_free(base_agent);
    lr_obsnorm_free(norm);
    lr_plot_free(plot);
    lr_ppo_free(ppo);
    if (envs)
        for (int e = 1; e < N; e++)
            lr_jenv_free(envs[e]);
    free(envs);
    free(obs);
    free(masks);
    free(acts);
    free(logps);
    free(values);
    free(lastv);
    free(ep_steps);
    free(episode);
    free(end);
    free(m0);
    lr_jenv_cli_close(&j);
    return rc;
}
