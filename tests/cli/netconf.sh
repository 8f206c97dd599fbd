# Real NETCONF devices for the tests and the benchmark (sourced after
# lib.sh, which made $tmp): one netconfd (yuma123) per ROADM, each
# loading yang/lightrail-roadm.yang, behind ONE private sshd on 127.0.0.1
# with its own configuration, PID file, host key and one Port per device
# (../shared/reference/southbound.md, where the traps are written down).
#
#   nc_start r1 r2 r3 r4     start the devices (sets NC_DIR, NC_USER,
#                            NC_KEY, NC_KNOWN, NC_PORT_<name>, NC_PID_<name>)
#   nc_address r1            user@127.0.0.1:PORT, the driver's address
#   nc_kill r1 / nc_restart r1 / nc_stop_dev r1 / nc_cont_dev r1
#   nc_stop                  stop exactly the PIDs started here, remove
#                            the user made here; the caller's EXIT trap
#                            must call it, e.g.
#                              trap 'nc_stop; rm -rf "$tmp"' EXIT
#
# Needs root (a user of its own, sshd); the caller skips with 77 when
# nc_can_run says no.  Every run gets fresh startup files, a fresh user
# (lrnc<pid>, removed at the end) and fresh keys, so runs never see each
# other's state, and two runs at once do not collide.
NC_PY=/usr/bin/python3
NC_PIDS=
NC_SSHD_PID=
NC_USER=
NC_USER_MADE=
NC_RUN_SSHD_MADE=
NC_DEVICES=

nc_can_run() {
    if [ "$(id -u)" != 0 ]; then
        echo "skip: real NETCONF devices need root (a test user, sshd)"
        return 1
    fi
    for p in /usr/sbin/netconfd /usr/sbin/sshd /usr/sbin/netconf-subsystem \
             /usr/bin/ssh-keygen /usr/sbin/useradd "$NC_PY"; do
        [ -x "$p" ] || { echo "skip: $p is not installed (tools/install-deps)"; return 1; }
    done
    "$NC_PY" -c 'import ncclient' 2>/dev/null \
        || { echo "skip: python3-ncclient is not installed (tools/install-deps)"; return 1; }
    return 0
}

# Free TCP ports on 127.0.0.1, one per argument (asked from the kernel,
# so never a port someone listens on; a race with another program is
# possible and shows as an sshd that does not come up).
nc_free_ports() {
    "$NC_PY" - "$#" <<'PY'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
PY
}

nc_var() { eval "printf '%s' \"\${$1}\""; }

# Each netconfd runs in a session of its own (setsid; the shell's
# background child is no group leader, so setsid execs in place and $! is
# netconfd's PID).  netconfd restarts on SIGHUP, and its restart cannot
# bind the socket file it left behind ("bind: Address already in use",
# "ncxserver failed"): it exits.  A device the tests stop (SIGSTOP) makes
# the test's process group one with a stopped member, and when that group
# is orphaned the kernel sends SIGHUP and SIGCONT to all of it (POSIX
# 3.2.2.2): every device died at once, two runs in ten under `make
# check` from a detached job.  Alone in its group, a device gets only the
# signals the tests send it.  sshd likewise.
nc_start_netconfd() {   # nc_start_netconfd NAME
    name=$1
    port=$(nc_var "NC_PORT_$name")
    sock=$NC_DIR/$name.sock
    rm -f "$sock"
    mkdir -p "$NC_DIR/$name"
    setsid /usr/sbin/netconfd --module="$NC_DIR/yang/lightrail-roadm.yang" \
        --modpath="$NC_DIR/yang" --ncxserver-sockname="$sock" \
        --port="$port" --startup="$NC_DIR/$name.startup.xml" \
        --home="$NC_DIR/$name" --target=running --access-control=off \
        --log="$NC_DIR/$name.log" --log-level=warn \
        > "$NC_DIR/$name.out" 2>&1 &
    eval "NC_PID_$name=$!"
    NC_PIDS="$NC_PIDS $!"
    for i in $(seq 1 100); do
        [ -S "$sock" ] && return 0
        kill -0 "$(nc_var "NC_PID_$name")" 2>/dev/null || break
        sleep 0.05
    done
    echo "netconfd for $name did not come up:"
    cat "$NC_DIR/$name.out" "$NC_DIR/$name.log" 2>/dev/null
    return 1
}

