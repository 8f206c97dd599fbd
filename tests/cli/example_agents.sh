#!/bin/sh
# The example of distributed CDynP works as examples/agents/README.md
# says: make-pki.sh's certificates, the agents of examples/agents/dc2.json
# and dc3.json, lightraild on examples/lightraild/agents.json (a copy of
# the examples, on free ports: the files themselves name 7002, 7003 and
# 8443), a job of examples/lightraild/jobs admitted with the agents'
# layers private, and `lightrail reservations` listing what the agents
# hold for it.  Then the systemd units (the agent's template and
# lightraild's) pass systemd-analyze verify with nothing to say.  Every
# process is ours, stopped by its PID.
. "${srcdir:-.}/tests/cli/lib.sh"
LIGHTRAILD=${LIGHTRAILD:-./lightraild}
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
PIDS=
trap 'kill $PIDS 2>/dev/null; rm -rf "$tmp"' EXIT
ABS=$(pwd)
LR=$(cd "$(dirname "$LIGHTRAIL")" && pwd)/$(basename "$LIGHTRAIL")
LRD=$(cd "$(dirname "$LIGHTRAILD")" && pwd)/$(basename "$LIGHTRAILD")

EX=$tmp/examples
cp -R "$srcdir/examples" "$EX"
chmod -R u+w "$EX"
# What the README's steps leave in the tree (git ignores it) is not the
# example's: a job of theirs in state-agents would make ours a 409.
rm -rf "$EX/lightraild/state-agents" "$EX/lightraild/tls" "$EX/agents/pki"
if sh "$EX/agents/make-pki.sh" > "$tmp/pki.out" 2>&1 \
   && [ -s "$EX/agents/pki/lightraild.pem" ] && [ -s "$EX/agents/pki/dc2.pem" ] \
   && [ -s "$EX/agents/pki/agent-dc3.pem" ]; then
    ok "make-pki.sh: $(cat "$tmp/pki.out")"
else
    notok "make-pki.sh: $(cat "$tmp/pki.out")"
    lr_summary
    exit 1
fi
# Run again, it keeps what is there (a CA made anew would orphan the rest).
sum=$(cat "$EX/agents/pki/ca.pem" "$EX/agents/pki/dc2.pem" | cksum)
sh "$EX/agents/make-pki.sh" > /dev/null 2>&1
[ "$(cat "$EX/agents/pki/ca.pem" "$EX/agents/pki/dc2.pem" | cksum)" = "$sum" ] \
    && ok "make-pki.sh run again keeps the certificates" \
    || notok "make-pki.sh run again made new certificates"

# agent NAME: the example agent NAME on a free port; sets APORT.
agent() {
    mkdir -p "$tmp/$1.state"
    "$LR" agent --config "$EX/agents/$1.json" --listen 127.0.0.1:0 \
        --state-dir "$tmp/$1.state" 2> "$tmp/$1.log" &
    PIDS="$PIDS $!"
    await_file "$tmp/$1.state/agent.port" $! "$tmp/$1.log" "agent $1" || return 1
    APORT=$(cat "$tmp/$1.state/agent.port")
}
agent dc2 && P2=$APORT && agent dc3 && P3=$APORT ||
    { notok "the example agents did not start"; lr_summary; exit 1; }

# lightraild on agents.json, the remote DCs at the agents' ports and its
# own on any free one.
jq --argjson p2 "$P2" --argjson p3 "$P3" '.["lightrail-compute:compute"].dc |= map(
      if .name == "dc2" then .remote.port = $p2
      elif .name == "dc3" then .remote.port = $p3 else . end)' \
    "$EX/clusters/metro-agents.json" > "$EX/clusters/metro-agents-free.json"
jq '.["lightrail-config:lightraild"].listen.port = 0
    | .["lightrail-config:lightraild"]["cluster-file"] = "../clusters/metro-agents-free.json"' \
    "$EX/lightraild/agents.json" > "$EX/lightraild/agents-free.json"
mkdir -p "$EX/lightraild/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -keyout "$EX/lightraild/tls/key.pem" -out "$EX/lightraild/tls/cert.pem" \
    -days 1 -subj /CN=localhost -addext subjectAltName=IP:127.0.0.1 2>/dev/null
