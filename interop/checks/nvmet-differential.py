#!/usr/bin/env python3
"""The comparison of check 36 (36-nvmf4j-vs-nvmet-differential.sh): the probes the guest's nvme-cli sent to Linux
nvmet ($SYNC/nvmet) and to nvmf4j ($SYNC/nvmf4j), one file set per probe (NAME.cmd, .rc, .out, .err). For each probe:
the NVMe status of both (DNR | SCT | SC, from nvme-cli's "NVMe status: ...(0xNNNN)", 0 on success), then the fields
that must agree. A difference fails unless INTENTIONAL / INTENTIONAL_FIELDS list it with its reason (the same list
is in docs/CONFORMANCE.md). The More bit (an error log entry was made) is compared apart and only reported.
Usage: nvmet-differential.py SYNC_DIR; exit 1 on an unlisted difference."""
import json
import os
import re
import sys

# probe -> why its status differs on purpose (nvmet is Linux 6.1, the lab guest's kernel)
INTENTIONAL = {
    "get-log-0x0c": "ANA log page: both answer; nvmf4j's groups and states are its port's (issue 18), nvmet's its own",
    "fabrics-fctype-0x05": "Authentication Send: nvmf4j implements DH-HMAC-CHAP (issue 14), so a probe without SECP E9h is "
                           "Invalid Field as nvmet built with CONFIG_NVME_TARGET_AUTH; the lab's 6.1 nvmet has no "
                           "authentication (Invalid Opcode)",
    "fabrics-fctype-0x06": "Authentication Receive: as fabrics-fctype-0x05",
    "get-feature-0x82": "Reservation Notification Mask: nvmf4j serves reservations (issue 18); without an NSID it is "
                        "Invalid Namespace as current nvmet (nvmet_get_feat_resv_notif_mask()); 6.1 has no reservations",
    "get-feature-0x83": "Reservation Persistence: as get-feature-0x82",
    "get-log-0x80": "Reservation Notification log: answered (issue 18), as current nvmet with resv_enable; 6.1 has "
                    "no reservations",
    "io-opcode-0x0d": "Reservation Register: executed (issue 18); the probe carries no data: Data SGL Length Invalid; "
                      "6.1 has no reservations (Invalid Opcode)",
    "io-opcode-0x0e": "Reservation Report: as io-opcode-0x0d",
    "io-opcode-0x11": "Reservation Acquire: as io-opcode-0x0d",
    "io-opcode-0x15": "Reservation Release: as io-opcode-0x0d",
    "get-feature-0x01": "Arbitration: mandatory (NVMe Base 2.0 Figure 317), nvmf4j answers 0 as SPDK; nvmet 6.1 has it under #if 0",
    "get-feature-0x02": "Power Management: mandatory, answered 0 as SPDK; nvmet #if 0",
    "get-feature-0x04": "Temperature Threshold: mandatory, answered 0 as SPDK; nvmet #if 0",
    "get-feature-0x05": "Error Recovery: mandatory, answered 0 as SPDK; nvmet #if 0",
    "get-feature-0x0a": "Write Atomicity Normal: mandatory, answered 0 as SPDK; nvmet #if 0",
    "identify-cns-0x05": "I/O command set specific Identify Namespace, CSI 0: zeroes as current nvmet "
                         "(nvme_execute_identify_ns_nvm(), Linux 6.x after 6.1); 6.1 refuses",
    "identify-cns-0x08": "command set independent Identify Namespace: answered as current nvmet "
                         "(nvmet_execute_id_cs_indep()); 6.1 refuses",
    "identify-cns-0x03-csi2": "zoned namespaces (CSI 2) not supported; nvmet 6.1 built with CONFIG_BLK_DEV_ZONED answers",
    "identify-cns-0x06-csi2": "zoned namespaces not supported; nvmet with CONFIG_BLK_DEV_ZONED answers",
    "effects-log-csi2": "zoned namespaces not supported (Invalid I/O Command Set, nvmet's answer without zoned support); "
                        "the guest's nvmet has zoned support and answers",
    "identify-cns-0x02-nsid-fffffffe": "NSID FFFFFFFEh/FFFFFFFFh in CNS 02h: Invalid Namespace as the spec and current nvmet "
                                       "(nvmet_execute_identify_nslist()); 6.1 returns the list",
    "fabrics-fctype-0x08": "Disconnect on the admin queue: Invalid Queue Type (NVMe-oF 1.1 Figure 23, as SPDK); "
                           "nvmet implements no Disconnect and answers Invalid Opcode",
    "io-read-beyond": "a read past the namespace: LBA Out of Range (NVM Command Set 1.0); nvmet's file backend "
                      "maps its short read to -ENOSPC, Capacity Exceeded",
    "set-feature-0x81": "Set Features with a data buffer: the SGL may be longer than the command uses, as current "
                        "nvmet (nvmet_check_data_len_lte()), then Host Identifier is a Command Sequence Error; 6.1 "
                        "wants no data (Data SGL Length Invalid)",
}
# listed differences that may or may not show (they depend on what the guest kernel has): not a failure either way
INTENTIONAL_OPTIONAL = {"set-feature-0x84-ns1-off", "get-log-0x0c", "effects-log-csi2", "identify-cns-0x03-csi2",
                        "identify-cns-0x06-csi2"}

