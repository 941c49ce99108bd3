package io.nvmf4j.cli.perf;

import java.io.PrintWriter;

/**
 * The one-line live progress on stderr: rewritten in place with a carriage return on a terminal, one line per
 * update otherwise (logs and pipes stay readable). A null writer prints nothing.
 */
final class ProgressLine {

    private final PrintWriter out;
    private final boolean inPlace;
    private int lastLength;
    private boolean open;

    // Not "never null on JDK 22+" (the check's premise): it is null in surefire's forked JVMs, which the perf and
    // demo tests (OutlierTraceTest, EndToEndTest) run this in
    @SuppressWarnings("SystemConsoleNull")
    ProgressLine(PrintWriter out) {
        this.out = out;
        this.inPlace = System.console() != null && System.console().isTerminal();
    }

    void update(String text) {
        if (out == null) {
            return;
        }
        if (inPlace) {
            String pad = text.length() < lastLength ? " ".repeat(lastLength - text.length()) : "";
            out.print("\r" + text + pad);
            lastLength = text.length();
            open = true;
        } else {
            out.println(text);
        }
        out.flush();
    }

    void done() {
        if (out != null && open) {
            out.println();
            out.flush();
            open = false;
            lastLength = 0;
        }
    }
}
