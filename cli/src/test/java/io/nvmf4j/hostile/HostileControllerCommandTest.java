package io.nvmf4j.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.initiator.Discovery;
import io.nvmf4j.initiator.fake.ScriptedController;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The command line's host commands against a controller that lies (issue 27): what {@code nvmf4j discover} and
 * {@code nvmf4j read} do is decided by the library's bounded readers and by the command's status, never by what
 * the controller claims or sends around a failure.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileControllerCommandTest {

    private ScriptedController controller;

    @AfterEach
    void stop() {
        if (controller != null) {
            controller.close();
        }
    }

    private String[] at(ScriptedController.Script script, String... args) throws Exception {
        controller = new ScriptedController(script);
        String[] fabric = {"--traddr", "127.0.0.1", "--trsvcid", Integer.toString(controller.address().getPort()),
            "--provider", "softiwarp"};
        String[] all = java.util.Arrays.copyOf(args, args.length + fabric.length);
        System.arraycopy(fabric, 0, all, args.length, fabric.length);
        return all;
    }

    /** Item 1: a discovery log header claiming 1,500,000 records is refused before anything is allocated for them. */
    @Test
    void discoverRefusesADiscoveryLogClaimingOnePointFiveMillionRecords() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.discoveryRecords = 2;
        script.discoveryNumrecClaim = 1_500_000L;
        for (String command : new String[] {"discover", "list-subsys"}) {
            long begin = System.nanoTime();
            CliRunner.Result r = CliRunner.run(at(script, command));
            assertNotEquals(0, r.exitCode(), command + ": " + r.out());
            assertTrue(r.err().contains("1500000") && r.err().contains("" + Discovery.MAX_RECORDS),
                    command + ": " + r.err());
            // the header only: no Get Log Page for the claimed entries
            assertEquals(1, controller.receivedWithOpcode(0x02).size(), command);
            assertTrue(System.nanoTime() - begin < TimeUnit.SECONDS.toNanos(10), command);
            controller.close();
            controller = null;
        }
    }
}
