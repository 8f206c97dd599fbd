#!/bin/sh
# lightraild's life on 127.0.0.1: detached (no --foreground) it returns
# once it serves, holds its state directory (a second daemon on it is
# refused at once, naming the first) and its store (a second daemon on
# it through a link is refused at start, naming the first), says a
# start-up error where it was started, survives a SIGHUP while still
# starting, keeps a store of an older schema beside it before migrating
# it (and then only the newest copy of each schema), and removes its
# pid and port files when it stops.  Stopped by PID, never by name.
. "${srcdir:-.}/tests/cli/lib.sh"
. "$srcdir/tests/cli/daemon.sh"

# 1. Detached: the command returns 0 once the daemon serves.  Its state
# directory made beforehand open to all, started from a shell whose umask
# lets everyone read what it writes.
rm -f "$D/state/lightraild.port"
mkdir -p -m 0755 "$D/state"
(umask 022; exec $LIGHTRAILD --config "$D/lightraild.json") > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ -s "$D/state/lightraild.port" ] && [ -s "$D/state/lightraild.pid" ]; then
    ok "detached: exit 0 once serving, port and pid files written"
else
    notok "detached start: exit $rc, $(cat "$tmp/err")"
fi
PID=$(cat "$D/state/lightraild.pid" 2>/dev/null)
PORT=$(cat "$D/state/lightraild.port" 2>/dev/null)
URL=https://127.0.0.1:$PORT
api GET /restconf/data/lightrail-state:state
[ "$STATUS" = 200 ] && ok "the detached daemon answers" || notok "detached daemon: $STATUS"
# The store (the network, the DCs' inventories, every job), the device
# files and the pid and port files are no one's but the daemon's group's.
open=$(find "$D/state" -mindepth 1 -perm -o=r 2>&1)
[ -s "$D/state/lightrail.db" ] && [ -z "$open" ] \
    && ok "the state directory's files are not world-readable" \
    || notok "world-readable in the state directory: $open"

# lightrail-check while a daemon serves: refused (exit 2), not waited on.
$CHECK --config "$D/lightraild.json" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "a lightraild serves" "$tmp/err" \
    && ok "lightrail-check while the daemon serves: exit 2, $(cat "$tmp/err")" \
    || notok "lightrail-check while serving: exit $rc, $(cat "$tmp/err")"

# 2. A second daemon on the same state directory: refused at once.
# (timeout: a daemon that lost its lock would serve beside the first.)
timeout 20 $LIGHTRAILD --config "$D/lightraild.json" --foreground \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] \
   && grep -q "another lightraild (pid $PID) serves the state directory" "$tmp/err"; then
    ok "a second daemon on the state directory: exit $rc, $(tail -n 1 "$tmp/err")"
else
    notok "a second daemon: exit $rc, $(cat "$tmp/err")"
fi
kill -0 "$PID" 2>/dev/null && ok "the first daemon still serves" \
    || notok "the first daemon died"
# 2b. A second daemon on the same store from another state directory
# (its lightrail.db a link to the first's): the state directories'
# locks differ, SQLite's exclusive lock on the store refuses it at
# start, but the refusal blamed "a sqlite3 shell, a backup tool".  It
# names the lightraild that holds the store now.
mkdir -p "$D/linked"
ln -s "$D/state/lightrail.db" "$D/linked/lightrail.db"
jq '.["lightrail-config:lightraild"]["state-dir"] = "linked"' \
    "$D/lightraild.json" > "$D/linked.json"
timeout 20 $LIGHTRAILD --config "$D/linked.json" --foreground \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -ne 0 ] && [ $rc -ne 124 ] \
   && grep -q "another lightraild (pid $PID) serves the store" "$tmp/err" \
   && grep -q "$D/linked/lightrail.db" "$tmp/err" \
   && [ ! -e "$D/linked/lightraild.port" ]; then
    ok "a second daemon on the same store through a link: exit $rc, $(tail -n 1 "$tmp/err")"
else
    notok "a second daemon on the same store through a link: exit $rc, $(cat "$tmp/err")"
fi
kill -0 "$PID" 2>/dev/null && ok "the first daemon still serves its store" \
    || notok "the first daemon died"
# 2c. lightrail-check on that other state directory, its lightrail.db a
# symbolic, then a hard link to the store the first daemon serves: the
# directory's lock is free, and it copied the files the daemon writes
# and judged them (exit 0, or a violation read from a torn copy).  It
# is refused as on the daemon's own directory, naming the daemon.
mkdir -p "$D/hard"
ln "$D/state/lightrail.db" "$D/hard/lightrail.db"
jq '.["lightrail-config:lightraild"]["state-dir"] = "hard"' \
    "$D/lightraild.json" > "$D/hard.json"
for dir_kind in linked:symbolic hard:hard; do
    link=${dir_kind%%:*} kind=${dir_kind#*:}
    $CHECK --config "$D/$link.json" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] \
       && grep -q "^lightrail-check: $D/$link/lightrail.db: another lightraild (pid $PID) serves the store (the same file" "$tmp/err"; then
        ok "lightrail-check on the served store through a $kind link: exit 2, $(cat "$tmp/err")"
    else
        notok "lightrail-check on the served store through a $kind link: exit $rc, $(cat "$tmp/err")"
    fi
done
rm -rf "$D/hard" "$D/hard.json"

