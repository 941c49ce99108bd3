#!/usr/bin/env python3
"""Reads the JUnit console launcher's --details=tree output and a list of known failures; prints every failed and
skipped test with its message, and exits 0 only when each failure is listed as known for this device (a known
failure that passes is reported as fixed, and must then be taken off the list).

  junit-tree-check.py TREE_LOG KNOWN_FILE DEVICE

KNOWN_FILE: lines "DEVICE METHOD-NAME reason...", '#' comments. Method names may be cut in the tree (the launcher
shortens long lines to "..."); a listed name matches when it starts with the name shown."""
import re, sys

tree, known_file, device = sys.argv[1], sys.argv[2], sys.argv[3]
known = {}
for line in open(known_file):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    dev, method, reason = (line.split(None, 2) + [""])[:3]
    if dev == device:
        known[method] = reason

failed, skipped, passed = [], [], []
method = None
for raw in open(tree, errors="replace"):
    line = raw.rstrip("\n")
    m = re.match(r"^[│ ]*[├└]─ (.*)$", line)
    if not m:
        continue
    text = m.group(1)
    head = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)(\(|\.\.\.)", text)
    if head:
        method = head.group(1)
        target = text if re.search(r"\(\) [✔✘↷■]", text) else None  # a test without parameters: result on its line
    else:
        target = text if method and re.match(r"^(ibverbs|softiwarp)\b", text) else None
    if target is None:
        continue
    if "✘" in target:
        failed.append((method, target.split("✘", 1)[1].strip()))
    elif "↷" in target or "■" in target:   # skipped, aborted (a failed assumption)
        skipped.append((method, re.split("[↷■]", target, maxsplit=1)[1].strip()))
    elif "✔" in target:
        passed.append(method)

def is_known(name):
    return next((k for k in known if k.startswith(name)), None)

unexpected = []
for name, msg in failed:
    k = is_known(name)
    if k:
        print("KNOWN FAILURE on %s: %s: %s\n    known because: %s" % (device, name, msg[:300], known[k]))
    else:
        unexpected.append(name)
        print("NEW FAILURE on %s: %s: %s" % (device, name, msg[:400]))
for name, msg in skipped:
    print("SKIPPED on %s: %s: %s" % (device, name, msg[:300]))
failed_names = {n for n, _ in failed}
for k in known:
    if not any(k.startswith(n) for n in failed_names) and any(k.startswith(n) for n in passed):
        print("FIXED on %s (take it off the known list): %s" % (device, k))
print("%s: %d passed, %d skipped, %d failed (%d known, %d new)"
      % (device, len(passed), len(skipped), len(failed), len(failed) - len(unexpected), len(unexpected)))
sys.exit(1 if unexpected or not passed else 0)
