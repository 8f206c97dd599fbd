#!/usr/bin/python3
# store_channels.py JOBS.json: the media channels every ROADM must hold
# according to the store (the active jobs' lightpaths, as GET
# /restconf/data/lightrail-job:jobs answers them), one line each, sorted:
#   DEVICE NAME IN OUT LOWER-MHZ UPPER-MHZ enabled
# with NAME = JOB/lpK, IN and OUT the topology links ('-' at the ends),
# the edges from n and m of the flexgrid (193.1 THz + n x 6.25 GHz, width
# m x 12.5 GHz).  The device tests (sb_netconf.sh, sb_netconf_tls.sh,
# sb_restconf.sh, through devlib.sh's expected()) compare this with what
# the devices hold.
import json
import sys

doc = json.load(open(sys.argv[1]))
rows = []
for j in doc.get("lightrail-job:jobs", {}).get("job", []):
    st = j.get("state", {})
    if st.get("phase") != "active":
        continue
    for lp in st.get("lightpath", []):
        nodes, links = lp["node"], lp["link"]
        n, m = int(lp["n"]), int(lp["m"])
        lo = 193100000 + n * 6250 - m * 6250
        hi = 193100000 + n * 6250 + m * 6250
        for h, dev in enumerate(nodes):
            rows.append("%s %s/lp%s %s %s %d %d enabled" % (
                dev, j["name"], lp["index"],
                links[h - 1] if h > 0 else "-",
                links[h] if h < len(links) else "-", lo, hi))
for r in sorted(rows):
    print(r)
