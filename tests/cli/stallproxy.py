#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that swallows the first connection it gets
(accepts it, then never forwards a byte either way) and relays every
later one to TARGET-PORT: a device whose first session is lost in its
setup.  Prints its port on stdout once listening; writes the number of
connections accepted so far to COUNT-FILE after each accept.  Runs
until killed.

usage: stallproxy.py TARGET-PORT COUNT-FILE
"""
import socket
import sys
import threading


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    target, count_file = int(sys.argv[1]), sys.argv[2]
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(16)
    print(lsock.getsockname()[1], flush=True)
    held, n = [], 0
    while True:
        conn, _ = lsock.accept()
        n += 1
        with open(count_file, "w") as f:
            f.write("%d\n" % n)
        if n == 1:
            held.append(conn)          # swallowed: kept open, never read
            continue
        up = socket.create_connection(("127.0.0.1", target))
        for a, b in ((conn, up), (up, conn)):
            threading.Thread(target=pipe, args=(a, b), daemon=True).start()


if __name__ == "__main__":
    main()
