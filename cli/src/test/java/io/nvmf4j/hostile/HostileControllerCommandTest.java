package io.nvmf4j.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.CliRunner;
import io.nvmf4j.cli.FabricArgs;
import io.nvmf4j.initiator.Discovery;
import io.nvmf4j.initiator.fake.ScriptedController;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line's host commands against a controller that lies (issue 27): what {@code nvmf4j discover} and
 * {@code nvmf4j read} do is decided by the library's bounded readers and by the command's status, never by what
 * the controller claims or sends around a failure.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileControllerCommandTest {

    private ScriptedController controller;

    @TempDir
    Path dir;

    @AfterEach
    void stop() {
        if (controller != null) {
            controller.close();
        }
    }

    private String[] at(ScriptedController.Script script, String... args) throws Exception {
        controller = new ScriptedController(script);
        return FabricArgs.at(controller.address().getPort(), args);
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

    /** Item 4: data that arrived for a Read whose completion says Internal Error is not written (as nvme-cli). */
    @Test
    void readWritesNothingForAReadWhoseCompletionIsAnError() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.readDataThenInternalError = true;
        Path file = dir.resolve("out.bin");
        String[] args = at(script, "read", "--nqn", script.subsystem.value(), "-s", "0", "-c", "7", "-z", "4096",
                "-d", file.toString());
        controller.media().fill((byte) 0x5A);
        CliRunner.Result r = CliRunner.run(args);
        assertNotEquals(0, r.exitCode(), r.out());
        assertTrue(r.err().contains("Internal Error"), r.err());
        assertTrue(!Files.exists(file) || Files.size(file) == 0,
                "the failed read's output: " + (Files.exists(file) ? Files.size(file) + " bytes" : "none"));
    }

    /** Item 4, the same against a file that held data: it is left empty, as nvme-cli's O_TRUNC leaves it. */
    @Test
    void aFailedReadOverMoreThanOneChunkLeavesTheFileEmpty() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.readDataThenInternalError = true;
        script.blocks = 8192; // 4 MiB: several 1 MiB chunks
        Path file = dir.resolve("old.bin");
        Files.write(file, new byte[100]);
        String[] args = at(script, "read", "--nqn", script.subsystem.value(), "-s", "0", "-c", "4095",
                "-d", file.toString());
        controller.media().fill((byte) 0x5A);
        CliRunner.Result r = CliRunner.run(args);
        assertNotEquals(0, r.exitCode(), r.out());
        assertEquals(0, Files.size(file));
    }

    /** Item 4: 4 MiB blocks (LBADS 22, valid, within MDTS): read and write move one whole block, no internal error. */
    @Test
    void blocksLargerThanTheTransferChunkAreReadAndWritten() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.blockSize = 4 << 20;
        script.blocks = 2;
        script.mdts = 0; // no limit but the keyed SGL's 16 MiB
        Path in = dir.resolve("in.bin");
        byte[] data = new byte[4 << 20];
        new java.util.Random(3).nextBytes(data);
        Files.write(in, data);
        CliRunner.Result w = CliRunner.run(at(script, "write", "--nqn", script.subsystem.value(), "-s", "1", "-c", "0",
                "-z", Integer.toString(data.length), "-d", in.toString()));
        assertEquals(0, w.exitCode(), w.err());
        controller.close();
        controller = null;
        Path out = dir.resolve("out.bin");
        ScriptedController.Script again = new ScriptedController.Script();
        again.blockSize = 4 << 20;
        again.blocks = 2;
        again.mdts = 0;
        String[] args = at(again, "read", "--nqn", again.subsystem.value(), "-s", "1", "-c", "0", "-d", out.toString());
        controller.media().asSlice(4 << 20, 4 << 20).copyFrom(java.lang.foreign.MemorySegment.ofArray(data));
        CliRunner.Result r = CliRunner.run(args);
        assertEquals(0, r.exitCode(), r.err());
        assertEquals(-1, java.util.Arrays.mismatch(data, Files.readAllBytes(out)));
    }
}
