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