"$LRD" --config "$EX/lightraild/agents-free.json" --foreground 2> "$tmp/d.log" &
DPID=$!
PIDS="$PIDS $DPID"
STATE=$EX/lightraild/state-agents
if await_file "$STATE/lightraild.port" $DPID "$tmp/d.log" lightraild; then
    URL=https://127.0.0.1:$(cat "$STATE/lightraild.port")
    CLI="--server $URL --token demo-token-0123456789 --cacert $EX/lightraild/tls/cert.pem"
    # shellcheck disable=SC2086
    "$LR" job submit "$EX/lightraild/jobs/gpt-1.9b.json" $CLI > "$tmp/job" 2>&1
    rc=$?
    # The stages an agent laid out show no devices: "?".
    if [ $rc -eq 0 ] && grep -q "^job gpt-1.9b: active" "$tmp/job" \
       && grep -Eq "^[0-9]+ +[0-9]+-[0-9]+ +dc[23] +\\? " "$tmp/job"; then
        ok "the example's job is admitted with an agent's stages private"
    else
        notok "the example's job: exit $rc: $(cat "$tmp/job"; tail -3 "$tmp/d.log")"
    fi
    # What the agents of its plan hold for lightraild, by the job's name.
    held=
    for dc in dc2 dc3; do
        grep -Eq "^[0-9]+ +[0-9]+-[0-9]+ +$dc " "$tmp/job" || continue
        "$LR" reservations --state-dir "$tmp/$dc.state" > "$tmp/res" 2>&1
        grep -Eq "^lightraild +gpt-1.9b +[0-9]+$" "$tmp/res" && held="$held $dc"
    done
    if [ -n "$held" ]; then
        ok "lightrail reservations lists the job at$held, for lightraild"
    else
        notok "no agent of the plan lists the job: $(cat "$tmp/res")"
    fi
    # Their logs say it as docs/agent-protocol.md quotes them ("What a DC
    # provisions"; it quoted a line the agent never wrote).
    logged=
    for dc in $held; do
        grep -Eq ": job [0-9]+: commit layers [0-9]+-[0-9]+ \((lex|time)[a-z-]*, assuming [0-9]+ stages\): [0-9]+ stage\(s\): " "$tmp/$dc.log" &&
            grep -Eq ": 'gpt-1.9b' committed: [0-9]+ of [0-9]+ devices free$" "$tmp/$dc.log" &&
            logged="$logged $dc"
    done
    if [ -n "$held" ] && [ "$logged" = "$held" ]; then
        ok "the agents' logs of the COMMIT are those docs/agent-protocol.md quotes:$logged"
    else
        notok "the agents' logs of the COMMIT ($held): $(grep -h commit "$tmp"/dc[23].log)"
    fi
    kill $DPID
    wait $DPID
else
    notok "lightraild did not start on examples/lightraild/agents.json"
fi

# The systemd units as make made them from their .in, with the built
# programs in place of the installed ones: systemd-analyze verify says
# nothing of a good unit (it exits 0 on a misspelt key too, saying so
# on stderr).
if command -v systemd-analyze > /dev/null; then
    mkdir -p "$tmp/units"
    sed "s#^ExecStart=[^ ]*/lightrail #ExecStart=$LR #" \
        "$ABS/tools/lightrail/lightrail-agent@.service" \
        > "$tmp/units/lightrail-agent@.service"
    sed "s#^ExecStart=[^ ]*/lightraild #ExecStart=$LRD #" \
        "$ABS/controller/lightraild.service" > "$tmp/units/lightraild.service"
    for u in "lightrail-agent@dc2.service" lightraild.service; do
        if systemd-analyze verify "$tmp/units/$u" > "$tmp/verify" 2>&1 \
           && [ ! -s "$tmp/verify" ]; then
            ok "systemd-analyze verify $u: nothing to say"
        elif grep -q "Failed to\|System has not been booted\|Cannot\|dbus" "$tmp/verify" \
             && ! grep -q "\.service:[0-9]" "$tmp/verify"; then
            echo "skip: systemd-analyze cannot verify here: $(head -1 "$tmp/verify")"
        else
            notok "systemd-analyze verify $u: $(cat "$tmp/verify")"
        fi
    done
else
    echo "skip: no systemd-analyze"
fi
cd "$ABS"
lr_summary
