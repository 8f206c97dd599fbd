#!/bin/sh
# `make install DESTDIR=...` into a temporary directory, as a packager
# runs it: the programs, the YANG modules, the examples (with the paths
# between them), the docs (with the README's links), the manual pages
# and the systemd units (naming the installed programs and
# configuration) land where the README's "Installing" says; the
# installed programs work from there, away from this tree; `make
# uninstall` takes every file and the package's own folders away again.
. "${srcdir:-.}/tests/cli/lib.sh"
command -v jq > /dev/null || { echo "skip: jq not installed"; exit 77; }
# The make of `make check` passes its job server in MAKEFLAGS, which a
# make run here must not take.
unset MAKEFLAGS MFLAGS MAKELEVEL
MAKE=${MAKE:-make}
root=$tmp/root
lr_make_install "$root" bindir sbindir pkgdatadir docdir sysconfdir \
    systemdsystemunitdir sysusersdir man1dir man8dir
unitdir=$systemdsystemunitdir
LR=$root$bindir/lightrail
LRD=$root$sbindir/lightraild
if [ -x "$LR" ] && [ -x "$LRD" ]; then
    ok "lightrail in $bindir, lightraild in $sbindir"
else
    notok "no $LR or $LRD: $(cd "$root" && find . -type f | head)"
fi

# The YANG modules, as in the source.
n=0; bad=
for f in "$srcdir"/yang/*.yang; do
    n=$((n + 1))
    cmp -s "$f" "$root$pkgdatadir/yang/$(basename "$f")" || bad="$bad $(basename "$f")"
done
if [ "$n" -ge 8 ] && [ -z "$bad" ]; then
    ok "$n YANG modules in $pkgdatadir/yang"
else
    notok "YANG modules missing or different in $pkgdatadir/yang:$bad"
fi

# The examples, and every file their configurations name (relative to
# the configuration) beside them; tls/ and ../agents/pki/ are made by
# the examples' steps, as in the source.
ex=$root$pkgdatadir/examples
missing=
# Every configuration of the source's examples/lightraild/ (mnoptical.json
# was once left out, its network being under tests/).
for cfg in "$srcdir"/examples/lightraild/*.json; do
    [ -f "$ex/lightraild/$(basename "$cfg")" ] || missing="$missing lightraild/$(basename "$cfg")"
done
for cfg in "$ex"/lightraild/*.json "$ex"/agents/*.json; do
    [ -f "$cfg" ] || { missing="$missing $cfg"; continue; }
    jq -r '.. | objects | to_entries[]
           | select(.key | test("-file$|^ppo-policy$")) | .value' "$cfg" \
        | while read -r p; do
              case $p in /*) f=$p ;; *) f=$(dirname "$cfg")/$p ;; esac
              [ -f "$f" ] || echo " ${cfg#"$ex"/}: $p"
          done > "$tmp/names"
    missing="$missing$(cat "$tmp/names")"
done
# Every directory of a schema-path an installed configuration gives is
# there once installed (under $root when it is the package's, else on
# this system): netconf.json and netconf-tls.json gave
# /usr/share/lightrail/yang, which an install under /usr/local has not,
# and every NETCONF connection failed with "cannot make a YANG context
# on the schema path"; without the leaf the driver takes the installed
# modules.
for cfg in "$ex"/lightraild/*.json; do
    jq -r '.. | objects | .["schema-path"]? // empty' "$cfg" 2>/dev/null |
        tr ':' '\n' | while read -r dir; do
            [ -z "$dir" ] || [ -d "$root$dir" ] || [ -d "$dir" ] ||
                echo " ${cfg#"$ex"/}: schema-path $dir"
        done > "$tmp/names"
    missing="$missing$(cat "$tmp/names")"
done
if [ -f "$ex/policies/metro.pol" ] && [ -f "$ex/topologies/nsfnet.json" ] \
   && [ -x "$ex/agents/make-pki.sh" ] && [ -z "$missing" ]; then
    ok "examples in $pkgdatadir/examples, with the files they name"
else
    notok "installed examples: missing$missing"
fi

# The docs: the README, and what its links and the pages' images name.
doc=$root$docdir
missing=
for f in $(sed -n 's/.*](\(docs\/[^)#]*\)).*/\1/p' "$doc/README.md" 2>/dev/null); do
    [ -f "$doc/$f" ] || missing="$missing $f"
done
for page in "$doc"/docs/*.md; do
    for f in $(sed -n 's/.*](\(img\/[^)]*\)).*/\1/p' "$page"); do
        [ -f "$doc/docs/$f" ] || missing="$missing ${page#"$doc"/}:$f"
    done
done
if [ -f "$doc/README.md" ] && [ -f "$doc/docs/controller.md" ] && [ -z "$missing" ]; then
    ok "README.md and docs/ in $docdir, every link there"
else
    notok "installed docs in $docdir: missing${missing:- README.md or docs/}"
fi

# The manual pages, naming the installed examples and configuration.
m1=$root$man1dir/lightrail.1
m8=$root$man8dir/lightraild.8
if grep -q -F "$pkgdatadir/examples/" "$m1" 2>/dev/null \
   && grep -q -F "$sysconfdir/lightrail/lightraild.json" "$m8" 2>/dev/null \
   && ! grep -q '@[A-Za-z_]*@' "$m1" "$m8"; then
    ok "lightrail.1 in $man1dir, lightraild.8 in $man8dir"
