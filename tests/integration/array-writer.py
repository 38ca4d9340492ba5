#!/usr/bin/env python3
"""array-writer.py - the verifying writer of 25-ossdfs-array.sh.

  array-writer.py write FILE ACKLOG   write 4 KiB records, fsync every 8,
                                      and after each fsync that succeeded
                                      append the count of records it made
                                      durable to ACKLOG (itself fsynced);
                                      stops at the first error (exit 3)
  array-writer.py check FILE ACKLOG   every record up to the last count in
                                      ACKLOG reads back as written (exit 1
                                      and the first bad record otherwise)

Record i is 4096 bytes at offset i*4096: "rec %08d " then bytes derived
from i, so a record of zeros, of another record or of old data is told
apart.
"""
import hashlib
import os
import sys

REC = 4096


def record(i):
    head = b"rec %08d " % i
    body = hashlib.sha256(b"%d" % i).digest() * (REC // 32)
    return (head + body)[:REC]


def write(path, acklog):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    ack = os.open(acklog, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    i = 0
    try:
        while i < 1_000_000:
            os.pwrite(fd, record(i), i * REC)
            i += 1
            if i % 8 == 0:
                os.fsync(fd)
                os.write(ack, b"%d\n" % i)
                os.fsync(ack)
    except OSError as e:
        print("writer stopped at record %d: %s" % (i, e), file=sys.stderr)
        sys.exit(3)


def check(path, acklog):
    with open(acklog, "rb") as f:
        lines = f.read().split()
    durable = int(lines[-1]) if lines else 0
    size = os.path.getsize(path)
    if size < durable * REC:
        print("size %d < %d acknowledged records" % (size, durable))
        return 1
    with open(path, "rb") as f:
        for i in range(durable):
            got = f.read(REC)
            if got != record(i):
                print("record %d of %d acknowledged differs: %r" % (i, durable, got[:16]))
                return 1
    print("%d acknowledged records intact (file %d bytes)" % (durable, size))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("write", "check"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    if sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
