package io.nvmf4j.target;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** A subsystem without a configured serial keeps the same one at every start (nvmet would pick a random one). */
class StableSerialTest {

    private static Subsystem subsystem(String nqn) {
        return Subsystem.builder(SubsystemNqn.of(nqn)).build();
    }

    @Test
    void theSerialWithoutConfigurationIsDerivedFromTheNqnAndSurvivesARestart() {
        String first = subsystem("nqn.2026-12.io.nvmf4j:disk").serial();
        assertEquals(first, subsystem("nqn.2026-12.io.nvmf4j:disk").serial());
        assertNotEquals(first, subsystem("nqn.2026-12.io.nvmf4j:other").serial());
        assertEquals(16, first.length());
        assertEquals("given", Subsystem.builder(SubsystemNqn.of("nqn.2026-12.io.nvmf4j:disk")).serial("given").build()
                .serial());
    }

    @Test
    void aRunningSubsystemChangesItsSerialOnlyBeforeAHostSawIt() {
        Subsystem s = subsystem("nqn.2026-12.io.nvmf4j:disk");
        s.serial("NEW1");
        assertEquals("NEW1", s.serial());
        assertThrows(IllegalArgumentException.class, () -> s.serial("x".repeat(21)));
    }
}
