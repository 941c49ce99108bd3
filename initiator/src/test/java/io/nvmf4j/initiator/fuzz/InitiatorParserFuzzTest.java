package io.nvmf4j.initiator.fuzz;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nvmf4j.initiator.Discovery;
import io.nvmf4j.initiator.DiscoveryRecord;
import io.nvmf4j.initiator.HostParsers;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.initiator.TransferLimits;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.auth.AuthMessage;
import io.nvmf4j.protocol.auth.DhchapChallenge;
import io.nvmf4j.protocol.auth.DhchapDhGroup;
import io.nvmf4j.protocol.auth.DhchapException;
import io.nvmf4j.protocol.auth.DhchapHash;
import io.nvmf4j.protocol.auth.DhchapHostSession;
import io.nvmf4j.protocol.auth.DhchapKeys;
import io.nvmf4j.protocol.auth.DhchapReply;
import io.nvmf4j.protocol.auth.DhchapSecret;
import io.nvmf4j.protocol.auth.DhchapSuccess2;
import io.nvmf4j.protocol.fabrics.ControllerCapabilities;
import io.nvmf4j.protocol.log.AnaLogPage;
import io.nvmf4j.protocol.log.ChangedNamespaceList;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.log.DiscoveryLogPage;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import io.nvmf4j.testsupport.FuzzSupport;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Generative fuzzing of the initiator's parsers of what a target sends, each called as the host's own path calls
 * it but without a transport under it (so they run at tens of thousands of inputs/s, where
 * {@link InitiatorFuzzTest} drives the same data through a loopback connection at hundreds): Identify Controller
 * and the limits the host derives from it, Identify Namespace and the check before I/O, the discovery log through
 * the library's one reader ({@code Discovery.readEntries}), the ANA log sized from Identify Controller, the Changed
 * Namespace List, and the DH-HMAC-CHAP messages the host receives (Challenge, Success1, Failure1).
 *
 * <p>Property, per target: the parser returns a value, or fails with its declared exception for malformed input
 * (the initiator's {@link NvmfException}, the protocol's {@link MalformedStructureException} for a decoder, a
 * {@link DhchapException} for the authentication session) and never another one; it allocates at most a bound fixed
 * by the host (never in proportion to a count the target reports beyond it); and what it returns keeps the
 * invariants the host relies on afterwards (a usable namespace's block fits a command, a discovery log has at most
 * {@link Discovery#MAX_RECORDS} records ...).
 *
 * <p>A log page target reads its answers from the input in order, from the start again when they run out: a
 * target that never stops answering, and that may answer each read of the same log differently.
 */
class InitiatorParserFuzzTest {

    // ---- Identify Controller -----------------------------------------------------------------------------------

    /** Bytes of the host's I/O buffer (ConnectOptions' default bufferSize). */
    private static final int BUFFER_SIZE = 16384;

    /**
     * Input: the 4096-byte Identify Controller data (zero-padded, as the host's buffer is), then 8 bytes of CAP
     * (little endian). Every accessor is read (the command line's id-ctrl), then what the host derives at connect:
     * the I/O queue size, MDTS as bytes, the in-capsule data size, and SUBNQN as the multipath controller compares it
     * (valid, or refused with {@link NvmfException}).
     */
    @FuzzTest(maxDuration = "10m")
    void identifyController(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT, () -> {
            IdentifyController id = IdentifyController.wrap(padded(input, IdentifyController.SIZE));
            ControllerCapabilities cap = ControllerCapabilities.fromRaw(
                    Wire.u64(padded(input, IdentifyController.SIZE + 8), IdentifyController.SIZE));
            int queueSize = HostParsers.ioQueueSize(1024, cap, id);
            if (queueSize < 1 || queueSize > 1024 || queueSize > cap.maxQueueEntries()) {
                throw new AssertionError("I/O queue size " + queueSize + " for MQES " + cap.mqes() + " MAXCMD "
                        + id.maxcmd());
            }
            long pageSize = 1L << (12 + cap.mpsmin());
            long maxTransfer = HostParsers.maxTransferBytes(id.mdts(), cap.mpsmin());
            if (maxTransfer < pageSize || maxTransfer > Math.max(pageSize, KeyedSglDescriptor.MAX_LENGTH + 1L)) {
                throw new AssertionError("MDTS " + id.mdts() + " MPSMIN " + cap.mpsmin() + " gave a transfer limit "
                        + maxTransfer);
            }
            TransferLimits.maxBlocksPerCommand(512, maxTransfer, maxTransfer);
            try {
                assertNotNull(HostParsers.subsystemNqn(id).toString());
            } catch (NvmfException e) {
                // an invalid SUBNQN: the multipath controller refuses the path with its declared exception
            } catch (MalformedStructureException e) {
                throw new AssertionError("SUBNQN escaped the multipath controller as " + e, e);
            }
            int inCapsule = HostParsers.inCapsuleBytes(id, BUFFER_SIZE);
            if (inCapsule < 0 || inCapsule > BUFFER_SIZE) {
                throw new AssertionError("in-capsule data size " + inCapsule + " for IOCCSZ " + id.ioccsz());
            }
            readAll(id);
            id.validate();
        }, MalformedStructureException.class);
    }

    // ---- Identify Namespace ------------------------------------------------------------------------------------

    /**
     * Input: the 4096-byte Identify Namespace data, then MDTS and CAP.MPSMIN (a byte each). A namespace with NSZE 0
     * is skipped as the host skips it; any other must pass the host's check ({@code AdminQueries.usable}) or be
     * refused with {@link NvmfException}, and one that passes has a block of 2^9..2^31 bytes that one command
     * carries.
     */
    @FuzzTest(maxDuration = "10m")
    void identifyNamespace(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT, () -> {
            IdentifyNamespace id = IdentifyNamespace.wrap(padded(input, IdentifyNamespace.SIZE));
            int mdts = input.length > IdentifyNamespace.SIZE ? input[IdentifyNamespace.SIZE] & 0xFF : 0;
            int mpsmin = input.length > IdentifyNamespace.SIZE + 1 ? input[IdentifyNamespace.SIZE + 1] & 0xF : 0;
            long maxTransfer = HostParsers.maxTransferBytes(mdts, mpsmin);
            assertNotNull(id.toString());
            if (id.nsze() == 0) {
                return;
            }
            IdentifyNamespace usable = HostParsers.usableNamespace(id, maxTransfer);
            long blockSize = usable.blockSize();
            if (blockSize < 512 || blockSize > 1L << 31 || blockSize > maxTransfer) {
                throw new AssertionError("usable namespace with " + blockSize + "-byte blocks (transfer limit "
                        + maxTransfer + ")");
            }
            TransferLimits.maxBlocksPerCommand(blockSize, maxTransfer, maxTransfer);
            for (int i = 0; i <= usable.nlbaf(); i++) {
                assertNotNull(usable.lbaFormat(i).toString());
            }
            assertNotNull(usable.activeLbaFormat().toString());
        }, NvmfException.class);
    }

    // ---- discovery log -----------------------------------------------------------------------------------------

    /** Get Log Page commands one discovery read may send: per try the header twice and NUMREC / 4 record chunks. */
    private static final int DISCOVERY_READS = Discovery.DEFAULT_MAX_RETRIES * (2 + Discovery.MAX_RECORDS / 4);
    /** Bytes one try may fetch: two headers and {@link Discovery#MAX_RECORDS} records. */
    private static final long DISCOVERY_TRY_BYTES =
            2L * DiscoveryLogPage.HEADER_SIZE + (long) Discovery.MAX_RECORDS * DiscoveryLogEntry.SIZE;

    /**
     * Input: the answers of the discovery controller to every Get Log Page 70h, in order (a well-formed log is the
     * header then NUMREC entries, which then wrap around to the header again). Read with nvme-cli's 10 tries, each
     * entry then made a {@link DiscoveryRecord} and printed. At most {@value Discovery#MAX_RECORDS} records per
     * try are ever fetched, whatever NUMREC says.
     */
    @FuzzTest(maxDuration = "10m")
    void discoveryLog(byte[] input) {
        long bound = FuzzSupport.ALLOCATION_LIMIT + 2L * Discovery.DEFAULT_MAX_RETRIES * DISCOVERY_TRY_BYTES;
        FuzzSupport.check(input, bound, () -> {
            Answers target = new Answers(input);
            Discovery.Entries log = HostParsers.discoveryEntries((offset, length, rae) -> target.next(length),
                    Discovery.DEFAULT_MAX_RETRIES);
            if (log.entries().size() > Discovery.MAX_RECORDS) {
                throw new AssertionError(log.entries().size() + " discovery records");
            }
            for (DiscoveryLogEntry e : log.entries()) {
                DiscoveryRecord r = HostParsers.discoveryRecord(e);
                assertNotNull(r.toString());
                r.trtypeName();
                r.adrfamName();
                r.subtypeName();
                assertNotNull(e.toString());
            }
            if (target.reads > DISCOVERY_READS) {
                throw new AssertionError(target.reads + " Get Log Page commands for one discovery log read");
            }
        }, NvmfException.class);
    }

    // ---- ANA log -----------------------------------------------------------------------------------------------

    /** Bytes of the ANA header of the input: CMIC, NANAGRPID, MNAN, NN as the controller's Identify reports them. */
    private static final int ANA_IDENTIFY = 16;

    /**
     * Input: CMIC (byte 0), NANAGRPID, MNAN and NN (u32 little endian at 4, 8, 12) of Identify Controller, then the
     * ANA log the controller returns, repeated to the size the host reads (from those four values, bounded at about
     * 6 MiB). Decoded as {@code NvmeController.anaLog()} does: a page, or an {@link NvmfException}; every group's
     * NSIDs are in the page the host read.
     */
    @FuzzTest(maxDuration = "10m")
    void anaLog(byte[] input) {
        long bound = FuzzSupport.ALLOCATION_LIMIT + 16 * HostParsers.maxAnaLogBytes();
        FuzzSupport.check(input, bound, () -> {
            MemorySegment head = padded(input, ANA_IDENTIFY);
            IdentifyController id = IdentifyController.allocate().cmic(Wire.u8(head, 0))
                    .nanagrpid((int) Wire.u32(head, 4)).mnan((int) Wire.u32(head, 8)).nn(Wire.u32(head, 12));
            Answers target = new Answers(Arrays.copyOfRange(input, Math.min(input.length, ANA_IDENTIFY),
                    input.length));
            AnaLogPage page = HostParsers.anaLog(id, (offset, length, rae) -> target.next(length));
            if (target.reads > 0 && page.size() > target.bytes) {
                throw new AssertionError("ANA log of " + page.size() + " bytes decoded from " + target.bytes);
            }
            for (AnaLogPage.Group g : page.groups()) {
                g.state().label();
            }
        }, NvmfException.class);
    }

    // ---- Changed Namespace List --------------------------------------------------------------------------------

    /** Input: the 4096-byte log page 04h (zero-padded); the NSIDs the host takes from it, 1..FFFFFFFEh, at most 1024. */
    @FuzzTest(maxDuration = "10m")
    void changedNamespaces(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT, () -> {
            List<Long> ids = HostParsers.changedNamespaceIds(padded(input, ChangedNamespaceList.SIZE));
            if (ids.size() > ChangedNamespaceList.MAX_ENTRIES) {
                throw new AssertionError(ids.size() + " changed NSIDs");
            }
            for (long nsid : ids) {
                if (nsid < 1 || nsid > 0xFFFF_FFFEL) {
                    throw new AssertionError("changed NSID " + nsid);
                }
            }
        }, MalformedStructureException.class);
    }

    // ---- DH-HMAC-CHAP, host side -------------------------------------------------------------------------------

    private static final DhchapSecret HOST_KEY = DhchapSecret.of(0, new byte[32]);
    private static final DhchapSecret CTRL_KEY = DhchapSecret.of(0, filled(32, (byte) 0x5A));
    private static final Set<DhchapDhGroup> GROUPS = Set.of(DhchapDhGroup.NULL, DhchapDhGroup.FFDHE2048);
    private static final String HOST_NQN = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-000000000001";
    private static final String SUBSYS_NQN = "nqn.2026-12.io.nvmf4j:fuzz";
    /** T_ID of the host's transaction: a message must carry it back. */
    static final int TID = 1;
    /** The host's Authentication Receive buffer (DhchapAuthenticator.RECEIVE_BUFFER, Linux CHAP_BUF_SIZE). */
    private static final int RECEIVE_BUFFER = 4096;

    /**
     * Input: byte 0 bit 0 picks the step (0: the rest is the controller's answer to AUTH_Negotiate, a Challenge or
     * a Failure1; 1: a valid SHA-256 null-group Challenge first, then the rest as the answer to the Reply, a Success1
     * or a Failure1), bit 1 bidirectional keys. The message arrives zero-padded in the 4096-byte receive buffer.
     * The session answers with its next message or a {@link DhchapException}; after one it has failed and, unless
     * the controller sent Failure1, has a Failure2 to send.
     */
    @FuzzTest(maxDuration = "10m")
    void authMessages(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT, () -> {
            if (input.length == 0) {
                return;
            }
            boolean success1 = (input[0] & 1) != 0;
            boolean bidirectional = (input[0] & 2) != 0;
            DhchapKeys keys = new DhchapKeys(HOST_KEY, bidirectional ? CTRL_KEY : null, Set.of(), GROUPS);
            DhchapHostSession session = new DhchapHostSession(keys, HOST_NQN, SUBSYS_NQN, TID, RANDOM);
            session.start().toBytes();
            MemorySegment received = padded(Arrays.copyOfRange(input, 1, input.length), RECEIVE_BUFFER);
            try {
                if (!success1) {
                    DhchapReply reply = session.onChallenge(received);
                    reply.toBytes();
                    return;
                }
                session.onChallenge(bytesOf(new DhchapChallenge(TID, DhchapHash.SHA256.id(), DhchapDhGroup.NULL.id(),
                        1, new byte[32], new byte[0])));
                DhchapSuccess2 success2 = session.onSuccess1(received);
                if (!session.authenticated() || (success2 != null) != bidirectional) {
                    throw new AssertionError("Success1 accepted in state " + session.state() + ", Success2 "
                            + success2);
                }
                if (success2 != null) {
                    success2.toBytes();
                }
            } catch (DhchapException e) {
                if (session.state() != DhchapHostSession.State.FAILED || (!e.reportedByPeer()
                        && session.failure2() == null)) {
                    throw new AssertionError("after " + e + " the session is " + session.state() + " with Failure2 "
                            + session.failure2(), e);
                }
                if (session.failure2() != null) {
                    session.failure2().toBytes();
                }
                throw e;
            }
        }, DhchapException.class);
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    private static MemorySegment bytesOf(AuthMessage m) {
        return padded(m.toBytes(), RECEIVE_BUFFER);
    }

    // ---- helpers -----------------------------------------------------------------------------------------------

    /** The target's answers: the input read in order, from the start again when it runs out; counts the reads. */
    private static final class Answers {
        private final byte[] data;
        private int at;
        int reads;
        long bytes;

        Answers(byte[] data) {
            this.data = data;
        }

        /** The next {@code length} bytes, in a buffer of that size as the host's own Get Log Page allocates. */
        MemorySegment next(int length) {
            reads++;
            bytes += length;
            byte[] page = new byte[length];
            if (data.length > 0) {
                // one period of the input from the cursor, then doubling copies (a 6 MiB ANA page from a 20-byte
                // input is 22 copies, not 300,000)
                int filled = Math.min(length, data.length - at);
                System.arraycopy(data, at, page, 0, filled);
                if (filled < length) {
                    int rest = Math.min(length - filled, at);
                    System.arraycopy(data, 0, page, filled, rest);
                    filled += rest;
                }
                while (filled < length) {
                    int n = Math.min(filled, length - filled);
                    System.arraycopy(page, 0, page, filled, n);
                    filled += n;
                }
                at = (int) ((at + (long) length) % data.length);
            }
            return MemorySegment.ofArray(page);
        }
    }

    private static MemorySegment padded(byte[] body, int size) {
        return MemorySegment.ofArray(body.length >= size ? body : Arrays.copyOf(body, size));
    }

    private static byte[] filled(int length, byte value) {
        byte[] b = new byte[length];
        Arrays.fill(b, value);
        return b;
    }

    /** Calls every public no-argument accessor, as the command line's text output does. */
    private static void readAll(Object view) {
        for (Method m : ACCESSORS.get(view.getClass())) {
            try {
                Object v = m.invoke(view);
                if (v != null) {
                    assertNotNull(v.toString());
                }
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof RuntimeException re) {
                    throw re;
                }
                throw new AssertionError(e.getCause());
            } catch (IllegalAccessException e) {
                throw new AssertionError(e);
            }
        }
    }

    private static final ClassValue<List<Method>> ACCESSORS = new ClassValue<>() {
        @Override
        protected List<Method> computeValue(Class<?> type) {
            return Arrays.stream(type.getMethods())
                    .filter(m -> m.getParameterCount() == 0 && !Modifier.isStatic(m.getModifiers())
                            && m.getDeclaringClass() == type && m.getReturnType() != void.class
                            && !m.getName().equals("segment") && !m.getName().equals("hashCode")
                            && !m.getName().equals("validate"))
                    .sorted(Comparator.comparing(Method::getName))
                    .toList();
        }
    };

    // ---- short generative run in mvn verify --------------------------------------------------------------------

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void fewThousandMutationsOfTheCorpusPerParser() {
        int n = FuzzSupport.shortRunInputs(3000);
        FuzzSupport.shortRun(getClass(), "identifyController", 4200, n, 2, this::identifyController);
        FuzzSupport.shortRun(getClass(), "identifyNamespace", 4200, n, 2, this::identifyNamespace);
        FuzzSupport.shortRun(getClass(), "discoveryLog", 8192, n, 3, this::discoveryLog);
        FuzzSupport.shortRun(getClass(), "anaLog", 4200, n, 3, this::anaLog);
        FuzzSupport.shortRun(getClass(), "changedNamespaces", 4200, n, 2, this::changedNamespaces);
        FuzzSupport.shortRun(getClass(), "authMessages", 1200, n, 3, this::authMessages);
    }
}