nc_start() {
    NC_DEVICES="$*"
    NC_DIR=$tmp/netconf
    mkdir -p "$NC_DIR/yang"
    cp "$srcdir/yang/lightrail-roadm.yang" "$NC_DIR/yang/"
    ports=$(nc_free_ports "$@")
    set -- $ports
    for name in $NC_DEVICES; do
        eval "NC_PORT_$name=$1"
        shift
        echo '<config xmlns="urn:ietf:params:xml:ns:netconf:base:1.0"/>' \
            > "$NC_DIR/$name.startup.xml"
    done

    NC_USER=lrnc$$
    if ! id "$NC_USER" > /dev/null 2>&1; then
        # /etc/passwd is locked while another test adds or removes its
        # user: try again a few times.
        for i in 1 2 3 4 5 6 7 8 9 10; do
            /usr/sbin/useradd -M -d "$NC_DIR" -s /bin/sh "$NC_USER" 2> "$NC_DIR/useradd.err" && break
            sleep 0.3
        done
        id "$NC_USER" > /dev/null 2>&1 || { cat "$NC_DIR/useradd.err"; return 1; }
        NC_USER_MADE=1
    fi
    # With UsePAM no, sshd refuses a locked account: give it a password
    # nobody knows (key authentication only is configured below).
    hash=$(openssl passwd -6 "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')")
    /usr/sbin/usermod -p "$hash" "$NC_USER" || return 1

    ssh-keygen -q -t ed25519 -N '' -f "$NC_DIR/hostkey" || return 1
    ssh-keygen -q -t ed25519 -N '' -f "$NC_DIR/id_ed25519" || return 1
    ssh-keygen -q -t ed25519 -N '' -f "$NC_DIR/otherhostkey" || return 1
    cp "$NC_DIR/id_ed25519.pub" "$NC_DIR/authorized_keys"
    chmod 644 "$NC_DIR/authorized_keys"
    NC_KEY=$NC_DIR/id_ed25519
    NC_KNOWN=$NC_DIR/known_hosts
    NC_WRONG_KNOWN=$NC_DIR/wrong_known_hosts
    : > "$NC_KNOWN"
    : > "$NC_WRONG_KNOWN"
    socks=
    for name in $NC_DEVICES; do
        port=$(nc_var "NC_PORT_$name")
        echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$NC_DIR/hostkey.pub")" >> "$NC_KNOWN"
        echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$NC_DIR/otherhostkey.pub")" >> "$NC_WRONG_KNOWN"
        socks="$socks --ncxserver-sockname=$port@$NC_DIR/$name.sock"
    done

    # The directory must be reachable by the user (StrictModes no covers
    # the key file's mode, not the path's).
    chmod 755 "$tmp" "$NC_DIR"
    {
        for name in $NC_DEVICES; do
            echo "Port $(nc_var "NC_PORT_$name")"
        done
        cat <<CFG
ListenAddress 127.0.0.1
HostKey $NC_DIR/hostkey
PidFile $NC_DIR/sshd.pid
AuthorizedKeysFile $NC_DIR/authorized_keys
AllowUsers $NC_USER
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin no
MaxStartups 100:30:200
MaxSessions 100
LogLevel ERROR
Subsystem netconf /usr/sbin/netconf-subsystem$socks
CFG
    } > "$NC_DIR/sshd_config"
    if [ ! -d /run/sshd ]; then
        mkdir -p /run/sshd && chmod 755 /run/sshd
        NC_RUN_SSHD_MADE=1
    fi
    for name in $NC_DEVICES; do
        nc_start_netconfd "$name" || return 1
    done
    setsid /usr/sbin/sshd -D -e -f "$NC_DIR/sshd_config" 2> "$NC_DIR/sshd.log" &
    NC_SSHD_PID=$!
    for name in $NC_DEVICES; do
        port=$(nc_var "NC_PORT_$name")
        ok_port=
        for i in $(seq 1 100); do
            if "$NC_PY" -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; then
                ok_port=1
                break
            fi
            kill -0 "$NC_SSHD_PID" 2>/dev/null || break
            sleep 0.05
        done
        if [ -z "$ok_port" ]; then
            echo "sshd does not listen on $port:"
            cat "$NC_DIR/sshd.log"
            return 1
        fi
    done
    return 0
}