# (probe, field) -> why the value differs on purpose
INTENTIONAL_FIELDS = {
    ("id-ctrl", "cmic"): "both report ANA (bit 3); nvmf4j also sets bit 0 (several ports, issue 18)",
    ("id-ctrl", "anacap"): "ANA capabilities: nvmf4j reports every state (1Fh, issue 18), nvmet its own set",
    ("id-ctrl", "anatt"): "ANA transition time: nvmf4j 10 s, nvmet its own",
    ("id-ctrl", "anagrpmax"): "ANA groups: nvmf4j 128, nvmet NVMET_MAX_ANAGRPS",
    ("id-ctrl", "nanagrpid"): "ANA groups: nvmf4j 128, nvmet NVMET_MAX_ANAGRPS",
    ("id-ctrl", "oaes"): "notices offered: nvmf4j adds reservation notices where nvmet 6.1 has none",
    ("id-ctrl", "oncs"): "bit 5 (reservations, issue 18); 6.1 nvmet has no reservations",
    ("id-ns", "rescap"): "reservation capabilities (issue 18); 6.1 nvmet has none",
    ("id-ns", "anagrpid"): "the namespace's ANA group: from the configuration (issue 18)",
    ("get-log-0x05", "iocs[0x0d]"): "Reservation Register supported (issue 18); 6.1 nvmet has no reservations",
    ("get-log-0x05", "iocs[0x0e]"): "Reservation Report: as iocs[0x0d]",
    ("get-log-0x05", "iocs[0x11]"): "Reservation Acquire: as iocs[0x0d]",
    ("get-log-0x05", "iocs[0x15]"): "Reservation Release: as iocs[0x0d]",
    ("fw-log", "afi"): "nvmet zeroes the page (no active slot); nvmf4j says slot 1 is active, as SPDK and the spec",
    ("fw-log", "frs1"): "nvmf4j puts Identify Controller FR in slot 1, as SPDK; nvmet zeroes it",
    ("get-log-0x03", "afi"): "as fw-log afi",
    ("get-log-0x03", "frs1"): "as fw-log frs1",
    ("get-log-0x03-len64", "afi"): "as fw-log afi",
    ("get-log-0x03-len64", "frs1"): "as fw-log frs1",
    ("get-log-0x05", "iocs[0x01]"): "Write: LBCC set, as current nvmet (nvmet_get_cmd_effects_nvm()); 6.1 sets CSUPP only",
    ("get-log-0x05", "iocs[0x08]"): "Write Zeroes: LBCC set, as current nvmet; 6.1 sets CSUPP only",
    ("get-log-0x05", "iocs[0x09]"): "Dataset Management: LBCC set (deallocate changes what blocks read), as SPDK",
    ("disc-id-ctrl", "kas"): "KAS 10 (1 s): the discovery controller runs the keep-alive timer, and KAS 0 would say "
                             "it has none (NVMe Base 2.0, Figure 275); nvmet's discovery Identify leaves KAS 0",
    ("id-ns", "dlfeat"): "DLFEAT 1: deallocated blocks read as zeroes (nvmf4j punches holes, RAM zeroes); nvmet "
                         "reports 0",
    ("get-property-0x0", "CAP.CQR"): "CQR 1: NVMe-oF 1.1 (3.5, controller properties) requires contiguous queues; "
                                     "nvmet leaves it 0",
    ("get-property-0x0", "CAP.CSS"): "CSS bit 0 only (the NVM command set; VS 1.3): nvmet also sets bit 6 (I/O command "
                                     "sets) without Identify CNS 1Ch that goes with it",
    ("get-property-0x14", "value"): "CC as the host wrote it: CSS 110b for nvmet because its CAP.CSS has bit 6, 000b "
                                    "(NVM) for nvmf4j",
    ("get-feature-0x0b", "value"): "Asynchronous Event Configuration: the host enables what OAES offers; "
                                   "what each target's OAES offers differs (see oaes)",
}

