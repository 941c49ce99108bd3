# Host-side helpers of the ibverbs checks (4N-ibverbs-*.sh), which run Java in the guest (GUEST_JAVA=1).
# Sourced by a check's host_part from $ROOT/interop/checks.

# ib_stage_tests: compiles common-verbs' tests with what they need (-am: the test-support module; up to date after
# mvn verify, a few seconds) and copies its
# classes, test classes and the JUnit Platform console launcher into $SYNC/java, which the guest sees.
ib_stage_tests() {
  local v=${JUNIT_PLATFORM_VERSION:-1.14.4}   # junit-bom 5.14.x (parent pom) = JUnit Platform 1.14.x
  local jar=$HOME/.m2/repository/org/junit/platform/junit-platform-console-standalone/$v/junit-platform-console-standalone-$v.jar
  (cd "$ROOT" && mvn -B -q -pl common-verbs -am test-compile) > "$SYNC/mvn.log" 2>&1 ||
    { note "mvn test-compile failed"; tail -30 "$SYNC/mvn.log"; return 1; }
  if [ ! -s "$jar" ]; then
    (cd "$ROOT" && mvn -B -q dependency:get -Dartifact="org.junit.platform:junit-platform-console-standalone:$v") \
      >> "$SYNC/mvn.log" 2>&1 || { note "cannot fetch the JUnit console launcher"; tail -20 "$SYNC/mvn.log"; return 1; }
  fi
  rm -rf "$SYNC/java" && mkdir -p "$SYNC/java" &&
    cp -r "$ROOT/common-verbs/target/classes" "$ROOT/common-verbs/target/test-classes" "$SYNC/java/" &&
    cp "$jar" "$SYNC/java/console.jar"
}

# ib_stage_conformance: ib_stage_tests, plus the method filter CONFORMANCE_TESTS=REGEX (when set) for the guest.
ib_stage_conformance() {
  ib_stage_tests || return 1
  if [ -n "${CONFORMANCE_TESTS:-}" ]; then printf '%s' "$CONFORMANCE_TESTS" > "$SYNC/java/select"; fi
}
