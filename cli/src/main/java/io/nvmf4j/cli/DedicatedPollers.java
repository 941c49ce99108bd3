package io.nvmf4j.cli;

/**
 * softiwarp tuning for the commands whose every completion queue is polled by a dedicated nvmf4j poller that
 * blocks only through {@code CompletionQueue.await} (serve's poll groups, perf's completion threads): such a poller
 * always hands its sockets back to the progress engine when it stops, so the engine need not wake every millisecond
 * to check whether it stopped without saying so. Looking every 20 ms instead removes most of the engine's wake-ups
 * on the poller's core (bench/README.md, "Where the QD1 tail comes from": pinned QD1 p99 59.8 -> 38.1 us).
 *
 * <p>Not the library default: an application that polls several completion queues from one thread and waits on one
 * of them would leave the others' peers waiting up to that long for every one-sided operation.
 */
public final class DedicatedPollers {

    /** The softiwarp property and the value these commands use unless the user set it. */
    static final String PROPERTY = "nvmf4j.softiwarp.inlineActiveMicros";
    static final String MICROS = "20000";

    private DedicatedPollers() {
    }

    /** Sets the property unless given (-D or NVMF4J_JAVA_OPTS); call before the first softiwarp device opens. */
    public static void configure() {
        if (System.getProperty(PROPERTY) == null) {
            System.setProperty(PROPERTY, MICROS);
        }
    }
}
