#!/usr/bin/env python3
"""Regroups the helpers' step lines (StepService, INFO for background work) of DataNode logs by repair: each repair's
hops in the order they were reached, with when each was asked (seconds after the first hop of the window), whether it
sends across racks (X, by the third octet of the address, as dev-support/cluster.sh numbers racks), and its times.

  dev-support/repair-steps.py LOGDIR [FROM [TO]]     e.g. /tmp/wide-ec-bench-cluster/logs "2026-12-01 00:23:40"

A chain runs at its slowest hop's pace: the hop just before the bottleneck waits to send, the one after it waits for
its upstream; a chain's setup is the sum of its hops' "ready" (docs/repair.md, "Where a repair's time went")."""
import collections
import datetime
import glob
import re
import sys

LINE = re.compile(r'^(\S+ \S+) INFO \S*StepService: step (-?\d+) at (\S+) for (\S+): (\d+) slices of (\d+) x (\d+) B, '
                  r'(\d+) upstreams, (\d+) local units; queued (\d+) ms, ready at (\S+), first slice out at (\S+), '
                  r'done at (\d+); waited for upstreams (\d+) ms, read (\d+), computed (\d+), waited to send (\d+)')


def rack(address):
    parts = address.split(':')[0].split('.')
    return parts[2] if len(parts) == 4 else address


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    lo = argv[2] if len(argv) > 2 else ''
    hi = argv[3] if len(argv) > 3 else '9999'
    steps = collections.defaultdict(list)
    for path in glob.glob(argv[1] + '/*.log'):
        with open(path, errors='replace') as f:
            for line in f:
                m = LINE.match(line)
                if not m or not lo <= m.group(1) <= hi:
                    continue
                g = m.groups()
                end = datetime.datetime.strptime(g[0], '%Y-%m-%d %H:%M:%S,%f').timestamp()
                steps[g[1]].append(dict(asked=end - int(g[12]) / 1000, at=g[2], to=g[3], slices=int(g[4]),
                                        ups=int(g[7]), queued=int(g[9]), ready=g[10], first=g[11], done=int(g[12]),
                                        up=int(g[13]), read=int(g[14]), comp=int(g[15]), send=int(g[16]),
                                        cross=rack(g[2]) != rack(g[3])))
    if not steps:
        sys.exit('no step lines in ' + argv[1] + ' (StepService logs them at INFO for background work)')
    t0 = min(s['asked'] for v in steps.values() for s in v)
    for rid, v in sorted(steps.items(), key=lambda kv: min(s['asked'] for s in kv[1])):
        v.sort(key=lambda s: s['asked'])
        print(f"repair {rid}: {len(v)} steps, {v[0]['slices']} slices")
        for s in v:
            print(f"  {s['asked'] - t0:7.2f}s {s['at']:>21} -> {s['to']:<21} {'X' if s['cross'] else ' '} "
                  f"ups={s['ups']} queued={s['queued']:5} ready={s['ready']:>6} first={s['first']:>6} "
                  f"done={s['done']:6} waitUp={s['up']:6} read={s['read']:5} comp={s['comp']:4} waitSend={s['send']:6}")


if __name__ == '__main__':
    main(sys.argv)
