#!/bin/sh
# The systemd units under systemd itself.  units.sh rates the sandbox
# offline; whether the programs still work inside it only a running
# systemd can say (PrivateDevices, ProtectProc, ProcSubset, the system
# call filter, DynamicUser with StateDirectory), and this machine's PID 1
# is not systemd.  So: a Debian 12 tree (debootstrap, minbase, with the
# libraries the built programs link and systemd), `make install` into
# it, booted with systemd-nspawn (its own network namespace: loopback
# only), and there, as an operator following the units' comments would:
# systemd-sysusers' group lightrail, lightraild coordinating the
# example's two agents (lightrail-agent@dc2, @dc3) over mutual TLS, a job
# admitted across them, lightraild restarted with the job kept in its
# StateDirectory, the agent's reservation listed after it stopped, and
# each service's sandbox in force (no new privileges, a seccomp filter,
# no capability, not root).  Skipped, saying why, where the container
# cannot be made: not root, a sanitizer build (its programs need
# libasan), no Debian archive, or an nspawn that cannot boot here.
# Takes 2-3 minutes, most of it debootstrap (its packages are cached in
# /var/cache/lightrail-tests/debootstrap).
. "${srcdir:-.}/tests/cli/lib.sh"
[ "$(id -u)" = 0 ] || { echo "skip: not root (debootstrap, systemd-nspawn)"; exit 77; }
for c in debootstrap systemd-nspawn nsenter dpkg; do
    command -v $c > /dev/null || { echo "skip: no $c (tools/install-deps installs it)"; exit 77; }
done
if nm ./lightraild 2>/dev/null | grep -q __asan_init; then
    echo "skip: a sanitizer build (its programs need libasan; the plain build runs this)"
    exit 77
