package io.nvmf4j.initiator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.initiator.fake.ScriptedController;
import io.nvmf4j.protocol.admin.ActiveNamespaceList;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The host against a controller that lies in its identify data and log pages (issue 13, F7 and F8): every count
 * the controller reports is bounded before the host allocates for it, every loop over controller data ends, and
 * a violation is one clear {@link NvmfException} naming the controller: connect or discovery fails, nothing hangs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostAgainstHostileControllerTest {

    private ScriptedController target;

    @AfterEach
    void tearDown() {
        if (target != null) {
            target.close();
        }
    }

    private NvmfException connectFails(ScriptedController.Script script) throws Exception {
        target = new ScriptedController(script);
        ConnectOptions options = ConnectOptions.builder(target.address(), script.subsystem)
                .host(HostIdentity.generate()).ioQueues(1).queueSize(16).provider("softiwarp")
                .connectTimeout(Duration.ofSeconds(5)).commandTimeout(Duration.ofSeconds(5)).build();
        return assertThrows(NvmfException.class, () -> NvmeController.connect(options).close());
    }

    private static List<Long> range(long first, int count) {
        return LongStream.range(first, first + count).boxed().toList();
    }

    // ---- F7: the active namespace list ----------------------------------------------------------------------

    @Test
    void aControllerRepeatingTheSameFullNamespacePageFailsTheConnectInsteadOfLoopingToOutOfMemory() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.nn = 0xFFFF_FFFEL;
        script.activeNamespaces = start -> range(1, ActiveNamespaceList.MAX_ENTRIES); // whatever NSID is asked for
        long begin = System.nanoTime();
        NvmfException e = connectFails(script);
        assertTrue(e.getMessage().contains("nvme-") && e.getMessage().contains("active namespace list"),
                e.getMessage());
        assertTrue(e.getMessage().contains("not greater than"), e.getMessage());
        assertTrue(System.nanoTime() - begin < TimeUnit.SECONDS.toNanos(20));
    }

    @Test
    void aNamespaceListThatNeverEndsStopsAtThePageLimit() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.nn = 0xFFFF_FFFEL;
        AtomicInteger asked = new AtomicInteger();
        script.activeNamespaces = start -> {
            asked.incrementAndGet();
            return range(start + 1, ActiveNamespaceList.MAX_ENTRIES); // well-formed pages, forever
        };
        NvmfException e = connectFails(script);
        assertTrue(e.getMessage().contains("more than " + NamespaceListReader.MAX_PAGES + " pages"), e.getMessage());
        assertEquals(NamespaceListReader.MAX_PAGES, asked.get(), "pages asked for before giving up");
    }

    @Test
    void aNamespaceIdAboveTheControllersNnIsRefused() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.nn = 4;
        script.activeNamespaces = start -> start == 0 ? List.of(1L, 5L) : List.of();
        NvmfException e = connectFails(script);
        assertTrue(e.getMessage().contains("NSID 5") && e.getMessage().contains("NN 4"), e.getMessage());
    }

    @Test
    void aMalformedNamespaceListIsAnNvmfExceptionNotARuntimeException() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.nn = 100;
        script.activeNamespaces = start -> start == 0 ? List.of(3L, 2L) : List.of();
        NvmfException e = connectFails(script);
        assertTrue(e.getMessage().contains("active namespace list"), e.getMessage());
    }

    // ---- F8: the discovery log ------------------------------------------------------------------------------

    private NvmfException discoveryFails(ScriptedController.Script script) throws Exception {
        target = new ScriptedController(script);
        ConnectOptions options = ConnectOptions.discovery(target.address()).host(HostIdentity.generate())
                .provider("softiwarp").commandTimeout(Duration.ofSeconds(5)).build();
        return assertThrows(NvmfException.class, () -> Discovery.discover(options));
    }

    @Test
    void aDiscoveryLogClaimingOnePointFiveMillionRecordsIsRefusedBeforeTheHostAllocatesForThem() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.discoveryRecords = 2;
        script.discoveryNumrecClaim = 1_500_000L;
        long begin = System.nanoTime();
        NvmfException e = discoveryFails(script);
        assertTrue(e.getMessage().contains("1500000") && e.getMessage().contains("" + Discovery.MAX_RECORDS),
                e.getMessage());
        // the header only: no Get Log Page for the entries
        assertEquals(1, target.receivedWithOpcode(0x02).size());
        assertTrue(System.nanoTime() - begin < TimeUnit.SECONDS.toNanos(10));
    }

    @Test
    void aDiscoveryLogClaimingTwoToTheSixtyFourMinusOneRecordsIsRefused() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.discoveryRecords = 1;
        script.discoveryNumrecClaim = -1L; // FFFFFFFF_FFFFFFFFh
        NvmfException e = discoveryFails(script);
        assertTrue(e.getMessage().contains("18446744073709551615"), e.getMessage());
    }

    @Test
    void aDiscoveryLogWhoseGenerationNeverSettlesFailsAfterTheBoundedRetries() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.discoveryRecords = 2;
        script.bumpGenctrOnFirstRead = 1000;
        NvmfException e = discoveryFails(script);
        assertTrue(e.getMessage().contains("kept changing"), e.getMessage());
        // header, entries, header per try
        assertEquals(3 * Discovery.DEFAULT_MAX_RETRIES, target.receivedWithOpcode(0x02).size());
    }

    // ---- issue 27, item 1: one bounded reader of the discovery log, raw entries included --------------------

    @Test
    void theRawEntriesReaderTheCommandLineUsesIsBoundedToo() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.discoveryRecords = 2;
        script.discoveryNumrecClaim = 1_500_000L;
        target = new ScriptedController(script);
        ConnectOptions options = ConnectOptions.discovery(target.address()).host(HostIdentity.generate())
                .provider("softiwarp").commandTimeout(Duration.ofSeconds(5)).build();
        NvmfException e = assertThrows(NvmfException.class, () -> Discovery.discoverEntries(options));
        assertTrue(e.getMessage().contains("1500000") && e.getMessage().contains("" + Discovery.MAX_RECORDS),
                e.getMessage());
        assertEquals(1, target.receivedWithOpcode(0x02).size());
    }

    @Test
    void theRawEntriesAreTheRecordsTheLibraryDecodes() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.discoveryRecords = 6; // two 4 KiB chunks
        target = new ScriptedController(script);
        ConnectOptions options = ConnectOptions.discovery(target.address()).host(HostIdentity.generate())
                .provider("softiwarp").commandTimeout(Duration.ofSeconds(5)).build();
        Discovery.Entries raw = Discovery.discoverEntries(options);
        DiscoveryLog log = Discovery.discover(options);
        assertEquals(6, raw.entries().size());
        assertEquals(log.generation(), raw.generation());
        for (int i = 0; i < 6; i++) {
            assertEquals(log.records().get(i).subnqn(), raw.entries().get(i).subnqn().strip());
        }
    }

    // ---- issue 27, item 4: extreme but valid controller values ----------------------------------------------

    private NvmeController connect(ScriptedController.Script script) throws Exception {
        target = new ScriptedController(script);
        ConnectOptions options = ConnectOptions.builder(target.address(), script.subsystem)
                .host(HostIdentity.generate()).ioQueues(1).queueSize(16).provider("softiwarp")
                .connectTimeout(Duration.ofSeconds(5)).commandTimeout(Duration.ofSeconds(5)).build();
        return NvmeController.connect(options);
    }

    /** MDTS 52 with 4 KiB pages is 2^64 bytes: no limit (Linux saturates), not a wrapped limit of 0 bytes. */
    @Test
    void mdtsOfTwoToTheSixtyFourBytesSaturatesToNoLimitBeyondTheSgl() throws Exception {
        for (int mdts : new int[] {51, 52, 53, 255}) {
            ScriptedController.Script script = new ScriptedController.Script();
            script.mdts = mdts;
            try (NvmeController c = connect(script)) {
                assertTrue(c.maxTransferBytes() > 0, "MDTS " + mdts + ": " + c.maxTransferBytes());
                Namespace ns = c.namespace(1).orElseThrow();
                assertTrue(ns.maxBlocksPerRequest() >= 1);
                byte[] back = new byte[64 << 10];
                ns.read(0, back.length / 512, java.lang.foreign.MemorySegment.ofArray(back));
            } finally {
                target.close();
                target = null;
            }
        }
    }

    /** LBADS outside 2^9..2^31: a protocol error naming the field, not an internal MalformedStructureException. */
    @Test
    void lbadsOutsideNineToThirtyOneIsAProtocolErrorNamingTheField() throws Exception {
        for (int lbads : new int[] {0, 8, 32, 63}) {
            ScriptedController.Script script = new ScriptedController.Script();
            script.lbadsClaim = lbads;
            NvmfException e = connectFails(script);
            assertTrue(e.getMessage().contains("LBADS " + lbads) && e.getMessage().contains("nvme-")
                    && e.getMessage().contains("Identify Namespace 1"), e.getMessage());
            target.close();
            target = null;
        }
    }

    /** LBADS 31 (2 GiB blocks) is valid, MDTS 1 (8 KiB) too; together no command moves a block: a clear error. */
    @Test
    void aBlockLargerThanMdtsIsAProtocolErrorNotAnIllegalArgument() throws Exception {
        ScriptedController.Script script = new ScriptedController.Script();
        script.lbadsClaim = 31;
        script.mdts = 1;
        NvmfException e = connectFails(script);
        assertTrue(e.getMessage().contains("LBADS 31") && e.getMessage().contains("MDTS"), e.getMessage());
    }
}
