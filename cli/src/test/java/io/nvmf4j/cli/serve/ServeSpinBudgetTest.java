package io.nvmf4j.cli.serve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code nvmf4j serve --spin-budget}: reaches the settings the transport is built from, with or without a config. */
class ServeSpinBudgetTest {

    private static final String NQN = "nqn.2026-12.io.nvmf4j:spin";

    @Test
    void spinBudgetFlagSetsThePollGroupSpinBudget() throws Exception {
        ServeCli quick = new ServeCli(System.err);
        new CommandLine(quick).parseArgs("--ram", "1M", "--nqn", NQN, "--spin-budget", "0");
        assertEquals(0, quick.load().config().nvmf4j().spinBudgetMicros());

        ServeCli later = new ServeCli(System.err);
        new CommandLine(later).parseArgs("--ram", "1M", "--nqn", NQN, "--spin-budget", "250", "--poll-groups", "1");
        assertEquals(250, later.load().config().nvmf4j().spinBudgetMicros());
        assertEquals(1, later.load().config().nvmf4j().pollGroups());
    }

    @Test
    void withoutTheFlagTheDefaultSpinBudgetStays() throws Exception {
        ServeCli plain = new ServeCli(System.err);
        new CommandLine(plain).parseArgs("--ram", "1M", "--nqn", NQN);
        int defaultMicros = io.nvmf4j.config.QuickConfig.builder().nqn(NQN).ram("1M").build().config().nvmf4j()
                .spinBudgetMicros();
        assertEquals(defaultMicros, plain.load().config().nvmf4j().spinBudgetMicros());
    }
}