# A configuration without a token or a client CA: no client could use
# the API; refused at once, exit 2, nothing made.
jq 'del(.["lightrail-config:lightraild"].token) | .["lightrail-config:lightraild"]["state-dir"] = "noauth"' \
    "$D/lightraild.json" > "$D/noauth.json"
timeout 20 $LIGHTRAILD --config "$D/noauth.json" --foreground \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "no token and no listen client-ca" "$tmp/err" \
    && [ ! -e "$D/noauth" ] \
    && ok "no token, no client CA: exit 2, $(cat "$tmp/err")" \
    || notok "no token, no client CA: exit $rc, $(cat "$tmp/err"), $(ls "$D")"

# A listener the server refuses (plain HTTP on an address other hosts
# reach): a configuration error like the one above, refused at once with
# exit 2 (lightraild(8)) and nothing made; it was exit 1, after the state
# directory, the store and start-up's device work.
jq '.["lightrail-config:lightraild"].listen = {"address": "0.0.0.0", "port": 0, "tls": false}
    | .["lightrail-config:lightraild"]["state-dir"] = "plainwide"' \
    "$D/lightraild.json" > "$D/plainwide.json"
timeout 20 $LIGHTRAILD --config "$D/plainwide.json" --foreground \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "listen: plain HTTP is allowed only on a loopback address" "$tmp/err" \
    && [ ! -e "$D/plainwide" ] \
    && ok "plain HTTP on 0.0.0.0: exit 2, nothing made, $(cat "$tmp/err")" \
    || notok "plain HTTP on 0.0.0.0: exit $rc, $(cat "$tmp/err"), $(ls "$D")"

# A certificate, key or client CA file that does not load (a folder, no
# PEM, the other kind of PEM): refused at once, exit 2, nothing made, the
# file named with what is wrong with it; it was exit 1 with OpenSSL's
# 'PEM lib' or 'no start line', after the state directory, the store and
# recovery.
mkdir -p "$D/tls/folder"
echo "not a certificate" > "$D/tls/notpem.txt"
for c in "certificate tls/folder TLS certificate '$D/tls/folder': Is a directory (want a PEM certificate chain)" \
         "key tls/notpem.txt TLS key '$D/tls/notpem.txt': not a PEM private key: no -----BEGIN line (want an unencrypted PEM private key)" \
         "client-ca tls/key.pem TLS client CA '$D/tls/key.pem': not a PEM certificate: its PEM blocks are 'PRIVATE KEY' (want PEM certificates)"; do
    leaf=${c%% *}; rest=${c#* }; file=${rest%% *}; want=${rest#* }
    jq --arg leaf "$leaf" --arg file "$file" \
        '.["lightrail-config:lightraild"].listen[$leaf] = $file
         | .["lightrail-config:lightraild"]["state-dir"] = "badtls"' \
        "$D/lightraild.json" > "$D/badtls.json"
    timeout 20 $LIGHTRAILD --config "$D/badtls.json" --foreground \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc -eq 2 ] && grep -qF "listen: $want" "$tmp/err" && [ ! -e "$D/badtls" ] \
        && ok "listen $leaf $file: exit 2, nothing made, $(cat "$tmp/err")" \
        || notok "listen $leaf $file: exit $rc, $(cat "$tmp/err"), $(ls "$D")"
done

