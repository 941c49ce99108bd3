package io.nvmf4j.cli.serve;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The daemon's log lines: {@code 2026-12-02T14:30:00.123Z INFO  RdmaQueue: host nqn... connected to nqn...}, one
 * line per event on standard error (System.Logger goes to java.util.logging, which this configures).
 */
final class OneLineLogFormat extends Formatter {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    @Override
    public String format(LogRecord r) {
        String name = r.getLoggerName() == null ? "" : r.getLoggerName();
        name = name.substring(name.lastIndexOf('.') + 1);
        StringBuilder b = new StringBuilder(160);
        b.append(TIME.format(Instant.ofEpochMilli(r.getMillis()))).append(' ')
                .append(levelName(r.getLevel())).append(' ').append(name).append(": ").append(formatMessage(r))
                .append(System.lineSeparator());
        if (r.getThrown() != null) {
            StringWriter w = new StringWriter();
            r.getThrown().printStackTrace(new PrintWriter(w));
            b.append(w);
        }
        return b.toString();
    }

    private static String levelName(Level level) {
        if (level.intValue() >= Level.SEVERE.intValue()) {
            return "ERROR";
        }
        if (level.intValue() >= Level.WARNING.intValue()) {
            return "WARN ";
        }
        if (level.intValue() >= Level.INFO.intValue()) {
            return "INFO ";
        }
        if (level.intValue() >= Level.FINE.intValue()) {
            return "DEBUG";
        }
        return "TRACE";
    }

    /** Routes every io.nvmf4j logger (INFO, or FINE with {@code verbose}, FINEST with {@code trace}) to stderr. */
    static void install(boolean verbose, boolean trace) {
        Logger root = Logger.getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        ConsoleHandler console = new ConsoleHandler();
        console.setFormatter(new OneLineLogFormat());
        Level level = trace ? Level.FINEST : verbose ? Level.FINE : Level.INFO;
        console.setLevel(level);
        root.addHandler(console);
        root.setLevel(Level.INFO);
        Logger.getLogger("io.nvmf4j").setLevel(level);
    }
}
