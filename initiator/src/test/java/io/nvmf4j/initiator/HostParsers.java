package io.nvmf4j.initiator;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.fabrics.ControllerCapabilities;
import io.nvmf4j.protocol.log.AnaLogPage;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The initiator's parsers of what a target sends, without a transport under them, for the fuzz targets of
 * {@code io.nvmf4j.initiator.fuzz} (test scope only: the library's API stays as it is). Each method is the code the
 * controller's own path runs on the bytes it received.
 */
public final class HostParsers {

    private HostParsers() {
    }

    /** One Get Log Page answer: {@code length} bytes of the log from {@code offset}. */
    @FunctionalInterface
    public interface LogSource {
        MemorySegment read(long offset, int length, boolean rae) throws NvmfException;
    }

    /** {@link Discovery#readEntries(NvmeController, int)} over {@code source}. */
    public static Discovery.Entries discoveryEntries(LogSource source, int maxRetries) throws NvmfException {
        return Discovery.readEntries("fuzz", source::read, maxRetries);
    }

    /** What {@link Discovery#readLog} makes of each entry. */
    public static DiscoveryRecord discoveryRecord(DiscoveryLogEntry entry) {
        return DiscoveryRecord.from(entry);
    }

    /** {@link NvmeController#anaLog()} with {@code identify} as the controller's Identify data. */
    public static AnaLogPage anaLog(IdentifyController identify, LogSource source) throws NvmfException {
        return AdminQueries.anaLog("fuzz", identify, length -> source.read(0, length, false));
    }

    /** The largest ANA log page the host reads, in bytes. */
    public static long maxAnaLogBytes() {
        return AnaLogPage.HEADER_SIZE + AdminQueries.MAX_ANA_GROUPS * AnaLogPage.DESCRIPTOR_SIZE
                + AdminQueries.MAX_ANA_NSIDS * 4;
    }

    /** The check an Identify Namespace passes before the host does I/O with the namespace. */
    public static IdentifyNamespace usableNamespace(IdentifyNamespace id, long maxTransferBytes)
            throws NvmfException {
        return AdminQueries.usable("fuzz", 1, id, maxTransferBytes);
    }

    /** MDTS and CAP.MPSMIN as the bytes one command may carry. */
    public static long maxTransferBytes(int mdts, int mpsmin) {
        return ControllerSetup.maxTransferBytes(mdts, mpsmin);
    }

    /** Entries per I/O queue for a wish of {@code wanted}. */
    public static int ioQueueSize(int wanted, ControllerCapabilities capabilities, IdentifyController identify) {
        return ControllerSetup.ioQueueSize(wanted, capabilities, identify);
    }

    /** In-capsule data bytes per write. */
    public static int inCapsuleBytes(IdentifyController identify, int bufferSize) {
        return ControllerSetup.inCapsuleBytes(identify, true, bufferSize);
    }

    /** SUBNQN of Identify Controller as the multipath controller compares its paths'. */
    public static Nqn subsystemNqn(IdentifyController identify) throws NvmfException {
        return MultipathController.subsystemNqn("fuzz", identify);
    }

    /** The NSIDs the host takes from a Changed Namespace List page (log 04h). */
    public static List<Long> changedNamespaceIds(MemorySegment page) {
        return AsyncEventHandler.changedNamespaceIds(page);
    }
}