# A southbound device's certificate, key or CA file that does not load
# (a folder, no PEM, the other kind, a file that is not there): refused
# as the listener's are, exit 2, nothing made, the device, the file,
# what is wrong with it and what to give; it was exit 1 once the state
# directory and the store were made, when the device was opened.  Its
# driver's own rule (check_files, which open() applies): no device is
# reached (nothing listens on 127.0.0.1:1).  lightrail-check refuses the
# same configuration with the same words (exit 2, bad input), before it
# looks for a store; it said exit 1, a violation.
for c in "netconf certificate tls/folder client certificate $D/tls/folder (Is a directory): give a PEM certificate chain in southbound/netconf/tls/certificate" \
         "netconf key tls/notpem.txt client key $D/tls/notpem.txt (not a PEM private key: no -----BEGIN line): give the PEM private key in southbound/netconf/tls/key" \
         "netconf ca tls/missing.pem CA file $D/tls/missing.pem (No such file or directory): give the PEM certificate of the CA that signs the devices in southbound/netconf/tls/ca" \
         "restconf ca-file tls/key.pem ca-file $D/tls/key.pem (not a PEM certificate: its PEM blocks are 'PRIVATE KEY'): give the PEM certificate of the CA that signs the device's certificate" \
         "restconf ca-file tls/folder ca-file $D/tls/folder (Is a directory): give the PEM certificate of the CA"; do
    driver=${c%% *}; rest=${c#* }; leaf=${rest%% *}; rest=${rest#* }
    file=${rest%% *}; want=${rest#* }
    jq --arg driver "$driver" --arg leaf "$leaf" --arg file "$file" \
        '.["lightrail-config:lightraild"]["state-dir"] = "baddev"
         | .["lightrail-config:lightraild"].southbound =
           (if $driver == "netconf" then
              {"default-driver": "dummy",
               "netconf": {"transport": "tls",
                           "tls": ({"certificate": "tls/cert.pem", "key": "tls/key.pem",
                                    "ca": "tls/cert.pem"} | .[$leaf] = $file)},
               "device": [{"name": "r2", "driver": "netconf", "address": "127.0.0.1:1"}]}
            else
              {"default-driver": "dummy", "restconf": {"ca-file": $file},
               "device": [{"name": "r2", "driver": "restconf",
                           "address": "https://127.0.0.1:1"}]}
            end)' \
        "$D/lightraild.json" > "$D/baddev.json"
    timeout 20 $LIGHTRAILD --config "$D/baddev.json" --foreground \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ $rc -eq 2 ] && grep -qF "lightraild: $D/baddev.json: southbound: ROADM r2: cannot use the $want" "$tmp/err" \
        && [ ! -e "$D/baddev" ] \
        && ok "$driver $leaf $file: exit 2, nothing made, $(cat "$tmp/err")" \
        || notok "$driver $leaf $file: exit $rc, $(cat "$tmp/err"), $(ls "$D")"
    $CHECK --config "$D/baddev.json" > "$tmp/out" 2> "$tmp/cerr"
    rc=$?
    [ $rc -eq 2 ] && [ "$(sed 's/^lightrail-check: //' "$tmp/cerr")" = "$(sed 's/^lightraild: //' "$tmp/err")" ] \
        && [ ! -e "$D/baddev" ] \
        && ok "lightrail-check, $driver $leaf $file: exit 2, the same words" \
        || notok "lightrail-check, $driver $leaf $file: exit $rc, $(cat "$tmp/cerr")"
done

# A southbound device listed under a name no ROADM of the topology has
# (a typo): the daemon starts, and its log says so, naming the file.
jq '.["lightrail-config:lightraild"]["state-dir"] = "typo"
    | .["lightrail-config:lightraild"].southbound.device = [{"name": "r9", "driver": "dummy"},
        {"name": "r8", "driver": "netconf", "address": "127.0.0.1:1"},
        {"name": "r7", "driver": "restconf", "address": "https://127.0.0.1:1"}]
    | .["lightrail-config:lightraild"].southbound.netconf = {"transport": "tls",
        "tls": {"certificate": "tls/r8-cert.pem", "key": "tls/key.pem", "ca": "tls/cert.pem"}}
    | .["lightrail-config:lightraild"].southbound.restconf = {"ca-file": "tls/r7-ca.pem"}' \
    "$D/lightraild.json" > "$D/typo.json"
cp "$D/tls/cert.pem" "$D/tls/r8-cert.pem"
cp "$D/tls/cert.pem" "$D/tls/r7-ca.pem"
rm -f "$D/typo.log"
$LIGHTRAILD --config "$D/typo.json" --foreground 2> "$D/typo.log" &
TPID=$!
if await_file "$D/typo/lightraild.port" $TPID "$D/typo.log" lightraild \
   && grep -q "typo.json: southbound device 'r9' is no ROADM of topology metro: unused until a topology names it" "$D/typo.log"; then
    ok "a device no ROADM is named: $(grep -o "southbound device 'r9'.*" "$D/typo.log")"
else
    notok "a device no ROADM is named: $(cat "$D/typo.log")"
fi
# A NETCONF-over-TLS device listed and unused (r8): its files, loaded
# by the start's early check, are read again when a PUT of the topology
# names it, so a certificate replaced since is refused then (400, the
# topology as it was).  The start's load was kept for that opening once,
# and the PUT succeeded with the files of the start.
if [ -s "$D/typo/lightraild.port" ]; then
    TURL=https://127.0.0.1:$(cat "$D/typo/lightraild.port")
    SAVED_URL=$URL; URL=$TURL
    api GET /restconf/data/ietf-network:networks
    cp "$tmp/body" "$tmp/typo-topo-before"
    echo "not a certificate" > "$D/tls/r8-cert.pem"
    jq '."ietf-network:networks".network[0].node += [{"node-id": "r8", "lightrail-topology:roadm": {"name": "ROADM R8"}}]' \
        "$tmp/typo-topo-before" > "$tmp/typo-topo-r8.json"
    api PUT /restconf/data/ietf-network:networks "$tmp/typo-topo-r8.json"
    st=$STATUS; cp "$tmp/body" "$tmp/typo-put"
    api GET /restconf/data/ietf-network:networks
    [ "$st" = 400 ] && grep -q "ROADM r8: cannot use the client certificate" "$tmp/typo-put" \
        && cmp -s "$tmp/body" "$tmp/typo-topo-before" \
        && ok "a listed TLS device a PUT adds reads its files then: 400, $(jq -r '."ietf-restconf:errors".error[0]."error-message"' "$tmp/typo-put" | head -c 120)" \
        || notok "a listed TLS device a PUT adds, its certificate replaced since the start: $st $(cat "$tmp/typo-put")"
    # The same of a RESTCONF device (r7): the ca-file's bytes its check
    # read at the start are dropped once the start has opened its
    # devices, so the PUT that names it reads the file as it is then.
    echo "not a certificate" > "$D/tls/r7-ca.pem"
    jq '."ietf-network:networks".network[0].node += [{"node-id": "r7", "lightrail-topology:roadm": {"name": "ROADM R7"}}]' \
        "$tmp/typo-topo-before" > "$tmp/typo-topo-r7.json"
    api PUT /restconf/data/ietf-network:networks "$tmp/typo-topo-r7.json"
    st=$STATUS; cp "$tmp/body" "$tmp/typo-put"
    api GET /restconf/data/ietf-network:networks
    [ "$st" = 400 ] && grep -q "ROADM r7: cannot use the ca-file [^ ]*/tls/r7-ca.pem (not a PEM certificate: no -----BEGIN line)" "$tmp/typo-put" \
        && cmp -s "$tmp/body" "$tmp/typo-topo-before" \
        && ok "a listed RESTCONF device a PUT adds reads its ca-file then: 400, $(jq -r '."ietf-restconf:errors".error[0]."error-message"' "$tmp/typo-put" | head -c 120)" \
        || notok "a listed RESTCONF device a PUT adds, its ca-file replaced since the start: $st $(cat "$tmp/typo-put")"
    URL=$SAVED_URL
fi
kill $TPID 2>/dev/null
wait $TPID 2>/dev/null

# 3. SIGTERM: it stops and removes its pid and port files.
kill "$PID"
for i in $(seq 1 200); do kill -0 "$PID" 2>/dev/null || break; sleep 0.05; done
if ! kill -0 "$PID" 2>/dev/null && [ ! -e "$D/state/lightraild.pid" ] \
   && [ ! -e "$D/state/lightraild.port" ]; then
    ok "stopped: pid and port files removed"
else
    notok "after SIGTERM: $(ls "$D/state")"
    kill -9 "$PID" 2>/dev/null
fi
PID=
check_store "stopped: lightrail-check finds the state whole"
# A store of an older schema (version 3, before iterations) is judged as
# lightraild would migrate it, and left as it was: lightrail-check reads
# a copy.  It once migrated the store it checked, which the older
# lightraild it came from then refused ("newer schema").
cp -a "$D/state" "$D/old"
jq '.["lightrail-config:lightraild"]["state-dir"] = "old"' \
    "$D/lightraild.json" > "$D/old.json"
python3 - "$D/old/lightrail.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
# Schema 5's lightpaths: no measured gOSNR.
db.execute("ALTER TABLE lightpaths DROP COLUMN gosnr_db")
# Schema 4's lightpaths: the format by its index in the default table.
db.execute("ALTER TABLE lightpaths ADD COLUMN mod INTEGER NOT NULL DEFAULT -1")
db.execute("UPDATE lightpaths SET mod = CASE modulation WHEN 'BPSK' THEN 0"
           " WHEN 'QPSK' THEN 1 WHEN '8QAM' THEN 2 WHEN '16QAM' THEN 3 END")
db.execute("ALTER TABLE lightpaths DROP COLUMN modulation")
db.execute("ALTER TABLE jobs DROP COLUMN iterations")
db.execute("UPDATE meta SET value = 3 WHERE key = 'schema_version'")
db.commit()
db.execute("PRAGMA journal_mode = DELETE")
db.close()
PY
before="$(ls "$D/old") $(sha256sum < "$D/old/lightrail.db")"
# Its copy, migrated, is no store to keep a copy of before migrating:
# its $TMPDIR is left empty.
mkdir -p "$tmp/checktmp"
TMPDIR="$tmp/checktmp" $CHECK --config "$D/old.json" 2> "$tmp/err"
rc=$?
after="$(ls "$D/old") $(sha256sum < "$D/old/lightrail.db")"
left="$(find "$tmp/checktmp" -mindepth 1)"
[ $rc -eq 0 ] && [ "$before" = "$after" ] && [ -z "$left" ] \
    && [ "$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT value FROM meta WHERE key = \"schema_version\"").fetchone()[0])' "$D/old/lightrail.db")" = 3 ] \
    && ok "lightrail-check on a version 3 store: exit 0, the file unchanged, nothing left in TMPDIR" \
    || notok "lightrail-check on a version 3 store: exit $rc, $(cat "$tmp/err"), before $before, after $after, left in TMPDIR: $left"
