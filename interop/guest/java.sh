# Java in the lab guest, for the checks that declare GUEST_JAVA=1 (interop/run boots the guest for them with
# single-threaded TCG, and adds rxe0 on eth1 beside siw0 on eth0). Sourced by their guest parts as
# /lab/guest/java.sh. The host's JDK is at /opt/jdk (9p, read-only); interop/run stages the CLI jar at
# /lab/java/nvmf4j.jar.

GJ_JAVA=/opt/jdk/bin/java
# C1 only and the serial collector: a JVM under TCG spends most of its start in the JIT and GC threads
GJ_OPTS=(--enable-native-access=ALL-UNNAMED -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss1m)
GJ_JAR=/lab/java/nvmf4j.jar
RXE_IP=10.0.3.15     # eth1, which rxe0 is bound to (siw0: eth0, $GUEST_IP)

# gj_nvmf4j ARGS...: the nvmf4j CLI in the guest.
gj_nvmf4j() {
  "$GJ_JAVA" "${GJ_OPTS[@]}" ${GJ_EXTRA_OPTS:-} -jar "$GJ_JAR" "$@"
}

# gj_device_ip DEVICE: the address of the netdev DEVICE is bound to.
gj_device_ip() {
  case $1 in siw*) echo "$GUEST_IP" ;; rxe*) echo "$RXE_IP" ;; *) return 1 ;; esac
}

# gj_junit CLASSPATH ARGS...: the JUnit Platform console launcher (staged by the host part as
# $SYNC/java/console.jar) over CLASSPATH, with ARGS (selectors, -D options come first in GJ_EXTRA_OPTS).
gj_junit() {
  local cp=$1; shift
  "$GJ_JAVA" "${GJ_OPTS[@]}" ${GJ_EXTRA_OPTS:-} -jar "$SYNC/java/console.jar" execute --disable-banner \
      --disable-ansi-colors --details=tree --fail-if-no-tests -cp "$cp" "$@"
}

# gj_start LOG ARGS...: the nvmf4j CLI in the background, output in LOG; GJ_PID is the JVM's own pid (not a
# subshell's: a SIGTERM must reach the JVM, or it outlives the check and keeps its port).
gj_start() {
  local log=$1; shift
  "$GJ_JAVA" "${GJ_OPTS[@]}" ${GJ_EXTRA_OPTS:-} -jar "$GJ_JAR" "$@" > "$log" 2>&1 &
  GJ_PID=$!
}

# gj_serve_image DEVICE IMAGE NQN: `nvmf4j serve --provider ibverbs` in the guest on DEVICE's address, port 4420,
# with a fresh 64 MiB IMAGE as the namespace of NQN, log $SYNC/serve.log; waits up to 180 s for its "listening"
# line. Sets GJ_PID; 1 (the log printed, the JVM killed) if it does not come up.
gj_serve_image() {
  local ip
  ip=$(gj_device_ip "$1")
  export GJ_EXTRA_OPTS="-Dnvmf4j.ibverbs.device=$1"
  truncate -s 64M "$2"
  note "nvmf4j serve --provider ibverbs --listen $ip:4420 --file $2 --nqn $3"
  gj_start "$SYNC/serve.log" serve --provider ibverbs --listen "$ip:4420" --file "$2" --nqn "$3"
  wait_for_line "$SYNC/serve.log" 'listening on' $GJ_PID 900 && return 0
  note "serve did not come up"; cat "$SYNC/serve.log"; kill $GJ_PID 2>/dev/null
  return 1
}