nc_address() { printf '%s@127.0.0.1:%s' "$NC_USER" "$(nc_var "NC_PORT_$1")"; }

# A device's netconfd dies (SIGKILL); its sshd port stays open.
nc_kill() {
    pid=$(nc_var "NC_PID_$1")
    kill -9 "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    return 0
}

# Starts a killed device again, on the config its startup file kept.
nc_restart() { nc_start_netconfd "$1"; }

nc_stop_dev() { kill -STOP "$(nc_var "NC_PID_$1")"; }
nc_cont_dev() { kill -CONT "$(nc_var "NC_PID_$1")"; }

nc_stop() {
    for pid in $NC_PIDS $NC_SSHD_PID; do
        kill -CONT "$pid" 2>/dev/null
        kill "$pid" 2>/dev/null
    done
    for pid in $NC_PIDS $NC_SSHD_PID; do
        wait "$pid" 2>/dev/null
    done
    NC_PIDS=
    NC_SSHD_PID=
    if [ -n "$NC_USER_MADE" ]; then
        for i in 1 2 3 4 5 6 7 8 9 10; do
            /usr/sbin/userdel "$NC_USER" 2>/dev/null
            id "$NC_USER" > /dev/null 2>&1 || break
            sleep 0.3
        done
        NC_USER_MADE=
    fi
    # sshd's privilege-separation directory: removed only when we made it
    # and no sshd (another test's, or the system's) may still need it.
    if [ -n "$NC_RUN_SSHD_MADE" ]; then
        # Our sshd's per-connection children go a moment after it.
        for i in 1 2 3 4 5 6 7 8 9 10; do
            pgrep -x sshd > /dev/null || { rmdir /run/sshd 2>/dev/null; break; }
            sleep 0.1
        done
    fi
    NC_RUN_SSHD_MADE=
}

# nc_get NAME: the device's running media channels, read independently
# of Lightrail with python3-ncclient, one line each, sorted:
#   NAME IN-PORT OUT-PORT LOWER-MHZ UPPER-MHZ ADMIN-STATE   ("-" = absent)
nc_get() {
    "$NC_PY" - "$(nc_var "NC_PORT_$1")" "$NC_USER" "$NC_KEY" <<'PY'
import sys
from ncclient import manager
import xml.etree.ElementTree as ET
port, user, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
NS = "urn:lightrail:roadm"
with manager.connect(host="127.0.0.1", port=port, username=user,
                     key_filename=key, hostkey_verify=False,
                     allow_agent=False, look_for_keys=False,
                     timeout=10) as m:
    flt = '<roadm xmlns="%s"><media-channels/></roadm>' % NS
    reply = m.get_config(source="running", filter=("subtree", flt))
root = ET.fromstring(reply.data_xml.encode())
rows = []
for ch in root.iter("{%s}channel" % NS):
    def leaf(n):
        e = ch.find("{%s}%s" % (NS, n))
        return e.text if e is not None and e.text else "-"
    rows.append(" ".join(leaf(n) for n in ("name", "in-port", "out-port",
                 "lower-frequency", "upper-frequency", "admin-state")))
for r in sorted(rows):
    print(r)
PY
}