# A copy that cannot be written (a file size limit: write() fails with
# EFBIG, SIGXFSZ ignored) is $TMPDIR's failure: the message names the
# copy, not the store, which is never written.
(trap '' XFSZ; ulimit -f 1; exec $CHECK --config "$D/old.json") 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "lightrail-check\.[^/]*/lightrail\.db: cannot write" "$tmp/err" \
    && grep -q "set TMPDIR" "$tmp/err" && ! grep -q "$D/old/lightrail.db" "$tmp/err" \
    && ok "lightrail-check, the copy not written: exit 2, $(cat "$tmp/err")" \
    || notok "lightrail-check, the copy not written: exit $rc, $(cat "$tmp/err")"
# A TMPDIR too long for the copy's path: said as such (it once said
# "Success", the errno of nothing).
TMPDIR=/tmp/$(printf '%04200d' 0) $CHECK --config "$D/old.json" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "TMPDIR is a path of 4205 bytes, too long" "$tmp/err" \
    && ! grep -q "Success" "$tmp/err" \
    && ok "lightrail-check, TMPDIR too long: exit 2, $(cat "$tmp/err")" \
    || notok "lightrail-check, TMPDIR too long: exit $rc, $(cut -c1-200 "$tmp/err")"
# lightraild on that version 3 store keeps it, byte for byte, as
# lightrail.db.schema-3.bak before migrating it to the current version,
# and says so.  It migrated in place and kept nothing.
sum3=$(sha256sum < "$D/old/lightrail.db")
rm -f "$D/old/lightraild.port"
$LIGHTRAILD --config "$D/old.json" --foreground 2> "$tmp/old.log" &
PID=$!
await_file "$D/old/lightraild.port" $PID "$tmp/old.log" lightraild \
    > "$tmp/old.wait" 2>&1 || notok "lightraild on a version 3 store: $(cat "$tmp/old.wait")"
