package io.nvmf4j.cli.host;

import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The library log (java.util.logging) on a command line: warnings only, one line each, unless {@code --verbose}
 * (then INFO). The libraries log connection events at INFO for daemons; a one-shot command's output is its result.
 */
public final class CommandLogging {

    private CommandLogging() {
    }

    public static void configure(boolean verbose) {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "nvmf4j: %4$s: %5$s%6$s%n");
        }
        Level level = verbose ? Level.INFO : Level.WARNING;
        Logger root = Logger.getLogger("");
        root.setLevel(level);
        for (Handler h : root.getHandlers()) {
            h.setLevel(level);
        }
    }
}
