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

    /** How a line looks: with a timestamp for a terminal or file, with a syslog priority for journald. */
    enum Style { TEXT, JOURNAL }

    private final Style style;

    OneLineLogFormat() {
        this(Style.TEXT);
    }

    OneLineLogFormat(Style style) {
        this.style = style;
    }

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
            .withZone(ZoneOffset.UTC);

    @Override
    public String format(LogRecord r) {
        String name = r.getLoggerName() == null ? "" : r.getLoggerName();
        name = name.substring(name.lastIndexOf('.') + 1);
        StringBuilder b = new StringBuilder(160);
        if (style == Style.JOURNAL) {
            // sd-daemon(3): "<N>" at the start of a line on stderr is the syslog priority journald files it under;
            // journald adds the time. One event, one line: newlines inside the message would split it.
            b.append('<').append(syslogPriority(r.getLevel())).append('>').append(name).append(": ")
                    .append(formatMessage(r).replace('\n', ' ').replace('\r', ' '));
            if (r.getThrown() != null) {
                b.append(" (").append(r.getThrown().toString().replace('\n', ' ')).append(')');
            }
            return b.append('\n').toString();
        }
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

    /** syslog(3) priorities: LOG_ERR 3, LOG_WARNING 4, LOG_INFO 6, LOG_DEBUG 7. */
    static int syslogPriority(Level level) {
        int v = level.intValue();
        return v >= Level.SEVERE.intValue() ? 3 : v >= Level.WARNING.intValue() ? 4 : v >= Level.INFO.intValue() ? 6 : 7;
    }

    /** --log-level names to java.util.logging levels. */
    static Level parseLevel(String name) {
        return switch (name.toLowerCase(java.util.Locale.ROOT)) {
            case "error" -> Level.SEVERE;
            case "warn", "warning" -> Level.WARNING;
            case "info" -> Level.INFO;
            case "debug" -> Level.FINE;
            case "trace" -> Level.FINEST;
            default -> throw new IllegalArgumentException("--log-level: \"" + name
                    + "\" is not one of error, warn, info, debug, trace");
        };
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
        install(trace ? Level.FINEST : verbose ? Level.FINE : Level.INFO, Style.TEXT);
    }

    /** Routes every io.nvmf4j logger at {@code level} to stderr in {@code style}. */
    static void install(Level level, Style style) {
        Logger root = Logger.getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        ConsoleHandler console = new ConsoleHandler();
        console.setFormatter(new OneLineLogFormat(style));
        console.setLevel(level);
        root.addHandler(console);
        root.setLevel(level.intValue() > Level.INFO.intValue() ? level : Level.INFO);
        Logger.getLogger("io.nvmf4j").setLevel(level);
    }
}
