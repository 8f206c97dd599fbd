#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 in front of 127.0.0.1:TARGET-PORT.

By default it swallows the first connection it gets (accepts it, then
never forwards a byte either way) and relays every later one to
TARGET-PORT: a device whose first session is lost in its setup
(tests/cli/sb_netconf.sh).  Options:

  --no-stall       relay the first connection too;
  --delay SECONDS  hold each chunk the target sends for SECONDS before
                   passing it on: a healthy peer whose answers come late
                   (tests/cli/resolve.sh).  What the client sends goes
                   straight through;
  --cut-on-usr1    on SIGUSR1, break every connection relayed so far and
                   swallow the next one: a peer cut off for one exchange
                   (tests/cli/coord.sh); the signals handled so far go to
                   COUNT-FILE.cut;
  --port PORT      listen on PORT (default: any free one).

Prints its port on stdout once listening; writes the number of
connections accepted so far to COUNT-FILE after each accept.  Runs
until killed.

usage: stallproxy.py [--no-stall] [--delay SECONDS] [--cut-on-usr1]
                    [--port PORT] TARGET-PORT COUNT-FILE
"""
import argparse
import math
import signal
import socket
import threading
import time


def pipe(src, dst, delay):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            if delay:
                time.sleep(delay)
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def seconds(text):
    """A finite, non-negative number of seconds (argparse type)."""
    try:
        v = float(text)
    except ValueError:
        v = -1.0
    if not math.isfinite(v) or v < 0:
        raise argparse.ArgumentTypeError(
            "'%s' is not a number of seconds >= 0" % text)
    return v


def main():
    ap = argparse.ArgumentParser(
        description="A TCP proxy that swallows its first connection "
                    "or delays the target's answers.")
    ap.add_argument("--no-stall", action="store_true",
                    help="relay the first connection too")
    ap.add_argument("--delay", type=seconds, default=0.0, metavar="SECONDS",
                    help="hold each chunk from the target SECONDS")
    ap.add_argument("--cut-on-usr1", action="store_true",
                    help="on SIGUSR1 break the relayed connections and "
                    "swallow the next one")
    ap.add_argument("--port", type=int, default=0,
                    help="the port to listen on")
    ap.add_argument("target", type=int, metavar="TARGET-PORT")
    ap.add_argument("count_file", metavar="COUNT-FILE")
    args = ap.parse_args()
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", args.port))
    lsock.listen(16)
    print(lsock.getsockname()[1], flush=True)
    held, n = [], 0
    relayed, cut = [], {"n": 0, "swallow": False}

    def on_usr1(signum, frame):
        for c in relayed:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        relayed.clear()
        cut["n"] += 1
        cut["swallow"] = True
        with open(args.count_file + ".cut", "w") as f:
            f.write("%d\n" % cut["n"])

    if args.cut_on_usr1:
        signal.signal(signal.SIGUSR1, on_usr1)
    while True:
        conn, _ = lsock.accept()
        n += 1
        with open(args.count_file, "w") as f:
            f.write("%d\n" % n)
        if (n == 1 and not args.no_stall) or cut["swallow"]:
            cut["swallow"] = False
            held.append(conn)          # swallowed: kept open, never read
            continue
        up = socket.create_connection(("127.0.0.1", args.target))
        relayed.extend((conn, up))
        for a, b, d in ((conn, up, 0.0), (up, conn, args.delay)):
            threading.Thread(target=pipe, args=(a, b, d), daemon=True).start()


if __name__ == "__main__":
    main()