stop_daemon
said="store $D/old/lightrail.db was schema 3; kept as $D/old/lightrail.db.schema-3.bak before migrating to 6"
[ "$(sha256sum < "$D/old/lightrail.db.schema-3.bak" 2>/dev/null)" = "$sum3" ] \
    && [ "$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT value FROM meta WHERE key = \"schema_version\"").fetchone()[0])' "$D/old/lightrail.db")" = 6 ] \
    && [ "$(grep -c -F "$said" "$tmp/old.log")" = 1 ] \
    && ok "lightraild on a version 3 store: kept before migrating, said: $(grep -o 'store .*schema 3.*' "$tmp/old.log")" \
    || notok "lightraild on a version 3 store: $(ls "$D/old"); $(grep -i 'store' "$tmp/old.log")"
# The operator went back to the older lightraild (its copy over the
# store) and forward again: each upgrade kept one more copy, forever.
# Once the store migrated and reopens, the older copies of a schema are
# removed, each said; the one just made, and the only copy of another
# schema (2 here, from an upgrade long ago), stay.
cp -p "$D/old/lightrail.db.schema-3.bak" "$D/old/lightrail.db"
rm -f "$D/old/lightrail.db-wal" "$D/old/lightrail.db-shm"
cp -p "$D/old/lightrail.db.schema-3.bak" "$D/old/lightrail.db.schema-2.bak"
# An older copy of schema 2 beside it: removed, and the line names the
# copy of schema 2 that stays, not the one this start made (schema 3).
cp "$D/old/lightrail.db.schema-3.bak" "$D/old/lightrail.db.schema-2.bak.2"
touch -d '2 hours ago' "$D/old/lightrail.db.schema-2.bak.2"
touch -d '1 hour ago' "$D/old/lightrail.db.schema-2.bak"
rm -f "$D/old/lightraild.port"
$LIGHTRAILD --config "$D/old.json" --foreground 2> "$tmp/old2.log" &
PID=$!
await_file "$D/old/lightraild.port" $PID "$tmp/old2.log" lightraild \
    > "$tmp/old.wait" 2>&1 || notok "lightraild upgrading again: $(cat "$tmp/old.wait")"
stop_daemon
copies="$(cd "$D/old" && ls -d lightrail.db.schema-* | tr '\n' ' ')"
said="removed $D/old/lightrail.db.schema-3.bak, a copy of schema 3 an earlier upgrade kept: of each schema only the newest copy is kept ($D/old/lightrail.db.schema-3.bak.2 for schema 3)"
said2="removed $D/old/lightrail.db.schema-2.bak.2, a copy of schema 2 an earlier upgrade kept: of each schema only the newest copy is kept ($D/old/lightrail.db.schema-2.bak for schema 2)"
[ "$copies" = "lightrail.db.schema-2.bak lightrail.db.schema-3.bak.2 " ] \
    && [ "$(grep -c -F "$said" "$tmp/old2.log")" = 1 ] \
    && [ "$(grep -c -F "$said2" "$tmp/old2.log")" = 1 ] \
    && ok "upgraded again: the older copy of schema 3 removed, said: $(grep -o 'removed .*' "$tmp/old2.log")" \
    || notok "upgraded again: copies left: $copies; $(grep -i 'store\|copy' "$tmp/old2.log")"
# lightrail-check --help: the usage on stdout and exit 0, as every
# lightrail command's; a wrong command line: the usage on stderr, exit 2.
$CHECK --help > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q '^usage: lightrail-check --config FILE' "$tmp/out" \
    && grep -q '^exit status: 0' "$tmp/out" \
    && ok "lightrail-check --help: exit 0, usage on stdout" \
    || notok "lightrail-check --help: exit $rc, out $(cat "$tmp/out"), err $(cat "$tmp/err")"
$CHECK --config > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q '^usage: lightrail-check' "$tmp/err" \
    && ok "lightrail-check without FILE: exit 2, usage on stderr" \
    || notok "lightrail-check --config alone: exit $rc, $(cat "$tmp/err")"
# lightrail-check on a state directory no daemon ever used: exit 2, and
# no store made there.
jq '.["lightrail-config:lightraild"]["state-dir"] = "empty"' \
    "$D/lightraild.json" > "$D/empty.json"
mkdir -p "$D/empty"
$CHECK --config "$D/empty.json" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ ! -e "$D/empty/lightrail.db" ] && grep -q "no store" "$tmp/err" \
    && ok "lightrail-check without a store: exit 2, nothing made" \
    || notok "lightrail-check without a store: exit $rc, $(cat "$tmp/err"; ls "$D/empty")"
# A store it cannot read (of a newer schema, or no database) is bad
# input, exit 2, not a violation of the invariants (exit 1); left as it
# was.
python3 - "$D/empty/lightrail.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE meta(key TEXT PRIMARY KEY, value NOT NULL)")
db.execute("INSERT INTO meta VALUES ('schema_version', 99)")
db.commit()
PY
$CHECK --config "$D/empty.json" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "schema version 99 is newer" "$tmp/err" \
    && [ "$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT value FROM meta").fetchone()[0])' "$D/empty/lightrail.db")" = 99 ] \
    && ok "lightrail-check on a newer store: exit 2, $(cat "$tmp/err")" \
    || notok "lightrail-check on a newer store: exit $rc, $(cat "$tmp/err")"
