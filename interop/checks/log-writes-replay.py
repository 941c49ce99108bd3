#!/usr/bin/env python3
"""Replays a dm-log-writes log against the record of the power-loss writer (check 38).

  log-writes-replay.py LOG RECORD [--damage KIND] [--json FILE]

LOG is the log device of a `log-writes` device-mapper target, RECORD what PowerLossWriter (cli test tree) saw
acknowledged. The log format, as Linux's drivers/md/dm-log-writes.c writes it (little-endian):

  sector 0:        super: u64 magic 0x6a736677736872, u64 version 1, u64 nr_entries, u32 sectorsize
  sector 1 on:     per entry one sector holding u64 sector, u64 nr_sectors, u64 flags, u64 data_len
                   (a mark's name follows in the same sector), then nr_sectors sectors of data (none for a
                   discard); sectors are of `sectorsize` bytes, on the log and on the data device alike
  flags:           1 FLUSH, 2 FUA, 4 DISCARD, 8 MARK, 16 METADATA

The kernel logs a plain write only once a flush covers it (the writes completed before a flush was submitted
come just before that flush's entry), a FUA write when it completes, a mark when it is asked for: replaying the
entries in order gives every state the device may be in after a power loss.

The data device starts zeroed. The replay applies the entries one by one and after each one (a crash point) checks:
  * every 4 KiB block the entry touched is whole: zeroes (never written) or a block of this run (magic, nonce,
    its own block number, a write the record knows to that block, CRC-32 right);
  * no block goes back to older data (the writer never has two writes to one block in flight, and never sends a
    FUA write to a block with a plain write since the last Flush, which dm-log-writes would log behind it);
  * every block some mark made required still holds that write or a later one (sequence number not lower);
and adds requirements at the points the record defines:
  * mark pre-N (odd epochs): every FUA write acknowledged before it must be present there;
  * the host's Flush N, the last FLUSH entry before mark post-N (after pre-N, or after the previous post mark; the
    writer sends nothing between the Flush and post-N, so no later flush can be there): every write acknowledged
    before the Flush must be present there; a log without such a flush entry fails;
  * mark post-N: the same, again.

--damage KIND alters the parsed log before the replay, to show that the replay notices a broken target (the
check requires each of these to fail; exit status 3 when the log has nothing to damage that way):
  late-write  a plain write acknowledged before Flush N is moved behind that flush and mark post-N (a target
              that acknowledged a write before it reached the device)
  lost-fua    a FUA write acknowledged before pre-N is moved behind Flush N (a target that ignored FUA and let
              the write sit in a volatile cache)
  torn        the second half of a required write's 4 KiB is zeroes (a block write that was not atomic)
"""
import json
import struct
import sys
import zlib

LOG_MAGIC = 0x6a736677736872
FLUSH, FUA, DISCARD, MARK, METADATA = 1, 2, 4, 8, 16
BLOCK = 4096
BLOCK_MAGIC = 0x314B34474F4C5050


class Entry:
    __slots__ = ("index", "sector", "nr", "flags", "name", "data")

    def __init__(self, index, sector, nr, flags, name, data):
        self.index, self.sector, self.nr, self.flags, self.name, self.data = index, sector, nr, flags, name, data

    def describe(self):
        kinds = [n for f, n in ((FLUSH, "FLUSH"), (FUA, "FUA"), (DISCARD, "DISCARD"), (MARK, "MARK")) if self.flags & f]
        what = "mark %s" % self.name if self.flags & MARK else "sector %d +%d" % (self.sector, self.nr)
        return "entry %d (%s%s)" % (self.index, what, (" " + "|".join(kinds)) if kinds and not self.flags & MARK else "")


