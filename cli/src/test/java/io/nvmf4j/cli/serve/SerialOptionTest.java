package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code serve --serial} for the quick form; a config file carries its own attr.serial. */
class SerialOptionTest {

    private static ServeCli parse(String... args) {
        ServeCli serve = new ServeCli();
        new CommandLine(serve).parseArgs(args);
        return serve;
    }

    @Test
    void theQuickFormTakesTheSerialFromTheCommandLine() throws Exception {
        var config = parse("--ram", "1M", "--nqn", "nqn.2026-12.io.nvmf4j:s", "--serial", "LAB-0001").load().config();
        assertEquals("LAB-0001", config.subsystems().getFirst().attr().serial());
    }

    @Test
    void aSerialTooLongForIdentifyIsAUsageError() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> parse("--ram", "1M", "--nqn", "nqn.2026-12.io.nvmf4j:s", "--serial", "x".repeat(21)).load());
        assertTrue(e.getMessage().contains("--serial"), e.getMessage());
    }

    @Test
    void serialWithAConfigFileIsRefused() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> parse("--config", "/nonexistent.json", "--serial", "A").load());
        assertTrue(e.getMessage().contains("--serial"), e.getMessage());
    }
}