fi
unset MAKEFLAGS MFLAGS MAKELEVEL
MAKE=${MAKE:-make}
MIRROR=${LR_DEBIAN_MIRROR:-http://deb.debian.org/debian}
root=$tmp/root
nsp=
pid1=

stop_container() {
    [ -n "$nsp" ] || return 0
    # systemd-nspawn asks the container's systemd to power off.
    kill -TERM "$nsp" 2>/dev/null
    for i in $(seq 1 120); do
        kill -0 "$nsp" 2>/dev/null || break
        sleep 0.5
    done
    kill -KILL "$nsp" 2>/dev/null
    wait "$nsp" 2>/dev/null
    nsp=
}
trap 'stop_container; rm -rf "$tmp"' EXIT

# The packages of the libraries the programs link (alternatives
# followed: libopenblas.so.0 is one).
for lib in $(ldd ./lightraild ./lightrail | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u); do
    real=$(realpath "$lib")
    p=
    for f in "$real" "${real#/usr}" "$lib"; do
        [ -n "$p" ] || p=$(dpkg -S "$f" 2>/dev/null | head -1)
    done
    [ -n "$p" ] || { notok "no package has $lib ($real)"; continue; }
    echo "${p%%:*}" >> "$tmp/pkgs"
done
pkgs=$(sort -u "$tmp/pkgs" | sed 's/^/,/' | tr -d '\n')
mkdir -p /var/cache/lightrail-tests/debootstrap
if ! debootstrap --variant=minbase --cache-dir=/var/cache/lightrail-tests/debootstrap \
        --include="systemd,systemd-sysv,dbus$pkgs" bookworm "$root" "$MIRROR" \
        > "$tmp/debootstrap.log" 2>&1; then
    echo "skip: debootstrap from $MIRROR failed: $(tail -3 "$tmp/debootstrap.log")"
    exit 77
fi
ok "debootstrap bookworm with systemd and$(echo "$pkgs" | tr ',' ' ')"

lr_make_install "$root" bindir sbindir pkgdatadir sysconfdir

# The files the units' comments ask for, with absolute paths.
etc=$sysconfdir/lightrail
ex=$root$pkgdatadir/examples
mkdir -p "$root$etc/tls" "$root$etc/net"
cp "$ex/topologies/metro.json" "$root$etc/net/metro.json"
cp "$ex/clusters/metro-agents.json" "$root$etc/net/metro-agents.json"
sh "$ex/agents/make-pki.sh" "$root$etc/pki" > /dev/null
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 \
    -keyout "$root$etc/tls/key.pem" -out "$root$etc/tls/cert.pem" > /dev/null 2>&1
cat > "$root$etc/lightraild.json" <<EOF
{
  "lightrail-config:lightraild": {
    "listen": { "address": "127.0.0.1", "port": 8443, "tls": true,
                "certificate": "$etc/tls/cert.pem", "key": "$etc/tls/key.pem" },
    "token": [ { "name": "ops", "secret": "units-boot-token-0123456789" } ],
    "state-dir": "/var/lib/lightrail",
    "topology-file": "$etc/net/metro.json",
    "cluster-file": "$etc/net/metro-agents.json",
    "southbound": { "default-driver": "dummy" },
    "coordinator": { "certificate": "$etc/pki/lightraild.pem",
                     "key": "$etc/pki/lightraild.key", "ca": "$etc/pki/ca.pem" }
  }
}
EOF
for dc in dc2 dc3; do
    cert=$dc
    [ $dc = dc3 ] && cert=agent-dc3     # the name metro-agents.json gives
    jq --arg p "$etc/pki" --arg c "$cert" \
        '."lightrail-agent:agent".tls.certificate = "\($p)/\($c).pem"
         | ."lightrail-agent:agent".tls.key = "\($p)/\($c).key"
         | ."lightrail-agent:agent".tls.ca = "\($p)/ca.pem"' \
        "$ex/agents/$dc.json" > "$root$etc/agent-$dc.json"
done
echo "LISTEN=127.0.0.1:7002" > "$root$etc/agent-dc2.env"
echo "LISTEN=127.0.0.1:7003" > "$root$etc/agent-dc3.env"

echo "lrboot" > "$root/etc/hostname"
# No systemd on the host: nothing to register with, no scope to make.
systemd-nspawn -q -D "$root" -M "lrboot$$" --boot --register=no \
    --keep-unit --private-network > "$tmp/nspawn.log" 2>&1 &
nsp=$!
# The container's systemd: nspawn's descendant running systemd.
descendants() {
    for c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
        echo "$c"
        descendants "$c"
    done
}
for i in $(seq 1 100); do
    for p in $(descendants "$nsp"); do
        [ "$(cat /proc/"$p"/comm 2>/dev/null)" = systemd ] && { pid1=$p; break; }
    done
    [ -n "$pid1" ] && break
    kill -0 "$nsp" 2>/dev/null || break
    sleep 0.2
done
in_ct() { nsenter -t "$pid1" -a "$@"; }
state=
[ -n "$pid1" ] && state=$(in_ct timeout 120 systemctl is-system-running --wait 2>&1)
case $state in
running|degraded) ok "the container booted ($state)" ;;
*)
    echo "skip: systemd-nspawn could not boot a container here ($state): $(tail -5 "$tmp/nspawn.log")"
    exit 77 ;;
esac

if in_ct getent group lightrail > /dev/null; then
    ok "systemd-sysusers made the group lightrail (sysusers.d/lightrail.conf)"
else
    notok "no group lightrail in the container (sysusers.d/lightrail.conf not applied)"
fi
in_ct sh -c "chgrp lightrail $etc/tls/key.pem $etc/pki/*.key && chmod 0640 $etc/tls/key.pem $etc/pki/*.key"
in_ct systemctl start lightrail-agent@dc2 lightrail-agent@dc3 lightraild
for u in lightrail-agent@dc2 lightrail-agent@dc3 lightraild; do
    if in_ct systemctl is-active -q "$u"; then
        ok "$u active"
    else
        notok "$u: $(in_ct systemctl status --no-pager "$u" 2>&1 | tail -8)"
    fi
