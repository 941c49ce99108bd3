#!/usr/bin/env python3
"""Reads the JUnit console launcher's --details=tree output of the conformance suite on DEVICE; prints every failed
and skipped test with its message and a summary, and exits 0 only when nothing failed and something passed (a
skip is a limitation of the device verified in its sources: ProviderUnderTest says which and why).

  junit-tree-check.py TREE_LOG DEVICE"""
import re, sys

tree, device = sys.argv[1], sys.argv[2]

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

for name, msg in failed:
    print("FAILED on %s: %s: %s" % (device, name, msg[:400]))
for name, msg in skipped:
    print("SKIPPED on %s: %s: %s" % (device, name, msg[:300]))
print("%s: %d passed, %d skipped, %d failed" % (device, len(passed), len(skipped), len(failed)))
sys.exit(1 if failed or not passed else 0)