head -c 4096 /dev/zero | tr '\0' 'x' > "$D/empty/lightrail.db"
$CHECK --config "$D/empty.json" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "not a SQLite database" "$tmp/err" \
    && ok "lightrail-check on a file that is no database: exit 2" \
    || notok "lightrail-check on no database: exit $rc, $(cat "$tmp/err")"
rm -f "$D/empty/lightrail.db"

# A store whose network does not load (a hand edit, a disk fault): its
# jobs were planned on it, so lightraild and lightrail-check refuse it,
# saying what to do, and leave it as it was.  (Both took the
# configuration's files in silence, and lightraild stored them over it.)
# Without the network (what the advice does), the files seed it again.
cp -a "$D/state" "$D/net"
jq '.["lightrail-config:lightraild"]["state-dir"] = "net"' \
    "$D/lightraild.json" > "$D/net.json"
python3 - "$D/net/lightrail.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE docs SET json = '{\"ietf-network:networks\": {' WHERE key = 'topology'")
db.commit()
PY
sum0=$(md5sum < "$D/net/lightrail.db")
timeout 60 $LIGHTRAILD --config "$D/net.json" --foreground > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] \
    && grep -q "store $D/net/lightrail.db: its network does not load: .*stored topology" "$tmp/err" \
    && grep -q "are not taken in its place; restore the state directory from a backup" "$tmp/err" \
    && [ "$(md5sum < "$D/net/lightrail.db")" = "$sum0" ] \
    && ok "lightraild on a stored network that does not load: exit $rc, the store unchanged, $(tail -n 1 "$tmp/err" | cut -c1-160)..." \
    || notok "lightraild on a stored network that does not load: exit $rc, $(cat "$tmp/err")"
$CHECK --config "$D/net.json" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "store $D/net/lightrail.db: its network does not load" "$tmp/err" \
    && ! grep -q "lightrail-check\." "$tmp/err" \
    && ok "lightrail-check on it: exit 2, the same refusal" \
    || notok "lightrail-check on a stored network that does not load: exit $rc, $(cat "$tmp/err")"
python3 - "$D/net/lightrail.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DELETE FROM docs WHERE key IN ('topology', 'cluster')")
db.commit()
PY
rm -f "$tmp/net.log"
$LIGHTRAILD --config "$D/net.json" --foreground 2> "$tmp/net.log" &
NPID=$!
if await_file "$D/net/lightraild.port" $NPID "$tmp/net.log" lightraild \
   && ! grep -q "from the store" "$tmp/net.log"; then
    ok "a store without a network: the files seed it"
else
    notok "a store without a network: $(cat "$tmp/net.log")"
fi
kill $NPID 2>/dev/null
wait $NPID 2>/dev/null
[ "$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM docs WHERE key IN (\"topology\", \"cluster\")").fetchone()[0])' "$D/net/lightrail.db")" = 2 ] \
    && ok "the store holds the network again" \
    || notok "the seeded store's network: $(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT key FROM docs").fetchall())' "$D/net/lightrail.db")"

# 4. A start-up error, detached: said on the terminal, exit not 0 (the
# port is taken by a listener of ours), with what to do: find what holds
# the port, or change the configuration's listen/port (until 2026-12-07
# the error ended at "Address already in use").  In a new state
# directory it leaves no store: one seeded by the refused start would
# have every later start take its network instead of the files (until
# 2026-12-07 the listener came after the store).
python3 - > "$tmp/busy.port" <<'PY' &
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1]); sys.stdout.flush(); time.sleep(30)
PY
BUSY=$!
for i in $(seq 1 100); do [ -s "$tmp/busy.port" ] && break; sleep 0.05; done
jq --argjson p "$(cat "$tmp/busy.port")" --arg s "$D/busy-state" \
    '.["lightrail-config:lightraild"].listen.port = $p
     | .["lightrail-config:lightraild"]["state-dir"] = $s' \
    "$D/lightraild.json" > "$D/busy.json"
$LIGHTRAILD --config "$D/busy.json" > "$tmp/out" 2> "$tmp/err"
rc=$?
kill $BUSY 2>/dev/null
wait $BUSY 2>/dev/null
if [ $rc -ne 0 ] && grep -q -i "address already in use" "$tmp/err" \
   && grep -q -F "ss -ltnp 'sport = :$(cat "$tmp/busy.port")' names it" "$tmp/err" \
   && grep -q -F "set listen/port in $D/busy.json to a free port" "$tmp/err" \
   && [ ! -e "$D/busy-state/lightrail.db" ]; then
    ok "a detached start that fails says why: exit $rc, $(tail -n 1 "$tmp/err")"
else
    notok "detached start on a busy port: exit $rc, $(cat "$tmp/err"), state: $(ls "$D/busy-state" 2>&1)"
fi

