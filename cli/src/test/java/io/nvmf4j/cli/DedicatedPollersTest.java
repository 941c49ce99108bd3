package io.nvmf4j.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** serve and perf look for quiet consumers every 20 ms, unless the user chose another interval. */
class DedicatedPollersTest {

    private String saved;

    @BeforeEach
    void save() {
        saved = System.getProperty(DedicatedPollers.PROPERTY);
    }

    @AfterEach
    void restore() {
        if (saved == null) {
            System.clearProperty(DedicatedPollers.PROPERTY);
        } else {
            System.setProperty(DedicatedPollers.PROPERTY, saved);
        }
    }

    @Test
    void withoutAUserValueTheEngineLooksEvery20Milliseconds() {
        System.clearProperty(DedicatedPollers.PROPERTY);
        DedicatedPollers.configure();
        assertEquals("20000", System.getProperty(DedicatedPollers.PROPERTY));
    }

    @Test
    void aValueGivenWithMinusDWins() {
        System.setProperty(DedicatedPollers.PROPERTY, "1000");
        DedicatedPollers.configure();
        assertEquals("1000", System.getProperty(DedicatedPollers.PROPERTY));
    }
}
