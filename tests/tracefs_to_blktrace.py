#!/usr/bin/env python3
"""tests/tracefs_to_blktrace.py TRACE OUT -- a tracefs capture of the
block_bio_queue / block_rq_{insert,issue,complete,requeue} events written as
blktrace's binary records (struct blk_io_trace, version 7, native byte
order, one CPU file OUT.blktrace.0), with a process notification before each
pid's first event: the capture blktrace would have written, for blkparse and
`blkmc workload import` to read (this machine refuses blktrace's relay files).
"""
import re
import struct
import sys

ACT = {"block_bio_queue": 1, "block_rq_requeue": 6, "block_rq_issue": 7, "block_rq_complete": 8,
       "block_rq_insert": 12}
CAT = {1: 1 << 4, 12: 1 << 4, 7: 1 << 6, 8: 1 << 7, 6: 1 << 5}  # queue, issue, complete, requeue
LINE = re.compile(r"^\s*(?P<comm>.*)-(?P<pid>\d+)\s+\[(?P<cpu>\d+)\]\s+\S+\s+(?P<ts>\d+\.\d+): (?P<ev>block_\w+): "
                  r"(?P<maj>\d+),(?P<min>\d+) (?P<rwbs>\S+) (?P<rest>.*)$")
TAIL = re.compile(r"(?P<sector>\d+) \+ (?P<nr>\d+)")


def record(seq, ns, sector, nbytes, action, pid, dev, pdu=b""):
    # One CPU's file: cpu 0, sequence numbers from 1 (blkparse orders by them).
    head = struct.pack("=IIQQIIIIIHH", 0x65617407, seq, ns, sector, nbytes, action, pid, dev, 0, 0, len(pdu))
    return head + pdu


def main():
    src, out = sys.argv[1], sys.argv[2]
    recs, seen, t0 = [], set(), None
    for line in open(src):
        m = LINE.match(line)
        if not m or m["ev"] not in ACT:
            continue
        rest = re.sub(r"\([^)]*\)", "", m["rest"])
        t = TAIL.search(rest)
        if not t:
            continue
        sec, frac = m["ts"].split(".")
        ns = int(sec) * 10**9 + int(frac.ljust(9, "0")[:9])
        t0 = ns if t0 is None else t0
        code = ACT[m["ev"]]
        tc = CAT[code]
        rwbs = m["rwbs"]
        kind = rwbs.lstrip("F")[:1]
        if rwbs.startswith("F"):
            tc |= 1 << 2
        tc |= {"W": 1 << 1, "R": 1 << 0, "D": 1 << 13}.get(kind, 0)
        for flag, bit in (("S", 3), ("M", 12), ("A", 11)):
            if flag in rwbs[1:]:
                tc |= 1 << bit
        if "F" in rwbs.lstrip("F")[1:]:
            tc |= 1 << 15
        dev = (int(m["maj"]) << 20) | int(m["min"])
        pid = 0 if code in (6, 8) else int(m["pid"])
        if pid and pid not in seen:
            seen.add(pid)
            recs.append(record(len(recs) + 1, ns - t0, 0, 0, 1 << 26, pid, dev,
                               m["comm"].encode()[:16].ljust(16, b"\0")))
        recs.append(record(len(recs) + 1, ns - t0, int(t["sector"]), int(t["nr"]) * 512, code | (tc << 16), pid, dev))
    if not recs:
        sys.exit(f"{src}: no block request events")
    with open(out + ".blktrace.0", "wb") as f:
        f.write(b"".join(recs))


main()
