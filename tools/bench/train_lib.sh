# Shared by tools/bench/train_ab.sh and train_configs.sh (sourced, after
# `top` is set to the top of the tree): one BLAS thread, the training
# commands they time, and the timing and median helpers.
export OPENBLAS_NUM_THREADS=1
TIMEFORMAT=%U

# The shipped metro command (examples/policies/README.md) and the
# NSFNET/6 one of docs/ppo.md, less --steps and --out.
metro="--topology $top/examples/topologies/metro.json \
--cluster $top/examples/clusters/metro.json --seed 1 --load 2.5 \
--lr 3e-4 --gamma 0.5 --quiet"
nsfnet="--topology $top/examples/topologies/nsfnet.json \
--cluster $top/examples/clusters/nsfnet6.json --seed 1 --load 7 \
--lr 3e-4 --gamma 0.5 --quiet"

# user_s BIN DIR STEPS ARGS...: user CPU seconds of one training run in
# DIR (its policy file DIR/x.pol).
user_s() {
    local bin=$1 dir=$2 steps=$3
    shift 3
    mkdir -p "$dir"
    { time (cd "$dir" && "$bin" train "$@" --steps "$steps" \
                --out x.pol > /dev/null 2>&1); } 2>&1
}

# The median of the numbers on stdin, one a line.
median() {
    sort -g | awk '{ v[NR] = $1 } END {
        print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