done
# The sandbox is in force in each main process.  Type=simple: start
# returns once systemd has forked, and the child sets its user, drops its
# capabilities and execs a moment later (a read at once once found uid 0
# and every capability; nspawn's own seccomp filter was there already):
# wait up to 10 s for the exec (the process's name is no longer that of
# systemd's child) before judging.
for u in lightrail-agent@dc2 lightraild; do
    pid=$(in_ct systemctl show -p MainPID --value "$u")
    for i in $(seq 1 50); do
        st=$(in_ct cat /proc/"$pid"/status 2>/dev/null)
        case $(echo "$st" | awk '/^Name:/ { print $2 }') in
        lightrail*) break ;;
        esac
        sleep 0.2
    done
    uid=$(echo "$st" | awk '/^Uid:/ { print $2 }')
    if echo "$st" | grep -q '^NoNewPrivs:[[:space:]]*1$' \
       && echo "$st" | grep -q '^Seccomp:[[:space:]]*2$' \
       && echo "$st" | grep -q '^CapEff:[[:space:]]*0*$' \
       && [ -n "$uid" ] && [ "$uid" != 0 ]; then
        ok "$u: no new privileges, seccomp filter, no capability, uid $uid"
    else
        notok "$u (pid $pid): $(echo "$st" | grep -E '^(Name|Uid|NoNewPrivs|Seccomp|CapEff):' | tr '\n' ' ')"
    fi
done

# Wait for lightraild's listener (it serves once started up).
cli() {
    in_ct env LIGHTRAIL_TOKEN=units-boot-token-0123456789 "$bindir/lightrail" \
        "$@" --server https://127.0.0.1:8443 --cacert "$etc/tls/cert.pem"
}
for i in $(seq 1 100); do
    cli job list > /dev/null 2>&1 && break
    sleep 0.2
done
cli job submit "$pkgdatadir/examples/lightraild/jobs/gpt-1.9b.json" > "$tmp/job" 2>&1
rc=$?
# An agent's stages show no devices: dc3 keeps its inventory private.
if [ $rc -eq 0 ] && grep -q 'active' "$tmp/job" && grep -Eq '^[0-9]+ +[0-9]+-[0-9]+ +dc[23] +\?' "$tmp/job"; then
    ok "a job admitted across the agents"
else
    notok "job submit -> exit $rc: $(cat "$tmp/job")"
fi
in_ct systemctl restart lightraild
for i in $(seq 1 100); do
    cli job list > "$tmp/list" 2>&1 && break
    sleep 0.2
done
if grep -q '^gpt-1.9b .*active' "$tmp/list"; then
    ok "lightraild restarted: the job kept in its StateDirectory"
else
    notok "after a restart: $(cat "$tmp/list")"
fi
in_ct systemctl stop lightraild lightrail-agent@dc3
res=$(in_ct "$bindir/lightrail" reservations --state-dir /var/lib/lightrail-agent/dc3 2>&1)
if echo "$res" | grep -q '^lightraild  *gpt-1.9b '; then
    ok "the agent's reservation outlives it in its StateDirectory"
else
    notok "reservations of dc3: $res"
fi
for u in lightraild lightrail-agent@dc3; do
    r=$(in_ct systemctl show -p Result --value "$u")
    [ "$r" = success ] && ok "$u stopped cleanly" || notok "$u stopped with $r"
done
log=$(in_ct journalctl --no-pager -u lightraild -u "lightrail-agent@*" 2>&1)
if echo "$log" | grep -Eiq 'not permitted|permission denied|read-only file system|bad system call'; then
    notok "the journal shows the sandbox refusing: $(echo "$log" | grep -Ei 'not permitted|permission denied|read-only|bad system call' | head -5)"
else
    ok "no refusal in the services' journal"
fi
stop_container
lr_summary
