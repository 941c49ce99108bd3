package io.nvmf4j.verbs.softiwarp;

import java.lang.System.Logger.Level;
import java.lang.System.Logger;

/**
 * Rate-limited logging of hostile or failed peers: one line per connection, never a stack trace, at most
 * {@link #LINES_PER_SECOND} lines a second per source; lines over the limit are counted and the count is reported
 * with the next line that is logged. A flood of bad connections cannot flood the log.
 */
final class PeerLog {
    static final int LINES_PER_SECOND = 10;

    private final Logger log;
    private long windowStart = System.nanoTime();
    private int inWindow;
    private long suppressed;

    PeerLog(Logger log) {
        this.log = log;
    }

    /** Logs {@code message} (a {@link java.text.MessageFormat} pattern) unless over the rate limit. */
    synchronized void info(String message, Object... params) {
        long now = System.nanoTime();
        if (now - windowStart >= 1_000_000_000L) {
            windowStart = now;
            inWindow = 0;
        }
        if (inWindow >= LINES_PER_SECOND) {
            suppressed++;
            return;
        }
        inWindow++;
        if (!log.isLoggable(Level.INFO)) {
            return;
        }
        Object[] texts = new Object[params.length];
        for (int i = 0; i < params.length; i++) {
            texts[i] = String.valueOf(params[i]); // no locale grouping of numbers (QP 1234, not 1,234)
        }
        String line = java.text.MessageFormat.format(message, texts);
        if (suppressed > 0) {
            line += " (" + suppressed + " similar lines suppressed)";
            suppressed = 0;
        }
        log.log(Level.INFO, line);
    }
}