# 4a. A port the kernel refuses with EACCES: the hint names the host's
# first unprivileged port (net.ipv4.ip_unprivileged_port_start), read
# from /proc, not 1024 (until 2026-12-07 "a port below 1024" whatever
# the host said).  Root in a network namespace of its own, whose start
# is 2000, without CAP_NET_BIND_SERVICE, is refused port 1500.
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null \
   && unshare -n true 2> /dev/null; then
    jq --arg s "$D/priv-state" \
        '.["lightrail-config:lightraild"].listen.port = 1500
         | .["lightrail-config:lightraild"]["state-dir"] = $s' \
        "$D/lightraild.json" > "$D/priv.json"
    unshare -n sh -c 'ip link set lo up \
        && echo 2000 > /proc/sys/net/ipv4/ip_unprivileged_port_start \
        && exec setpriv --inh-caps=-net_bind_service \
            --bounding-set=-net_bind_service "$0" --config "$1"' \
        "$LIGHTRAILD" "$D/priv.json" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    # Started after all (a kernel that let it bind): stopped by its PID.
    [ -s "$D/priv-state/lightraild.pid" ] \
        && kill "$(cat "$D/priv-state/lightraild.pid")" 2> /dev/null
    if [ $rc -ne 0 ] && grep -q -i "permission denied" "$tmp/err" \
       && grep -q -F "a port below 2000 (net.ipv4.ip_unprivileged_port_start) needs root or CAP_NET_BIND_SERVICE: set listen/port in $D/priv.json to 2000 or above" "$tmp/err"; then
        ok "EACCES says the host's first unprivileged port: $(tail -n 1 "$tmp/err")"
    else
        notok "EACCES on port 1500 below a start of 2000: exit $rc, $(cat "$tmp/err")"
    fi
else
    echo "skipped 4a: needs root, setpriv and unshare -n"
fi

# 4b. A topology or cluster file that is not there, in a new state
# directory: exit 2, the error naming the configuration's leaf and the
# path it resolved to (until 2026-12-07 "FILE: No such file or directory"
# alone, which did not say which leaf to correct).
for leaf in topology-file cluster-file; do
    jq --arg l "$leaf" --arg f "$D/no-$leaf.json" --arg s "$D/nofile-state" \
        '.["lightrail-config:lightraild"][$l] = $f
         | .["lightrail-config:lightraild"]["state-dir"] = $s' \
        "$D/lightraild.json" > "$D/nofile.json"
    timeout 20 $LIGHTRAILD --config "$D/nofile.json" --foreground \
        > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q -F "$D/nofile.json: $leaf: $D/no-$leaf.json: No such file or directory" "$tmp/err"; then
        ok "a $leaf that is not there: exit 2, the leaf named"
    else
        notok "a $leaf that is not there: exit $rc, $(cat "$tmp/err")"
    fi
done

# 5. SIGHUP while it starts (loading its configuration and network,
# before its loop runs) does not end it.  Sent before main() ignores it,
# nothing could catch it, and a sanitizer build on a loaded machine may
# take longer than any fixed wait to get there: wait until the kernel
# says SIGHUP (signal 1, the mask's lowest bit) is ignored instead.
rm -f "$D/state/lightraild.port"
$LIGHTRAILD --config "$D/lightraild.json" --foreground 2>> "$D/log" &
PID=$!
for i in $(seq 1 600); do
    ign=$(awk '/^SigIgn:/ { print $2 }' "/proc/$PID/status" 2>/dev/null)
    [ -n "$ign" ] && [ $(( 0x$ign & 1 )) -ne 0 ] && break
    sleep 0.05
done
kill -HUP $PID
if await_file "$D/state/lightraild.port" $PID "$D/log" lightraild > "$tmp/hup" 2>&1; then
    ok "a SIGHUP during start-up: still serving"
else
    notok "SIGHUP during start-up: $(cat "$tmp/hup")"
fi
stop_daemon

# 5b. A store made by a lightraild older than its umask 027 is open to
# all, and SQLite gives a new -wal and -shm the store's mode: the start
# takes the others' permissions from the store and the journals it finds
# (here empty ones a crash left), says so in one line, and then no more.
chmod 0644 "$D/state/lightrail.db"
for f in wal shm; do : > "$D/state/lightrail.db-$f"; chmod 0644 "$D/state/lightrail.db-$f"; done
for run in 1 2; do
    rm -f "$D/state/lightraild.port"
    $LIGHTRAILD --config "$D/lightraild.json" --foreground 2> "$tmp/perm$run.log" &
    PID=$!
    await_file "$D/state/lightraild.port" $PID "$tmp/perm$run.log" lightraild \
        > "$tmp/perm$run.wait" 2>&1 || notok "lightraild on a store open to all: $(cat "$tmp/perm$run.wait")"
    modes="$(stat -c '%n %a' "$D/state/lightrail.db"*)"
    stop_daemon
done
open=$(find "$D/state" -name 'lightrail.db*' -perm /o=rwx)
said="the store's files were open to other users (made by a lightraild before umask 027), now closed to them: lightrail.db 0644 -> 0640, lightrail.db-wal 0644 -> 0640, lightrail.db-shm 0644 -> 0640"
[ "$(stat -c %a "$D/state/lightrail.db")" = 640 ] && [ -z "$open" ] \
    && [ "$(grep -c -F "$said" "$tmp/perm1.log")" = 1 ] \
    && ! grep -q "open to other users" "$tmp/perm2.log" \
    && ok "a store open to all: closed to others at start, said once: $(grep -o 'lightrail.db 0644.*' "$tmp/perm1.log")" \
    || notok "a store open to all: $modes; open: $open; $(grep -h 'store' "$tmp/perm1.log" "$tmp/perm2.log")"

