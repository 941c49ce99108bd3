package io.nvmf4j.cli.serve;

import java.util.concurrent.CountDownLatch;

/**
 * The signals of {@code nvmf4j serve}, installed first thing, before the daemon loads its configuration or
 * announces anything (stdout "listening on", the metrics endpoint, the management socket): a signal that arrives
 * while it starts is never left to the JVM's default (which exits 128 + signal).
 *
 * <ul>
 *   <li>SIGTERM and SIGINT request the stop; the daemon looks at {@link #stopRequested()} between its start-up
 *       steps and ends with exit 0, and waits in {@link #awaitStop()} once it serves.</li>
 *   <li>SIGHUP reloads. Before the daemon can reload (its configuration loaded, its target running) the request is
 *       kept and applied by {@link #reloadWith(Runnable)}; later ones run at once.</li>
 * </ul>
 *
 * <p>A signal the parent ignores (SIGHUP under {@code nohup}, some supervisors) cannot be handled: the JVM does not
 * install a handler for it. On JDK 25 {@code sun.misc.Signal.handle} then returns {@code SIG_IGN} and installs
 * nothing; other JDKs throw IllegalArgumentException. Either way {@link #sighupProblem()} says so, for the daemon
 * to log it at start with the alternative ({@code nvmf4j ctl reload}).
 */
final class ServeSignals implements AutoCloseable {

    // ServeCli's logger, named by text: this class is compiled on its own, before the rest (cli/pom.xml)
    private static final System.Logger LOG = System.getLogger("io.nvmf4j.cli.serve.ServeCli");

    private final CountDownLatch stop = new CountDownLatch(1);
    private final Object lock = new Object();
    private Runnable reload;
    private boolean reloadPending;
    private String sighupProblem;
    private final java.util.Map<String, sun.misc.SignalHandler> previous = new java.util.LinkedHashMap<>();

    private ServeSignals() {
    }

    /** Installs the handlers of SIGTERM, SIGINT and SIGHUP. */
    static ServeSignals install() {
        ServeSignals s = new ServeSignals();
        s.handle("TERM", s::stopSignal);
        s.handle("INT", s::stopSignal);
        s.sighupProblem = s.handle("HUP", signal -> s.reloadSignal());
        return s;
    }

    /** Null when installed, else why not. */
    private String handle(String name, sun.misc.SignalHandler handler) {
        try {
            sun.misc.SignalHandler old = sun.misc.Signal.handle(new sun.misc.Signal(name), handler);
            previous.put(name, old);
            if (old == sun.misc.SignalHandler.SIG_IGN) {
                return "SIG" + name + " is ignored by the process that started this one (nohup?), and a Java"
                        + " process cannot handle a signal ignored at its start";
            }
            return null;
        } catch (IllegalArgumentException e) {
            return "SIG" + name + " cannot be handled here (" + e.getMessage() + ")";
        }
    }

    private void stopSignal(sun.misc.Signal signal) {
        LOG.log(System.Logger.Level.INFO, "SIG{0} received: stopping", signal.getName());
        stop.countDown();
    }

    private void reloadSignal() {
        Runnable r;
        synchronized (lock) {
            r = reload;
            if (r == null) {
                reloadPending = true;
                LOG.log(System.Logger.Level.INFO, "SIGHUP received while starting: reloading once started");
                return;
            }
        }
        r.run();
    }

    /**
     * From now on SIGHUP runs {@code action}; a SIGHUP received before runs it now, once (in the calling thread).
     */
    void reloadWith(Runnable action) {
        boolean pending;
        synchronized (lock) {
            reload = action;
            pending = reloadPending;
            reloadPending = false;
        }
        if (pending) {
            action.run();
        }
    }

    /** Why SIGHUP cannot be handled in this process, or null when it is handled. */
    String sighupProblem() {
        return sighupProblem;
    }

    boolean stopRequested() {
        return stop.getCount() == 0;
    }

    /** Waits for SIGTERM / SIGINT (or {@link #requestStop()}). */
    void awaitStop() throws InterruptedException {
        stop.await();
    }

    void requestStop() {
        stop.countDown();
    }

    /**
     * Gives the signals back to the handlers they had (the JVM's: SIGTERM then runs the shutdown hooks), for a
     * {@code serve} run inside another program such as a test.
     */
    @Override
    public void close() {
        previous.forEach((name, old) -> {
            try {
                sun.misc.Signal.handle(new sun.misc.Signal(name), old);
            } catch (IllegalArgumentException e) {
                // as it was
            }
        });
        previous.clear();
    }
}
