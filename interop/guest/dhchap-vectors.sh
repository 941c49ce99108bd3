#!/bin/bash
# Known-answer vectors of nvme-cli's gen-dhchap-key / check-dhchap-key, recorded in the guest:
#   cp interop/guest/dhchap-vectors.sh interop/work/share/ && interop/lab.sh run "bash /lab/dhchap-vectors.sh"
# writes interop/work/share/vectors.out ("nvme ARGS => stdout | stderr: ... | rc=N", one per line); the
# recorded set is cli/src/test/resources/dhchap-vectors.txt (nvmf4j gen-dhchap-key is checked against it).
out=/lab/vectors.out
: > $out
v() {  # v ARGS...: one line "nvme ARGS => stdout [| stderr] [rc=N]"
  local o e rc
  o=$(nvme "$@" 2>/tmp/err); rc=$?
  e=$(tr '\n' ' ' </tmp/err | sed 's/ *$//')
  local line="nvme $* => $(echo "$o" | tr '\n' ' ' | sed 's/ *$//')"
  [ -n "$e" ] && line="$line | stderr: $e"
  [ $rc != 0 ] && line="$line | rc=$rc"
  echo "$line" >> $out
}
echo "# guest: $(uname -r); $(nvme version | head -1); libnvme: $(dpkg-query -W -f='${Version}' libnvme1 2>/dev/null)" >> $out
echo "# /etc/nvme/hostnqn: $(cat /etc/nvme/hostnqn 2>/dev/null || echo '(none)')" >> $out
S32=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
S48=${S32}202122232425262728292a2b2c2d2e2f
S64=${S48}303132333435363738393a3b3c3d3e3f
T32=fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0efeeedecebeae9e8e7e6e5e4e3e2e1e0
N1=nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001
N2=nqn.2024-01.io.nvmf4j:host-a
for s in S32 S48 S64 T32; do
  sec=${!s}; len=$(( ${#sec} / 2 ))
  for h in 0 1 2 3; do
    v gen-dhchap-key --secret=$sec --key-length=$len --hmac=$h --nqn=$N1
    v gen-dhchap-key --secret=$sec --key-length=$len --hmac=$h --nqn=$N2
    v gen-dhchap-key --secret=$sec --key-length=$len --hmac=$h
  done
done
# short options, key length defaulted, mismatches and bad values
v gen-dhchap-key -s $S32 -l 32 -m 1 -n $N1
v gen-dhchap-key -s $S32 -m 0
v gen-dhchap-key -s $S32 -m 1 -n $N1
v gen-dhchap-key -s $S32 -m 2 -n $N1
v gen-dhchap-key -s $S48 -m 2 -n $N1
v gen-dhchap-key -s $S64 -m 3 -n $N1
v gen-dhchap-key -s $S32 -l 48 -m 0
v gen-dhchap-key -s $S32 -l 40 -m 0
v gen-dhchap-key -s $S32 -l 32 -m 4
v gen-dhchap-key -s 00zz -l 32 -m 0
v gen-dhchap-key -s 000 -l 32 -m 0
v gen-dhchap-key -l 16 -m 0
v gen-dhchap-key -l 65 -m 0
# random secrets: the format only (shape)
v gen-dhchap-key -m 0
v gen-dhchap-key -l 48 -m 0
v gen-dhchap-key -m 1 -n $N1
# check-dhchap-key on the outputs above and on broken keys
for k in $(sed -n 's/^nvme gen-dhchap-key --secret=[0-9a-f]* --key-length=[0-9]* --hmac=[0-9] --nqn=[^ ]* => \(DHHC-1:[^ ]*\)$/\1/p' $out | head -12); do
  v check-dhchap-key --key=$k
done
v check-dhchap-key -k DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8AAAAA:
v check-dhchap-key -k DHHC-1:04:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8AAAAA:
v check-dhchap-key -k DHHC-2:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8AAAAA:
v check-dhchap-key -k DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8AAAAA
v check-dhchap-key -k DHHC-1:00:AAEC:
v check-dhchap-key -k 'DHHC-1:00:!!!!:'
echo "# done" >> $out