else
    notok "manual pages in $man1dir and $man8dir: $(ls "$root$man1dir" "$root$man8dir" 2>&1; grep -h '@[A-Za-z_]*@' "$m1" "$m8" 2>&1 | head -3)"
fi

# The systemd units name the installed programs and configuration.
if [ "$unitdir" = no ]; then
    echo "skip: configured --without-systemdsystemunitdir"
else
    u=$root$unitdir/lightraild.service
    a=$root$unitdir/lightrail-agent@.service
    if grep -q -x "ExecStart=$sbindir/lightraild --config $sysconfdir/lightrail/lightraild.json --foreground" "$u" 2>/dev/null \
       && grep -q "^ExecStart=$bindir/lightrail agent --config $sysconfdir/lightrail/agent-%i.json " "$a" \
       && grep -q -x "EnvironmentFile=$sysconfdir/lightrail/agent-%i.env" "$a" \
       && ! grep -q '@[a-z]*@' "$u" "$a"; then
        ok "units in $unitdir: $sbindir/lightraild, $bindir/lightrail, $sysconfdir/lightrail"
    else
        notok "units in $unitdir: $(grep -h '^ExecStart\|^EnvironmentFile\|@[a-z]*@' "$u" "$a" 2>&1)"
    fi
fi

# The sysusers.d file declares every group the units join (their users
# are dynamic: no user to declare), in lines systemd-sysusers takes; the
# group once had to be made by hand.
if [ "$sysusersdir" = no ]; then
    echo "skip: configured --without-sysusersdir"
else
    s=$root$sysusersdir/lightrail.conf
    groups=$(sed -n 's/^SupplementaryGroups=//p' "$srcdir"/controller/lightraild.service.in \
                 "$srcdir"/tools/lightrail/lightrail-agent@.service.in | tr ' ' '\n' | sort -u)
    undeclared=
    for g in $groups; do
        grep -q "^g $g -" "$s" 2>/dev/null || undeclared="$undeclared $g"
    done
    if command -v systemd-sysusers > /dev/null; then
        # A root of its own: read, nothing written (--dry-run).
        mkdir -p "$tmp/sysroot/etc"
        systemd-sysusers --dry-run --root="$tmp/sysroot" "$s" > "$tmp/sysusers" 2>&1 \
            && grep -q "Creating group 'lightrail'" "$tmp/sysusers"
    else
        # Each line a type of u, g, m or r and a name, as sysusers.d(5).
        [ -f "$s" ] && ! grep -v '^[[:space:]]*\(#\|$\)' "$s" \
            | grep -v -E '^[ugmr] [a-z_][a-z0-9_-]* ' > "$tmp/sysusers"
    fi
    parsed=$?
    if [ -f "$s" ] && [ -n "$groups" ] && [ -z "$undeclared" ] && [ $parsed -eq 0 ]; then
        ok "sysusers.d/lightrail.conf in $sysusersdir declares the units' group$(echo $groups | sed 's/^/ /')"
    else
        notok "sysusers.d file $s: groups '$groups', undeclared:$undeclared; $(cat "$s" "$tmp/sysusers" 2>&1)"
    fi
fi

# The installed programs away from this tree: they carry their YANG
# modules, and the demo finds the daemon installed beside it (sbin/ next
# to bin/), wherever the tree was put.
mkdir "$tmp/away"
if (cd "$tmp/away" && "$LR" topo check "$ex/topologies/nsfnet.json") > "$tmp/topo" 2>&1; then
    ok "installed lightrail topo check on the installed nsfnet.json"
else
    notok "installed lightrail topo check: $(cat "$tmp/topo")"
fi
if (cd "$tmp/away" && "$LRD" --version) 2>&1 | grep -q '^lightraild '; then
    ok "installed lightraild --version"
else
    notok "installed lightraild --version: $(cd "$tmp/away" && "$LRD" --version 2>&1)"
fi
# Its --help names the installed examples (it named examples/lightraild/,
# which is only in the source).
"$LRD" --help > "$tmp/help" 2>&1
if grep -q -F "$pkgdatadir/examples/lightraild/," "$tmp/help" \
   && [ -f "$ex/lightraild/demo.json" ]; then
    ok "lightraild --help names $pkgdatadir/examples/lightraild/"
else
    notok "lightraild --help: $(cat "$tmp/help")"
fi
if (cd "$tmp/away" && "$LR" demo --format json) > "$tmp/demo.json" 2> "$tmp/demo.err" \
   && jq -e '.jobs_submitted == 5 and .jobs_active >= 2' "$tmp/demo.json" > /dev/null; then
    ok "installed lightrail demo, with the installed lightraild"
else
    notok "installed lightrail demo: $(cat "$tmp/demo.err" "$tmp/demo.json")"
fi

# make uninstall: no file left, nor the package's folders.
$MAKE -s uninstall DESTDIR="$root" > "$tmp/uninstall.log" 2>&1
(cd "$root" && find . ! -type d) > "$tmp/left"
left_dirs=
for d in "$pkgdatadir" "$docdir"; do
    [ -e "$root$d" ] && left_dirs="$left_dirs $d"
done
if [ ! -s "$tmp/left" ] && [ -z "$left_dirs" ]; then
    ok "make uninstall leaves no file, nor $pkgdatadir or $docdir"
else
    notok "make uninstall left $(tr '\n' ' ' < "$tmp/left")$left_dirs ($(tail -3 "$tmp/uninstall.log"))"
fi
lr_summary