# id-ctrl / id-ns keys that name or size a thing, or depend on the transport's configuration: never compared
IDENTITY = {"vid", "ssvid", "sn", "mn", "fr", "ieee", "cntlid", "subnqn", "nsze", "ncap", "nuse", "nguid",
            "eui64", "nvmcap", "maxcmd", "fguid"}
SMART_COMPARED = {"critical_warning", "avail_spare", "spare_thresh", "percent_used",
                  "endurance_grp_critical_warning_summary", "warning_temp_time", "critical_comp_time"}


def read(d, name, ext):
    p = os.path.join(d, name + "." + ext)
    if not os.path.exists(p):
        return None
    return open(p, "rb").read()


def status(d, name):
    rc = read(d, name, "rc")
    if rc is None:
        return "missing"
    rc = int(rc.decode().strip() or "-1")
    err = (read(d, name, "err") or b"").decode(errors="replace")
    m = re.search(r"NVMe status: .*?\(0x([0-9a-fA-F]+)\)", err)
    if m:
        return int(m.group(1), 16)
    if rc == 0:
        return 0
    return "rc %d: %s" % (rc, err.strip().splitlines()[0] if err.strip() else "")


def show(s):
    if isinstance(s, int):
        return "0" if s == 0 else "%04x" % s
    return str(s)


def jload(d, name):
    try:
        text = (read(d, name, "out") or b"").decode(errors="replace")
        return json.loads(text[text.index("{"):])
    except Exception:
        return None


def json_fields(name, a, b, skip):
    """(field, nvmet, nvmf4j) for the top-level keys that differ, and keys only one side has."""
    out = []
    if a is None or b is None:
        if (a is None) != (b is None):
            out.append(("json", "none" if a is None else "present", "none" if b is None else "present"))
        return out
    for k in list(a) + [k for k in b if k not in a]:
        if k in skip:
            continue
        if k not in a or k not in b:
            out.append((k, a.get(k, "(absent)"), b.get(k, "(absent)")))
        elif a[k] != b[k]:
            out.append((k, a[k], b[k]))
    return out


def le32(buf, off):
    return int.from_bytes(buf[off:off + 4], "little") if len(buf) >= off + 4 else None


