#!/bin/sh
# `lightrail demo`: the main job runs end to end (a real lightraild on
# 127.0.0.1, sample jobs over HTTPS) and reports what it did.
. "${srcdir:-.}/tests/cli/lib.sh"
if $LIGHTRAIL demo --format json --lightraild ./lightraild > "$tmp/demo.json" 2> "$tmp/err"; then
    if jq -e '.jobs_submitted == 5 and .jobs_active >= 2 and .jobs_blocked >= 1
              and .lightpaths >= 2 and .lightpaths % 2 == 0 and .jobs_failed == 0
              and ([.jobs[] | select(.phase == "blocked") | .reason | length > 0] | all)' \
          "$tmp/demo.json" > /dev/null; then
        ok "demo: jobs admitted and blocked, lightpaths in pairs"
    else
        notok "demo summary: $(cat "$tmp/demo.json")"
    fi
else
    notok "demo failed: $(cat "$tmp/err")"
fi
# It cleans up after itself.
if ls -d /tmp/lightrail-demo-* 2>/dev/null | while read -r d; do
       [ -e "$d/state/lightraild.pid" ] && kill -0 "$(cat "$d/state/lightraild.pid")" 2>/dev/null && echo alive
   done | grep -q alive; then
    notok "a demo daemon is still running"
else
    ok "no demo daemon left running"
fi
$LIGHTRAIL demo --format yaml > /dev/null 2> "$tmp/err"
[ $? -eq 2 ] && grep -q "format wants" "$tmp/err" && ok "bad --format: exit 2" || notok "bad --format"
lr_summary
