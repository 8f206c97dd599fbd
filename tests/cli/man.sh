#!/bin/sh
# The manual pages (docs/man/) say what the programs' --help says: every
# option of `lightrail --help`, of each `lightrail COMMAND --help` (its
# usage lines and its list of options) and of `lightraild --help` is an
# item of the page (a .TP tag: of the command's .SS "lightrail COMMAND",
# or of a shared .SH section whose title that section names, as
# "CLIENT OPTIONS"), and the page has no item the --help lacks; every
# command has its section and every section a command.  man renders
# the pages without a warning.  Before, there were no pages.  Every
# command's --help (and that of the subcommands that have their own
# options) exits 0 with its text on stdout alone, and an unknown option
# exits 2 with one line naming it, as lightrail(1) EXIT STATUS says.
. "${srcdir:-.}/tests/cli/lib.sh"
LIGHTRAILD=${LIGHTRAILD:-./lightraild}
page1=docs/man/lightrail.1
page8=docs/man/lightraild.8

# help_opts: the options of a --help text on stdin, one a line, sorted:
# those of the usage lines (up to the first blank line) and of the terms
# of its list (a line indented at most 12 columns that starts with '-',
# up to two blanks; deeper lines continue a description).
help_opts() {
    awk 'function opts(s) {
             while (match(s, /(^|[ [(|,])--?[A-Za-z][A-Za-z0-9-]*/)) {
                 o = substr(s, RSTART, RLENGTH); sub(/^[ [(|,]/, "", o)
                 print o; s = substr(s, RSTART + RLENGTH)
             }
         }
         !body && /^[ \t]*$/ { body = 1; next }
         !body { sub(/^usage:/, ""); opts($0); next }
         match($0, /^ +/) && RLENGTH <= 12 && substr($0, RLENGTH + 1, 1) == "-" {
             t = substr($0, RLENGTH + 1); sub(/  .*/, "", t); opts(t)
         }' | sort -u
}

# page_opts PAGE SECTION: the options of the .TP tags of SECTION (a
# .SS or .SH line, exactly), and of the .SH sections whose title its
# text names; sorted.
page_opts() {
    awk -v want="$2" '
        /^\.S[HS] / { sec = $0; next }
        { text[sec] = text[sec] "\n" $0 }
        prev == ".TP" { tag[sec] = tag[sec] "\n" $0 }
        { prev = $0 }
        END {
            s = tag[want]
            for (k in text) {
                if (k !~ /^\.SH "/) continue
                title = k; sub(/^\.SH "/, "", title); sub(/"$/, "", title)
                if (k != want && index(text[want], title)) s = s "\n" tag[k]
            }
            gsub(/\\-/, "-", s); gsub(/\\f[BIRP]/, "", s)
            n = split(s, line, "\n")
            for (i = 1; i <= n; i++) {
                l = " " line[i]
                while (match(l, /[ [(|,]--?[A-Za-z][A-Za-z0-9-]*/)) {
                    print substr(l, RSTART + 1, RLENGTH - 1)
                    l = substr(l, RSTART + RLENGTH)
                }
            }
        }' "$1" | sort -u
}

# help_items: each term of a --help list on stdin with its description
# (a line indented at most 12 columns that starts with '-', and the
# deeper lines under it), one a line, every blank and double quote
# removed: where a text breaks its lines is no difference.  --help and
# --version are left out: the pages say them in man's own words.
help_items() {
    awk '!body && /^[ \t]*$/ { body = 1; next }
         !body { next }
         match($0, /^ +/) && RLENGTH <= 12 && substr($0, RLENGTH + 1, 1) == "-" {
             if (item != "") print item
             item = $0; ind = RLENGTH; next
         }
         item != "" && match($0, /^ +/) && RLENGTH > ind { item = item $0; next }
         { if (item != "") print item; item = "" }
         END { if (item != "") print item }' | tr -d ' \t"' |
        grep -v -e '^--version' -e '^-h,--help'
}

# page_text PAGE SECTION: the text of SECTION and of the .SH sections
# its text names (as page_opts), without roff's fonts, escapes and
# requests, every blank removed, on one line, each item (.TP, .PP, ...)
# between two '|'.
page_text() {
    awk -v want="$2" '
        /^\.S[HS] / { sec = $0; next }
        { text[sec] = text[sec] "\n" $0 }
        END {
            s = text[want]
            for (k in text) {
                if (k !~ /^\.SH "/) continue
                title = k; sub(/^\.SH "/, "", title); sub(/"$/, "", title)
                if (k != want && index(text[want], title)) s = s "\n" text[k]
            }
            n = split(s, line, "\n")
            for (i = 1; i <= n; i++) {
                l = line[i]
                if (l ~ /^\.(TP|PP|RS|RE)/) { printf "|"; continue }
                if (l ~ /^\.(IP|nf|fi|br)/) continue
                sub(/^\.[A-Z]+ /, "", l)
                gsub(/\\-/, "-", l); gsub(/\\f[BIRP]/, "", l)
                gsub(/\\\(aq/, "\047", l); gsub(/\\e/, "\\", l)
                gsub(/[ \t"]/, "", l)
                printf "%s", l
            }
            print "|"
        }' "$1"
}

# described WHAT HELP-ITEMS PAGE-TEXT: each option's description in
# --help is the page's, word for word (the page had `--gpus-min`
# "the fewest devices the job accepts" after the schema and --help
# had stopped saying it; a --help changed without its page now fails).
described() {
    missing=
    while IFS= read -r item; do
        grep -q -F -e "|$item|" "$3" || missing="$missing [$item]"
    done < "$2"
    if [ -s "$2" ] && [ -z "$missing" ]; then
        ok "$1: the page describes the $(wc -l < "$2") options as --help does"
    else
        notok "$1: described otherwise in the page (blanks removed):$missing"
    fi
}

# same WHAT HELP-OPTS PAGE-OPTS: the two lists are the same.
same() {
    if [ -s "$2" ] && cmp -s "$2" "$3"; then
        ok "$1: the page has the $(wc -l < "$2") options of --help"
    else
        notok "$1: only in --help: $(comm -23 "$2" "$3" | tr '\n' ' '); only in the page: $(comm -13 "$2" "$3" | tr '\n' ' ')"
    fi
}

for p in "$page1" "$page8"; do
    [ -f "$p" ] || { notok "no $p (make builds it from $p.in)"; lr_summary; exit; }
done

"$LIGHTRAIL" --help | help_opts > "$tmp/h"
page_opts "$page1" '.SH OPTIONS' > "$tmp/p"
same "lightrail" "$tmp/h" "$tmp/p"

# The commands of `lightrail --help` and the page's sections.
"$LIGHTRAIL" --help | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' \
    | sort > "$tmp/cmds"
sed -n 's/^\.SS "lightrail \([a-z-]*\)"$/\1/p' "$page1" | sort > "$tmp/sections"
if [ "$(wc -l < "$tmp/cmds")" -ge 10 ] && cmp -s "$tmp/cmds" "$tmp/sections"; then
    ok "lightrail.1 has a section for each of the $(wc -l < "$tmp/cmds") commands"
else
    notok "commands without a section: $(comm -23 "$tmp/cmds" "$tmp/sections" | tr '\n' ' '); sections without a command: $(comm -13 "$tmp/cmds" "$tmp/sections" | tr '\n' ' ')"
fi
for c in $(cat "$tmp/cmds"); do
    "$LIGHTRAIL" "$c" --help | help_opts > "$tmp/h"
    page_opts "$page1" ".SS \"lightrail $c\"" > "$tmp/p"
    same "lightrail $c" "$tmp/h" "$tmp/p"
    "$LIGHTRAIL" "$c" --help | help_items > "$tmp/hi"
    page_text "$page1" ".SS \"lightrail $c\"" > "$tmp/pt"
    described "lightrail $c" "$tmp/hi" "$tmp/pt"
done

# --help and an unknown option, for every command of `lightrail --help`
# (the list above) and the subcommands that read options of their own.
for c in $(cat "$tmp/cmds") "topo import" "topo check" "mnoptical check" \
         "job submit" "job list" "job show" "job delete" "policy show" \
         "policy reload"; do
    $LIGHTRAIL $c --help > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q "^usage: lightrail ${c%% *} " "$tmp/out" \
       && [ ! -s "$tmp/err" ]; then
        ok "lightrail $c --help: exit 0, the usage on stdout"
    else
        notok "lightrail $c --help: exit $rc, $(head -2 "$tmp/out") $(cat "$tmp/err")"
    fi
    expect_bad "'--no-such-option' (see lightrail ${c%% *} --help)" \
        $LIGHTRAIL $c --no-such-option
done
# An option that takes a value, given twice, for every command of
# `lightrail --help` and for lightraild: exit 2, one line naming both
# values, as lightrail(1) DESCRIPTION says; before, the daemon's
# clients, agent, reservations, demo, mnoptical and lightraild kept the
# second silently.  Each row runs nothing even where the rule is
# missing: a client talks to port 1 at most, and the others lack
# something they require.  A command without a row fails here.
# Rows: command|options before|the option|its first value|the second.
I=http://127.0.0.1:1
while IFS='|' read -r c pre o v1 v2; do
    echo "${c%% *}" >> "$tmp/twice"
    # shellcheck disable=SC2086
    expect_bad "--$o given twice ('$v1', then '$v2'): give it once" \
        $LIGHTRAIL $c $pre --"$o" "$v1" --"$o" "$v2" < /dev/null
done <<EOF2
rsa-sim||seed|1|2
sim||seed|1|2
train||seed|1|2
advantage||load|1|2
average||out|$tmp/1.pol|$tmp/2.pol
demo|--emulate --keep|format|text|json
plan||batch|1|2
agent||listen|127.0.0.1:0|127.0.0.1:1
reservations|--tag x|state-dir|$tmp/1|$tmp/2
topo import|x.json|name|1|2
job list|--server $I|limit|1|2
topology show|--server $I|token|1|2
inventory show|--server $I|cacert|1|2
spectrum show|--server $I|timeout|1|2
reconcile|--dry-run --server $I|format|text|json
devices||server|http://127.0.0.1:2|$I
policy show|--server $I|token|1|2
mnoptical check||n|1|2
EOF2
if sort -u "$tmp/twice" | cmp -s - "$tmp/cmds"; then
    ok "a repeat of an option is tried for each of the $(wc -l < "$tmp/cmds") commands"
else
    notok "commands without a repeat tried: $(sort -u "$tmp/twice" | comm -13 - "$tmp/cmds" | tr '\n' ' ')"
fi
expect_bad "lightraild: --config given twice ('1', then '2'): give it once" \
    $LIGHTRAILD -c 1 --config 2
# lightraild's refusal is getopt's line, then its usage.
$LIGHTRAILD --no-such-option > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] \
   && head -1 "$tmp/err" | grep -q "unrecognized option '--no-such-option'"; then
    ok "lightraild --no-such-option: exit 2, naming it"
else
    notok "lightraild --no-such-option: exit $rc, $(head -1 "$tmp/err")"
fi
# A configuration given without --config, or none: a line saying so
# before the usage (until 2026-12-07 the usage alone).
$LIGHTRAILD lightraild.json > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] \
   && head -1 "$tmp/err" | grep -q -x "lightraild: unexpected argument 'lightraild.json': give the configuration with --config FILE"; then
    ok "lightraild FILE: exit 2, saying FILE wants --config"
else
    notok "lightraild FILE: exit $rc, $(head -1 "$tmp/err")"
fi
$LIGHTRAILD > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] \
   && head -1 "$tmp/err" | grep -q -x "lightraild: no configuration: give it with --config FILE"; then
    ok "lightraild alone: exit 2, asking for --config"
else
    notok "lightraild alone: exit $rc, $(head -1 "$tmp/err")"
fi
for p in "$LIGHTRAIL" "$LIGHTRAILD"; do
    $p --help > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 0 ] && grep -q "^usage: " "$tmp/out" && [ ! -s "$tmp/err" ]; then
        ok "$p --help: exit 0, the usage on stdout"
    else
        notok "$p --help: exit $rc, $(cat "$tmp/err")"
    fi
done

"$LIGHTRAILD" --help | help_opts > "$tmp/h"
page_opts "$page8" '.SH OPTIONS' > "$tmp/p"
same "lightraild" "$tmp/h" "$tmp/p"
"$LIGHTRAILD" --help | help_items > "$tmp/hi"
page_text "$page8" '.SH OPTIONS' > "$tmp/pt"
described "lightraild" "$tmp/hi" "$tmp/pt"

# man renders them without a warning, as a reader runs it (at 80
# columns; in C.UTF-8, which Debian always has, so that no missing
# locale speaks on stderr), and groff with every warning on.
if command -v man > /dev/null; then
    for p in "$page1" "$page8"; do
        LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$p" > "$tmp/out" 2> "$tmp/err"
        rc=$?
        groff -ww -z -man "$p" 2>> "$tmp/err"
        if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ -s "$tmp/out" ] \
           && ! grep -q '@[A-Za-z_]*@' "$p"; then
            ok "man --warnings -l $p, groff -ww: no warning"
        else
            notok "man --warnings -l $p, groff -ww: $(head -5 "$tmp/err")"
        fi
    done
else
    echo "skip: man not installed (man-db), the pages are not rendered"
fi
lr_summary