def read_log(path):
    with open(path, "rb") as f:
        raw = f.read()
    magic, version, count, ss = struct.unpack_from("<QQQI", raw, 0)
    if magic != LOG_MAGIC or version != 1:
        raise SystemExit("%s: not a dm-log-writes log (magic %x, version %d)" % (path, magic, version))
    if ss < 512 or ss & (ss - 1):
        raise SystemExit("%s: sector size %d" % (path, ss))
    entries, pos = [], ss
    for i in range(count):
        if pos + 32 > len(raw):
            raise SystemExit("%s: entry %d of %d past the end (%d bytes)" % (path, i, count, len(raw)))
        sector, nr, flags, dlen = struct.unpack_from("<QQQQ", raw, pos)
        name, data = None, None
        if flags & MARK:
            name = raw[pos + 32:pos + 32 + dlen].decode("ascii", "replace")
        elif dlen:
            raise SystemExit("%s: entry %d has inline data (DAX metadata): not supported" % (path, i))
        elif not flags & DISCARD and nr:
            data = raw[pos + ss:pos + ss + nr * ss]
            if len(data) != nr * ss:
                raise SystemExit("%s: entry %d's data past the end" % (path, i))
        entries.append(Entry(i, sector, nr, flags, name, data))
        pos += ss * (1 + (0 if flags & DISCARD else nr))
    return ss, entries


def read_record(path):
    head, writes, marks = {}, [], []
    with open(path) as f:
        for line in f:
            p = line.split()
            if not p:
                continue
            if p[0] == "#":
                head.update(kv.split("=", 1) for kv in p if "=" in kv)
            elif p[0] == "W":
                writes.append((int(p[1]), int(p[2]), p[3] == "1"))
            elif p[0] == "M":
                marks.append((p[1], p[2], len(writes)))  # name, kind, writes acknowledged before it
            else:
                raise SystemExit("%s: bad line %r" % (path, line))
    return int(head["nonce"], 16), int(head["blocks"]), writes, marks


def block_fields(b):
    magic, blk, seq, flags, nonce = struct.unpack_from("<QQQQQ", b, 0)
    crc, = struct.unpack_from("<Q", b, BLOCK - 8)
    return magic, blk, seq, flags, nonce, crc


def epochs_in(entries, marks):
    """Per epoch N whose mark post-N is in the log: (N, pre, flush, post, start), log positions of mark pre-N (None
    in the epochs without one), of the host's Flush N (the last flush entry before post-N and after pre-N or the
    previous post mark; None if there is none), of post-N, and of the previous post mark (-1 for the first)."""
    where = {e.name: i for i, e in enumerate(entries) if e.flags & MARK}
    out, start = [], -1
    for name, kind, _ in marks:
        if kind != "F" or name not in where:
            continue
        n = name[5:]
        post = where[name]
        pre = where.get("pre-" + n)
        low = pre if pre is not None else start
        flush = next((i for i in range(post - 1, low, -1) if entries[i].flags & FLUSH), None)
        out.append((n, pre, flush, post, start))
        start = post
    return out