def fields(name, A, B):
    """The must-agree fields of a successful probe."""
    if name in ("id-ctrl", "disc-id-ctrl"):
        a, b = jload(A, name), jload(B, name)
        return json_fields(name, a, b, IDENTITY)
    if name in ("id-ns", "id-ns-inactive"):
        return json_fields(name, jload(A, name), jload(B, name), IDENTITY)
    if name in ("smart-log", "smart-log-ns1"):
        a, b = jload(A, name), jload(B, name)
        if a is None or b is None:
            return [("json", a is not None, b is not None)] if (a is None) != (b is None) else []
        return [(k, a.get(k), b.get(k)) for k in sorted(SMART_COMPARED) if a.get(k) != b.get(k)]
    if name == "fw-log":
        a, b = jload(A, name), jload(B, name)
        if a is None or b is None:
            return []
        # nvme-cli 2.3: {"Firmware Logging Info for device:...": {"Active Firmware Slot (afi)": N, "Firmware Rev Slot 1": ...}}
        fa, fb = list(a.values())[0] if a else {}, list(b.values())[0] if b else {}
        out = []
        for k in sorted(set(fa) | set(fb)):
            kl = k.lower()
            key = "afi" if "afi" in kl else ("frs1" if "frs" in kl or "slot 1" in kl else k)
            if fa.get(k) != fb.get(k):
                out.append((key, fa.get(k), fb.get(k)))
        return out
    if name == "ns-descs":
        a, b = jload(A, name), jload(B, name)
        if a is None or b is None:
            return []
        # the identifiers (UUID, NGUID, EUI-64) name the namespace: only the command set must agree
        ca = [e.get("csi") for e in a.get("ns-descs", []) if e.get("type") == "csi"]
        cb = [e.get("csi") for e in b.get("ns-descs", []) if e.get("type") == "csi"]
        return [("csi", ca, cb)] if ca != cb or not ca else []
    if name in ("list-ns",):
        a, b = (read(A, name, "out") or b"").decode(), (read(B, name, "out") or b"").decode()
        return [("list", a.strip(), b.strip())] if a.strip() != b.strip() else []
    if name in ("get-log-0x03", "get-log-0x03-len64"):
        a, b = read(A, name, "out") or b"", read(B, name, "out") or b""
        out = []
        if len(a) != len(b):
            out.append(("length", len(a), len(b)))
        if a[:1] != b[:1]:
            out.append(("afi", a[:1].hex(), b[:1].hex()))
        if a[8:16] != b[8:16]:
            out.append(("frs1", a[8:16].hex(), b[8:16].hex()))
        if a[16:] != b[16:] or a[1:8] != b[1:8]:
            out.append(("rest", "", "differs"))
        return out
    if name == "get-log-0x05":
        a, b = read(A, name, "out") or b"", read(B, name, "out") or b""
        out = []
        for i in range(256):
            for base, tag in ((0, "acs"), (1024, "iocs")):
                x, y = le32(a, base + 4 * i), le32(b, base + 4 * i)
                if x != y:
                    out.append(("%s[0x%02x]" % (tag, i), "%08x" % (x or 0), "%08x" % (y or 0)))
        return out
    if name in ("get-log-0x04",):
        a, b = read(A, name, "out") or b"", read(B, name, "out") or b""
        return [("bytes", a[:16].hex(), b[:16].hex())] if a != b else []
    if name == "disc-get-log-0x70-hdr":
        a, b = read(A, name, "out") or b"", read(B, name, "out") or b""
        out = []
        if a[8:16] != b[8:16]:
            out.append(("numrec", int.from_bytes(a[8:16], "little"), int.from_bytes(b[8:16], "little")))
        return out
    if name.startswith("get-feature-") or name.startswith("disc-get-feature-"):
        fid = name.split("-")[-1] if not name.endswith(("ns1", "ns9", "exhid")) else name.split("-")[2]
        if fid in ("0x06", "0x0b", "0x0f", "0x84"):
            va, vb = feature_value(A, name), feature_value(B, name)
            return [("value", va, vb)] if va != vb else []
        return []
    if name in ("get-property-0x8", "get-property-0x14", "get-property-0x1c"):
        va, vb = prop_value(A, name), prop_value(B, name)
        return [("value", va, vb)] if va != vb else []
    if name == "get-property-0x0":
        va, vb = prop_value(A, name), prop_value(B, name)
        if va is None or vb is None:
            return [("value", va, vb)] if va != vb else []
        out = []
        for fname, shift, bits in (("CQR", 16, 1), ("DSTRD", 32, 4), ("NSSRS", 36, 1), ("CSS", 37, 8),
                                   ("MPSMIN", 48, 4), ("MPSMAX", 52, 4), ("CMBS", 57, 1), ("PMRS", 56, 1)):
            x, y = (va >> shift) & ((1 << bits) - 1), (vb >> shift) & ((1 << bits) - 1)
            if x != y:
                out.append(("CAP." + fname, x, y))
        return out
    if name == "admin-abort":
        ra, rb = result(A, name), result(B, name)
        return [("result", ra, rb)] if ra != rb else []
    return []