# 6. A number a hand edit left that no GET could print (an active job's
# iteration time NULL, read back as NaN): lightrail-check and lightraild
# both name the job and the number, and neither changes the store.
start_daemon || notok "lightraild did not start again: $(tail -n 3 "$D/log")"
intent nan1 gpt-1.9b 8 > "$tmp/nan1.json"
api POST $JOBS "$tmp/nan1.json"
stop_daemon
python3 - "$D/state/lightrail.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE jobs SET iteration_s = NULL WHERE name = 'nan1'")
db.commit()
PY
sum0=$(md5sum < "$D/state/lightrail.db")
want="job 'nan1': an active job's iteration time is nan s, not 0 to 9e12"
$CHECK --config "$D/lightraild.json" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$STATUS" = 201 ] && [ $rc -ne 0 ] && grep -q -F "$want" "$tmp/err" \
    && ok "lightrail-check on a NaN left by hand: exit $rc, $(cat "$tmp/err")" \
    || notok "lightrail-check on a NaN: POST $STATUS, exit $rc, $(cat "$tmp/err")"
$LIGHTRAILD --config "$D/lightraild.json" --foreground > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc -ne 0 ] && grep -q -F "$want" "$tmp/err" \
    && [ "$(md5sum < "$D/state/lightrail.db")" = "$sum0" ] \
    && ok "lightraild refuses to start on it, the store unchanged: exit $rc, $(tail -n 1 "$tmp/err")" \
    || notok "lightraild on a NaN: exit $rc, $(cat "$tmp/err")"

# 7. A stored job on a link the network does not have (a hand edit; or
# the network's files replaced by another's): lightrail-check names the
# job, the lightpath and the link (exit 1: the state is wrong, not the
# input) and leaves the store as it was.  Tested before for lightraild
# only (test_ctl).
python3 - "$D/state/lightrail.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DELETE FROM jobs WHERE name = 'nan1'")
db.commit()
PY
start_daemon || notok "lightraild did not start again: $(tail -n 3 "$D/log")"
printf '{"lightrail-job:job":[{"name":"wide1","model":"gpt-1.9b","batch":32,"microbatch":1,"gpus":{"min":40,"max":40}}]}\n' > "$tmp/wide1.json"
api POST $JOBS "$tmp/wide1.json"
posted=$STATUS
stop_daemon
cp -a "$D/state" "$D/beyond"
jq '.["lightrail-config:lightraild"]["state-dir"] = "beyond"' \
    "$D/lightraild.json" > "$D/beyond.json"
moved=$(python3 - "$D/beyond/lightrail.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
row = db.execute("SELECT idx, links FROM lightpaths WHERE job = 'wide1'"
                 " ORDER BY idx LIMIT 1").fetchone()
if row:
    idx, links = row
    first = int(links.split(",")[0])
    rest = links.split(",")[1:]
    db.execute("UPDATE lightpaths SET links = ? WHERE job = 'wide1' AND idx = ?",
               (",".join(["999"] + rest), idx))
    db.execute("UPDATE slots SET link = 999 WHERE job = 'wide1' AND lp = ?"
               " AND link = ?", (idx, first))
    db.commit()
    print(idx)
PY
)
sum0=$(md5sum < "$D/beyond/lightrail.db")
$CHECK --config "$D/beyond.json" > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$posted" = 201 ] && [ -n "$moved" ] && [ $rc -eq 1 ] \
    && grep -q "job wide1: lightpath $moved uses link 999, which the network does not have" "$tmp/err" \
    && grep -q "no device was touched" "$tmp/err" \
    && [ "$(md5sum < "$D/beyond/lightrail.db")" = "$sum0" ] \
    && ok "lightrail-check on a job beyond the network: exit 1, the store unchanged, $(cut -c1-120 "$tmp/err")..." \
    || notok "lightrail-check on a job beyond the network: POST $posted, lightpath '$moved', exit $rc, $(cat "$tmp/err")"

# A start refused after it made a new state directory, before the store
# (an inventory naming a device type it lacks): what it leaves misleads
# neither lightrail-check (no store, as of no directory) nor the next
# start, which serves with the file fixed (docs/controller.md).
jq '."lightrail-compute:compute".dc[0]."device-type" = "H200-80GB"' \
    "$srcdir/examples/clusters/metro.json" > "$D/h200.json"
jq --arg c "$D/h200.json" '.["lightrail-config:lightraild"] |= (.["state-dir"] = "fresh" | .["cluster-file"] = $c)' \
    "$D/lightraild.json" > "$D/fresh.json"
timeout 20 $LIGHTRAILD --config "$D/fresh.json" --foreground > "$tmp/out" 2> "$tmp/err"
rc=$?
$CHECK --config "$D/fresh.json" 2> "$tmp/check"
crc=$?
[ $rc -eq 2 ] && grep -q 'did you mean "H100-80GB"' "$tmp/err" \
    && [ -d "$D/fresh" ] && [ ! -e "$D/fresh/lightrail.db" ] \
    && [ $crc -eq 2 ] && grep -q "no store .*: nothing to check" "$tmp/check" \
    && ok "a start refused before its store: exit 2, no store, lightrail-check: $(cat "$tmp/check")" \
    || notok "a start refused before its store: exit $rc, check $crc, $(cat "$tmp/err" "$tmp/check"), $(ls -A "$D/fresh" 2>&1)"
jq '.["lightrail-config:lightraild"]["state-dir"] = "fresh"' \
    "$D/lightraild.json" > "$D/fresh.json"
$LIGHTRAILD --config "$D/fresh.json" --foreground 2>> "$D/log" &
PID=$!
if await_file "$D/fresh/lightraild.port" $PID "$D/log" lightraild; then
    ok "the next start on what the refused one left serves"
else
    notok "the next start on what the refused one left: $(tail -n 3 "$D/log")"
fi
stop_daemon
lr_summary
