package io.nvmf4j.initiator.fuzz;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.nvmf4j.testsupport.FuzzSupport;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.ControllerState;
import io.nvmf4j.initiator.Discovery;
import io.nvmf4j.initiator.DiscoveryLog;
import io.nvmf4j.initiator.DiscoveryRecord;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.initiator.NvmfTimeoutException;
import io.nvmf4j.initiator.fake.ScriptedController;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.GetLogPageCommand;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Generative fuzzing of what the host library parses from a target, through the initiator's own code paths
 * ({@link Discovery#readLog}, {@link NvmeController#activeNamespaceIds()}, {@link NvmeController#identifyNamespace},
 * and the Identify Controller/Namespace handling of {@link NvmeController#connect}): a scripted controller on
 * loopback softiwarp answers every Identify and Get Log Page with the fuzz input's bytes, page after page, and starts
 * over when they run out (a target that never stops answering).
 *
 * <p>Property: the call returns or fails with {@link NvmfException} (or the protocol's
 * {@link MalformedStructureException}), never a timeout (the double always answers) nor another exception; it
 * issues a bounded number of commands (every loop over peer data ends: at most {@value #MAX_COMMANDS} pages per
 * call for fuzz-sized inputs) and allocates nothing in proportion to a count the target reports (NUMREC, list
 * pages).
 *
 * <p>Input: byte 0 picks the call (modulo 16: 0, 4, 8 discovery log; 1, 5, 9 active namespace list; 2, 6, 10
 * Identify Namespace; 3 a whole connect, some 35 ms, so rarer; the rest discovery log), the rest are the answers.
 * Admin commands cost about 1.5 ms each on this loopback pair, so this target runs at hundreds of inputs/s, not
 * tens of thousands.
 */
class InitiatorFuzzTest {

    /**
     * Commands one host call may send: the namespace list reader stops at 1024 pages (NamespaceListReader.MAX_PAGES,
     * 1 Mi namespaces: a well-formed list may be that long), discovery at a few bounded re-reads; plus slack.
     */
    static final int MAX_COMMANDS = 1024 + 64;

    private static ScriptedController target;
    private static NvmeController controller;
    private static final AtomicInteger answered = new AtomicInteger();
    private static volatile byte[] answers = new byte[0];
    private static volatile int cursor;

    private static ConnectOptions options() {
        return ConnectOptions.builder(target.address(), target.script.subsystem).host(HostIdentity.generate())
                .ioQueues(1).queueSize(16).provider("softiwarp").connectTimeout(Duration.ofSeconds(5))
                .commandTimeout(Duration.ofSeconds(5)).bufferSize(16384).buffersPerQueue(4).build();
    }

    /** Connections made on the current double (it keeps 1 MiB of buffers per queue until it is closed). */
    private static int connects;

    private static synchronized NvmeController controller() throws Exception {
        if (target != null && connects >= 32) {
            if (controller != null) {
                controller.close();
                controller = null;
            }
            target.close();
            target = null;
        }
        if (target == null) {
            connects = 0;
            ScriptedController.Script script = new ScriptedController.Script();
            script.discoveryRecords = 2;
            target = new ScriptedController(script);
        }
        if (controller == null || controller.state() != ControllerState.LIVE) {
            if (controller != null) {
                controller.close();
            }
            target.script.hostileAdminData = null;
            connects++;
            controller = NvmeController.connect(options());
            target.script.hostileAdminData = InitiatorFuzzTest::answer;
        }
        return controller;
    }

    /** The next page of the input (wrapping around), or null (Invalid Field) past the command bound. */
    private static byte[] answer(SubmissionQueueEntry sqe) {
        if (answered.incrementAndGet() > MAX_COMMANDS) {
            return null;
        }
        byte[] all = answers;
        if (all.length == 0) {
            return new byte[0];
        }
        int length = (int) (sqe.opcode() == 0x06 ? 4096
                : Math.min(1 << 20, GetLogPageCommand.wrap(sqe).lengthBytes()));
        byte[] page = new byte[length];
        int at = cursor;
        for (int i = 0; i < length; i++) {
            page[i] = all[at];
            at = (at + 1) % all.length;
        }
        cursor = at;
        return page;
    }

    @FuzzTest(maxDuration = "10m")
    void hostParsing(byte[] input) throws Exception {
        NvmeController c = controller();
        if (input.length == 0) {
            return;
        }
        byte[] pages = Arrays.copyOfRange(input, 1, input.length);
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT + 64L * input.length, () -> {
            answers = pages;   // here, so that FuzzSupport's second run (allocation check) replays the same answers
            cursor = 0;
            answered.set(0);
            try {
                switch ((input[0] & 0xff) % 16) {
                    case 1, 5, 9 -> c.activeNamespaceIds();
                    case 2, 6, 10 -> {
                        IdentifyNamespace ns = c.identifyNamespace(1);
                        assertNotNull(ns.toString());
                    }
                    case 3 -> {
                        target.script.hostileAdminData = InitiatorFuzzTest::answer;
                        connects++;
                        try (NvmeController other = NvmeController.connect(options())) {
                            other.namespaces().forEach(n -> assertNotNull(n.toString()));
                            assertNotNull(other.identify().toString());
                        }
                    }
                    default -> {
                        DiscoveryLog log = Discovery.readLog(c, 3);
                        for (DiscoveryRecord r : log.records()) {
                            assertNotNull(r.toString());
                        }
                    }
                }
            } catch (NvmfTimeoutException e) {
                throw new AssertionError("the host timed out although the controller answered everything", e);
            }
        }, NvmfException.class, MalformedStructureException.class);
        if (answered.get() > MAX_COMMANDS) {
            throw new AssertionError("the host sent more than " + MAX_COMMANDS + " Identify/Get Log Page commands"
                    + " for one call on " + input.length + " bytes of answers: an unbounded loop over peer data");
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void fewHundredMutationsOfTheCorpus() {
        FuzzSupport.shortRun(getClass(), "hostParsing", 16384, FuzzSupport.shortRunInputs(3000) / 10, 5, input -> {
            try {
                hostParsing(input);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }
}
