package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** --log-format=journal: one line per event with the syslog priority journald files it under (sd-daemon(3)). */
class JournalLogFormatTest {

    private static String format(Level level, String message) {
        LogRecord r = new LogRecord(level, message);
        r.setLoggerName("io.nvmf4j.target.rdma.RdmaQueue");
        return new OneLineLogFormat(OneLineLogFormat.Style.JOURNAL).format(r);
    }

    @Test
    void eachLevelGetsItsSyslogPriorityAndNoTimestamp() {
        assertEquals("<3>RdmaQueue: broken\n", format(Level.SEVERE, "broken"));
        assertEquals("<4>RdmaQueue: odd\n", format(Level.WARNING, "odd"));
        assertEquals("<6>RdmaQueue: connected\n", format(Level.INFO, "connected"));
        assertEquals("<7>RdmaQueue: detail\n", format(Level.FINE, "detail"));
    }

    @Test
    void aMessageWithNewlinesStaysOneLine() {
        assertEquals("<4>RdmaQueue: host said  two lines\n", format(Level.WARNING, "host said\n two lines"));
    }

    @Test
    void journalIsTheDefaultUnderSystemdAndLevelsAreNamed() {
        assertEquals(OneLineLogFormat.Style.JOURNAL, ServeCli.logStyle(null, "8:12345"));
        assertEquals(OneLineLogFormat.Style.TEXT, ServeCli.logStyle(null, null));
        assertEquals(OneLineLogFormat.Style.TEXT, ServeCli.logStyle("text", "8:12345"));
        assertThrows(IllegalArgumentException.class, () -> ServeCli.logStyle("xml", null));
        assertEquals(Level.FINE, OneLineLogFormat.parseLevel("debug"));
        assertEquals(Level.WARNING, OneLineLogFormat.parseLevel("warn"));
        assertThrows(IllegalArgumentException.class, () -> OneLineLogFormat.parseLevel("loud"));
    }
}