def feature_value(d, name):
    m = re.search(r"[Cc]urrent value:\s*(0x[0-9a-fA-F]+)", (read(d, name, "out") or b"").decode(errors="replace"))
    return int(m.group(1), 16) if m else None


def prop_value(d, name):
    # nvme-cli 2.3: "property: 0x08 (Version), value: 10300" (hex without 0x)
    text = (read(d, name, "out") or b"").decode(errors="replace")
    m = re.search(r"value:\s*(?:0x)?([0-9a-fA-F]+)", text)
    return int(m.group(1), 16) if m else None


def result(d, name):
    m = re.search(r"result:\s*([0-9a-fA-Fx]+)", (read(d, name, "out") or b"").decode(errors="replace"))
    return m.group(1) if m else None


def main(sync):
    A, B = os.path.join(sync, "nvmet"), os.path.join(sync, "nvmf4j")
    names = sorted({f[:-3] for d in (A, B) for f in os.listdir(d) if f.endswith(".rc")})
    rows, equal, listed, failed, more = [], 0, [], [], []
    for n in names:
        sa, sb = status(A, n), status(B, n)
        ka = sa & ~0x2000 if isinstance(sa, int) else sa
        kb = sb & ~0x2000 if isinstance(sb, int) else sb
        if isinstance(sa, int) and isinstance(sb, int) and (sa & 0x2000) != (sb & 0x2000):
            more.append(n)
        diffs = []
        if ka != kb:
            if n in INTENTIONAL and INTENTIONAL[n]:
                listed.append((n, "status %s vs %s: %s" % (show(sa), show(sb), INTENTIONAL[n])))
                verdict = "listed"
            elif n in INTENTIONAL_OPTIONAL:
                listed.append((n, "status %s vs %s (optional)" % (show(sa), show(sb))))
                verdict = "listed"
            else:
                failed.append((n, "status: nvmet %s, nvmf4j %s" % (show(sa), show(sb))))
                verdict = "DIFFERS"
        else:
            if ka == 0:
                diffs = fields(n, A, B)
            unlisted = [d for d in diffs if (n, d[0]) not in INTENTIONAL_FIELDS]
            for d in diffs:
                if (n, d[0]) in INTENTIONAL_FIELDS:
                    listed.append((n, "%s: nvmet %r, nvmf4j %r: %s" % (d[0], d[1], d[2], INTENTIONAL_FIELDS[(n, d[0])])))
            if unlisted:
                for d in unlisted:
                    failed.append((n, "%s: nvmet %r, nvmf4j %r" % d))
                verdict = "DIFFERS"
            elif diffs:
                verdict = "listed"
            else:
                verdict = "equal"
                equal += 1
        rows.append((n, show(sa), show(sb), verdict))
    w = max(len(r[0]) for r in rows)
    print("%-*s  %-8s %-8s %s" % (w, "probe", "nvmet", "nvmf4j", "verdict"))
    for r in rows:
        print("%-*s  %-8s %-8s %s" % (w, r[0], r[1], r[2], r[3]))
    print()
    for n, why in listed:
        print("listed: %s: %s" % (n, why))
    for n in more:
        print("more-bit: %s: the More bit differs (nvmet sets it when it logs an error with a location)" % n)
    for n, why in failed:
        print("UNLISTED DIFFERENCE: %s: %s" % (n, why))
    probes_listed = len({n for n, _ in listed})
    print("\n%d probes: %d equal, %d with listed differences (%d listed items), %d with unlisted differences; "
          "More bit differs in %d" % (len(rows), equal, probes_listed, len(listed), len({n for n, _ in failed}),
                                      len(more)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