def damage(kind, entries, writes, marks, ss):
    """Alters the entry list as a broken target would have; returns a description."""
    per = BLOCK // ss
    content = {}  # entry index -> (block, seq, fua) for single-block data entries of this run
    for e in entries:
        if e.data is not None and e.nr == per and e.sector % per == 0:
            magic, blk, seq, flags, _, _ = block_fields(e.data)
            if magic == BLOCK_MAGIC:
                content[e.index] = (blk, seq, flags & 1)
    acked_fua = {w[0] for w in writes if w[2]}
    # an epoch in the middle of the run (for a target that goes wrong after a while); lost-fua needs one with pre-N
    epochs = [ep for ep in epochs_in(entries, marks) if ep[2] is not None and (kind != "lost-fua" or ep[1] is not None)]
    if not epochs:
        cannot("damage: no epoch with a flush in the log")
    n, pre, flush, post, prev_post = epochs[len(epochs) // 2]
    if kind == "late-write":
        # the last plain write logged before the flush (every write of the epoch was acknowledged before pre-N)
        i = pick((i for i in range(prev_post + 1, flush) if i in content and content[i][1] not in acked_fua),
                 "plain write before flush %s" % n)
        moved = entries.pop(i)
        entries.insert(post, moved)  # the mark is at post - 1 now: this lands right after it
        return "moved the log's entry %d (block %d, write %d) behind mark post-%s" % (i, *content[i][:2], n)
    if kind == "lost-fua":
        i = pick((i for i in range(prev_post + 1, pre) if i in content and content[i][1] in acked_fua),
                 "FUA write before mark pre-%s" % n)
        moved = entries.pop(i)
        moved.flags &= ~FUA
        entries.insert(flush, moved)  # flush moved down by one: this lands right after it
        return "moved the log's entry %d (FUA, block %d, write %d) behind Flush %s" % (
            i, *content[i][:2], n)
    if kind == "torn":
        i = pick((i for i in range(prev_post + 1, flush) if i in content), "write before flush %s" % n)
        e = entries[i]
        e.data = e.data[:BLOCK // 2] + bytes(BLOCK // 2)
        return "zeroed the second half of the log's entry %d (block %d, write %d)" % (i, *content[i][:2])
    print("unknown damage %s (late-write, lost-fua, torn)" % kind, file=sys.stderr)
    sys.exit(2)


def pick(candidates, what):
    i = max(candidates, default=None)
    if i is None:
        cannot("damage: the log has no %s to damage" % what)
    return i


def cannot(msg):
    """The damage asked for does not apply to this log: exit status 3, neither a pass nor a finding."""
    print(msg)
    sys.exit(3)


def replay(ss, entries, nonce, blocks, writes, marks):
    per = BLOCK // ss
    image = bytearray(blocks * BLOCK)
    target_of = {seq: blk for seq, blk, _ in writes}  # every acknowledged write and its block
    fua_of = {seq: fua for seq, _, fua in writes}
    required = {}          # block -> lowest sequence number it may hold
    current = [0] * blocks  # block -> the sequence number it holds
    why = {}               # block -> the point that required it
    problems = []
    stats = dict(entries=len(entries), crash_points=len(entries) + 1, flushes=0, fua_entries=0, marks=0,
                 data_entries=0, block_checks=0, required_checks=0, writes_required=0, fua_writes_required=0,
                 acknowledged=len(writes), acknowledged_fua=sum(1 for w in writes if w[2]), fua_logged_as_fua=0,
                 lost=0, torn=0)
    by_name = {m[0]: m for m in marks}
    seen_marks = []
    flush_at = {}          # log position of the host's Flush N -> (N, writes acknowledged before it)
    for n, pre, flush, post, _ in epochs_in(entries, marks):
        if flush is None:
            problem_later = "mark post-%s: no flush in the log since %s: Flush %s never reached the device" % (
                n, "pre-" + n if pre is not None else "the previous mark", n)
            flush_at[post] = (n, None, problem_later)
        else:
            flush_at[flush] = (n, by_name["post-" + n][2], None)
    required_writes = set()

    def problem(kind, msg):
        stats[kind] += 1
        if len(problems) < 20:
            problems.append(msg)

    def check_block(b, at):
        stats["block_checks"] += 1
        blk = image[b * BLOCK:(b + 1) * BLOCK]
        if not any(blk):
            seq = 0
        else:
            magic, nblk, seq, flags, bnonce, crc = block_fields(blk)
            bad = None
            if magic != BLOCK_MAGIC or bnonce != nonce:
                bad = "not a block of this run"
            elif zlib.crc32(blk[:BLOCK - 8]) != crc:
                bad = "CRC mismatch (torn: parts of different writes or of none)"
            elif nblk != b:
                bad = "holds block %d's data" % nblk
            elif seq not in target_of or target_of[seq] != b:
                bad = "holds write %d, which the host did not see acknowledged for this block" % seq
            elif bool(flags & 1) != fua_of[seq]:
                bad = "write %d's FUA bit differs from the record" % seq
            if bad:
                problem("torn", "after %s: block %d %s" % (at, b, bad))
                return
        # the writer never has two writes to one block in flight: a block's writes reach the device in the order
        # of their sequence numbers, and a block that goes back to older data lost the newer write
        if seq < current[b]:
            problem("lost", "after %s: block %d went back from write %d to %s"
                    % (at, b, current[b], "write %d" % seq if seq else "zeroes"))
        current[b] = seq
        need = required.get(b)
        if need is not None and seq < need:
            problem("lost", "after %s: block %d holds %s, but write %d was required since %s"
                    % (at, b, "write %d" % seq if seq else "zeroes", need, why[b]))

    def require(ws, at):
        for seq, b, fua in ws:
            if required.get(b, 0) < seq:
                required[b] = seq
                why[b] = at
            if seq not in required_writes:
                required_writes.add(seq)
                stats["writes_required"] += 1
                stats["fua_writes_required"] += fua
        for b in {w[1] for w in ws}:
            stats["required_checks"] += 1
            check_block(b, at)

    for e in entries:
        at = e.describe()
        if e.flags & MARK:
            stats["marks"] += 1
            seen_marks.append(e.name)
            m = by_name.get(e.name)
            if m is None:
                continue  # dm-log-writes-end, or a mark of someone else
            name, kind, n_acked = m
            if kind == "P":
                require([w for w in writes[:n_acked] if w[2]], "mark " + name)
            elif kind == "F":
                if e.index in flush_at:
                    problem("lost", flush_at[e.index][2])
                require(writes[:n_acked], "mark " + name)
            continue
        if e.flags & DISCARD:
            problem("torn", "%s: a discard; the writer never discards" % at)
            continue
        if e.data is not None:
            stats["data_entries"] += 1
            off = e.sector * ss
            if off + len(e.data) > len(image):
                problem("torn", "%s: past the end of the %d-block device" % (at, blocks))
                continue
            image[off:off + len(e.data)] = e.data
            first, last = off // BLOCK, (off + len(e.data) - 1) // BLOCK
            for b in range(first, last + 1):
                check_block(b, at)
            if e.flags & FUA:
                stats["fua_entries"] += 1
                if e.nr == per and e.sector % per == 0 and fua_of.get(block_fields(e.data)[2]):
                    stats["fua_logged_as_fua"] += 1
        if e.flags & FLUSH:
            stats["flushes"] += 1
            if e.index in flush_at:
                n, n_acked, _ = flush_at[e.index]
                require(writes[:n_acked], "%s, the host's Flush %s" % (at, n))
    missing = [m[0] for m in marks if m[0] not in seen_marks]
    if missing:
        problem("lost", "marks the writer asked for are not in the log: %s" % " ".join(missing[:10]))
    elif [n for n in seen_marks if n in by_name] != [m[0] for m in marks]:
        problem("lost", "the log's marks are out of the writer's order")
    return stats, problems


def main(argv):
    args, dmg, out = [], None, None
    it = iter(argv)
    for a in it:
        if a == "--damage":
            dmg = next(it)
        elif a == "--json":
            out = next(it)
        else:
            args.append(a)
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    ss, entries = read_log(args[0])
    nonce, blocks, writes, marks = read_record(args[1])
    note = damage(dmg, entries, writes, marks, ss) if dmg else None
    for i, e in enumerate(entries):
        e.index = i
    stats, problems = replay(ss, entries, nonce, blocks, writes, marks)
    if note:
        print("damaged log (%s): %s" % (dmg, note))
    print("replay: %d log entries (%d writes, %d flushes, %d with FUA, %d marks) = %d crash points checked; "
          "%d acknowledged writes (%d FUA, %d of them logged as FUA writes), %d required at a mark or flush "
          "(%d FUA); %d presence checks, %d block checks: %d lost, %d torn"
          % (stats["entries"], stats["data_entries"], stats["flushes"], stats["fua_entries"], stats["marks"],
             stats["crash_points"], stats["acknowledged"], stats["acknowledged_fua"], stats["fua_logged_as_fua"],
             stats["writes_required"], stats["fua_writes_required"], stats["required_checks"],
             stats["block_checks"], stats["lost"], stats["torn"]))
    for p in problems:
        print("  " + p)
    if out:
        with open(out, "w") as f:
            json.dump(dict(stats, damage=dmg, problems=problems), f, indent=1)
    ok = not problems and stats["acknowledged"] > 0 and stats["writes_required"] == stats["acknowledged"]
    if not problems and stats["writes_required"] != stats["acknowledged"]:
        print("  only %d of %d acknowledged writes were required at some point"
              % (stats["writes_required"], stats["acknowledged"]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
