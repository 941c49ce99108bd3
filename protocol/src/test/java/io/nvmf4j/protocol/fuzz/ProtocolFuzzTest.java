package io.nvmf4j.protocol.fuzz;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.nvmf4j.testsupport.FuzzSupport;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.admin.ActiveNamespaceList;
import io.nvmf4j.protocol.admin.IdentifyController;
import io.nvmf4j.protocol.admin.IdentifyNamespace;
import io.nvmf4j.protocol.admin.NamespaceDescriptorList;
import io.nvmf4j.protocol.fabrics.ConnectData;
import io.nvmf4j.protocol.fabrics.FabricsCommand;
import io.nvmf4j.protocol.log.ChangedNamespaceList;
import io.nvmf4j.protocol.log.DiscoveryLogEntry;
import io.nvmf4j.protocol.log.DiscoveryLogPage;
import io.nvmf4j.protocol.rdma.RdmaCmAccept;
import io.nvmf4j.protocol.rdma.RdmaCmReject;
import io.nvmf4j.protocol.rdma.RdmaCmRequest;
import io.nvmf4j.protocol.rdma.RdmaTsas;
import io.nvmf4j.protocol.tcp.IcReq;
import io.nvmf4j.protocol.tcp.IcResp;
import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.TermReq;
import io.nvmf4j.protocol.sgl.LastSegmentDescriptor;
import io.nvmf4j.protocol.sgl.SegmentDescriptor;
import io.nvmf4j.protocol.sgl.SglDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Generative fuzzing of the protocol decoders that read peer bytes: the capsule (SQE, SGL descriptors, an
 * in-capsule SGL segment, fabrics commands, Connect data), the RDMA CM private data, and the structures a host reads
 * from a target (Identify Controller/Namespace, active namespace list, namespace descriptors, discovery and
 * changed-namespace log pages). Every decoder may refuse with {@link MalformedStructureException} (its documented
 * error, NVMe-oF 1.1 section 7.3 turns it into a status) and nothing else; what decodes re-encodes to the same value.
 *
 * <p>{@code @FuzzTest} methods: in {@code mvn verify} Jazzer replays the corpus in
 * {@code ProtocolFuzzTestInputs/<method>/}; {@code bench/fuzz.sh} fuzzes them for as long as asked. The
 * {@code @Test} runs a few thousand seeded mutations of the corpus per target.
 */
class ProtocolFuzzTest {

    private static final int SHORT_RUN = 3000;

    // ---- capsule: SQE + SGL + in-capsule data ---------------------------------------------------------------

    /**
     * A command capsule as the target's receive buffer holds it: a 64-byte SQE, then in-capsule data. Decodes
     * SGL1, the fabrics command when the opcode is 7Fh, an in-capsule (offset) SGL segment when SGL1 points to one
     * (SPDK nvmf_rdma_request_parse_sgl()), and re-encodes what decoded.
     */
    @FuzzTest(maxDuration = "10m")
    void capsule(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT, () -> decodeCapsule(input),
                MalformedStructureException.class);
    }

    private static void decodeCapsule(byte[] input) {
        byte[] sqeBytes = Arrays.copyOf(input, SubmissionQueueEntry.SIZE);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.wrap(MemorySegment.ofArray(sqeBytes));
        MemorySegment inCapsule = MemorySegment.ofArray(input).asSlice(Math.min(input.length, SubmissionQueueEntry.SIZE));
        assertNotNull(sqe.toString());
        SglDescriptor sgl1 = null;
        try {
            sgl1 = SglDescriptor.decode(sqe.dptr());
            SglDescriptor again = reencode(sgl1);
            FuzzSupport.assertStable(sgl1, again, input);
        } catch (MalformedStructureException e) {
            requireMessage(e);
        }
        if (sgl1 instanceof LastSegmentDescriptor(long address, long length, boolean offset) && offset) {
            decodeSegment(inCapsule, address, length);
        } else if (sgl1 instanceof SegmentDescriptor(long address, long length, boolean offset) && offset) {
            decodeSegment(inCapsule, address, length);
        }
        if (sqe.opcode() == 0x7F) {
            FabricsCommand command = FabricsCommand.decode(sqe);
            SubmissionQueueEntry copy = SubmissionQueueEntry.allocate();
            command.encode(copy);
            FuzzSupport.assertStable(command, FabricsCommand.decode(copy), input);
            if (command instanceof io.nvmf4j.protocol.fabrics.ConnectCommand && inCapsule.byteSize() >= ConnectData.SIZE) {
                connectDataOf(inCapsule, input);
            }
        }
    }

    private static void decodeSegment(MemorySegment inCapsule, long address, long length) {
        if (address < 0 || address > inCapsule.byteSize()) {
            return; // the transport checks the offset against the capsule before decoding (SglMapping)
        }
        List<SglDescriptor> list = SglDescriptor.decodeSegment(inCapsule.asSlice(address), length);
        for (SglDescriptor d : list) {
            FuzzSupport.assertStable(d, reencode(d), new byte[0]);
        }
    }

    private static SglDescriptor reencode(SglDescriptor d) {
        MemorySegment out = MemorySegment.ofArray(new byte[SglDescriptor.SIZE]);
        d.encode(out);
        return SglDescriptor.decode(out);
    }

    private static void requireMessage(MalformedStructureException e) {
        if (e.getMessage() == null || e.getMessage().isBlank()) {
            throw new AssertionError("a MalformedStructureException without a message", e);
        }
    }

    /** The 1024-byte Connect data (NVMe-oF 1.1 Figure 20): decode, encode, decode again. */
    @FuzzTest(maxDuration = "10m")
    void connectData(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT,
                () -> connectDataOf(MemorySegment.ofArray(input), input), MalformedStructureException.class);
    }

    private static void connectDataOf(MemorySegment data, byte[] input) {
        ConnectData decoded = ConnectData.decode(data);
        MemorySegment out = MemorySegment.ofArray(new byte[ConnectData.SIZE]);
        decoded.encode(out);
        FuzzSupport.assertStable(decoded, ConnectData.decode(out), input);
    }

    // ---- RDMA CM private data (NVMe-oF 1.1 section 7.4.6.2) -------------------------------------------------

    /** First byte picks the structure: CM request, accept, reject, the RDMA TSAS of a discovery entry. */
    @FuzzTest(maxDuration = "10m")
    void rdmaCm(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT, () -> {
            if (input.length == 0) {
                return;
            }
            MemorySegment pd = MemorySegment.ofArray(input).asSlice(1);
            switch (input[0] & 3) {
                case 0 -> {
                    RdmaCmRequest r = RdmaCmRequest.decode(pd);
                    MemorySegment out = MemorySegment.ofArray(new byte[32]);
                    r.encode(out);
                    FuzzSupport.assertStable(r, RdmaCmRequest.decode(out), input);
                }
                case 1 -> {
                    RdmaCmAccept r = RdmaCmAccept.decode(pd);
                    MemorySegment out = MemorySegment.ofArray(new byte[32]);
                    r.encode(out);
                    FuzzSupport.assertStable(r, RdmaCmAccept.decode(out), input);
                }
                case 2 -> {
                    RdmaCmReject r = RdmaCmReject.decode(pd);
                    MemorySegment out = MemorySegment.ofArray(new byte[32]);
                    r.encode(out);
                    FuzzSupport.assertStable(r, RdmaCmReject.decode(out), input);
                }
                default -> {
                    RdmaTsas r = RdmaTsas.decode(pd);
                    MemorySegment out = MemorySegment.ofArray(new byte[256]);
                    r.encode(out);
                    FuzzSupport.assertStable(r, RdmaTsas.decode(out), input);
                }
            }
        }, MalformedStructureException.class);
    }

    // ---- NVMe/TCP PDUs (NVMe/TCP 1.0a, 3.6) ---------------------------------------------------------------

    /**
     * Byte 0 picks what reads the rest: an ICReq at a controller, an ICResp at a host (byte 1 the digests asked),
     * a common header after setup at either side (byte 1: the digests agreed and who receives), a TermReq. Checks
     * never throw; a header they pass has its data inside the PDU; what decodes re-encodes stably.
     */
    @FuzzTest(maxDuration = "10m")
    void tcpPdu(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT, () -> tcpPduOf(input),
                MalformedStructureException.class);
    }

    private static void tcpPduOf(byte[] input) {
        if (input.length < 2) {
            return;
        }
        MemorySegment pdu = MemorySegment.ofArray(input).asSlice(2);
        int how = input[1];
        switch (input[0] & 3) {
            case 0 -> {
                if (IcReq.check(pdu) == null) {
                    IcReq r = IcReq.decode(pdu);
                    MemorySegment out = MemorySegment.ofArray(new byte[IcReq.LENGTH]);
                    r.encode(out);
                    FuzzSupport.assertStable(r, IcReq.decode(out), input);
                }
            }
            case 1 -> {
                IcReq sent = IcReq.of((how & 1) != 0, (how & 2) != 0);
                if (IcResp.check(pdu, sent) == null) {
                    IcResp r = IcResp.decode(pdu, sent);
                    r.negotiated(sent);
                    MemorySegment out = MemorySegment.ofArray(new byte[IcReq.LENGTH]);
                    r.encode(out);
                    FuzzSupport.assertStable(r, IcResp.decode(out, sent), input);
                }
            }
            case 2 -> {
                if (pdu.byteSize() < PduHeader.LENGTH) {
                    return;
                }
                NegotiatedParameters n = new NegotiatedParameters((how & 1) != 0, (how & 2) != 0, how >>> 3 & 3,
                        how >>> 5 & 3, 8192, 0);
                boolean atHost = (how & 4) != 0;
                long max = 65536;
                if (PduHeader.check(pdu, n, atHost, max) == null) {
                    long plen = PduHeader.length(pdu);
                    long data = PduHeader.dataLength(pdu, n);
                    int pdo = PduHeader.dataOffset(pdu);
                    if (plen > max || data < 0 || (data > 0 && pdo + data + n.dataDigestLength() != plen)
                            || (data > 0 && pdo < PduHeader.headerLength(pdu))) {
                        throw new AssertionError("accepted header with data outside the PDU: PLEN " + plen
                                + ", PDO " + pdo + ", data " + data + " for " + Arrays.toString(input));
                    }
                }
            }
            default -> {
                TermReq t = TermReq.decode(pdu);
                MemorySegment out = MemorySegment.ofArray(new byte[t.length()]);
                t.encode(out);
                TermReq again = TermReq.decode(out);
                if (again.status() != t.status() || again.information() != t.information()
                        || !Arrays.equals(again.errorData(), t.errorData())) {
                    throw new AssertionError("TermReq not stable for " + Arrays.toString(input));
                }
            }
        }
    }

    // ---- what a host reads from a target ------------------------------------------------------------------

    /**
     * Data a target returns to the host: byte 0 picks Identify Controller, Identify Namespace, the active
     * namespace list, the namespace identification descriptors, the discovery log page or the changed namespace
     * list; the rest (zero-padded to the structure's size, as the host's buffer is) is decoded and every accessor
     * read, as the initiator and the CLI's text output do.
     */
    @FuzzTest(maxDuration = "10m")
    void hostData(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT, () -> {
            if (input.length == 0) {
                return;
            }
            byte[] body = Arrays.copyOfRange(input, 1, input.length);
            switch ((input[0] & 0xff) % 7) {
                case 0 -> readAll(IdentifyController.wrap(padded(body, IdentifyController.SIZE)));
                case 1 -> {
                    IdentifyNamespace ns = IdentifyNamespace.wrap(padded(body, IdentifyNamespace.SIZE));
                    readAll(ns);
                    for (int i = 0; i <= ns.nlbaf() && i < 64; i++) {
                        assertNotNull(ns.lbaFormat(i).toString());
                    }
                }
                case 2 -> {
                    List<Long> ids = ActiveNamespaceList.decode(padded(body, ActiveNamespaceList.SIZE));
                    MemorySegment out = MemorySegment.ofArray(new byte[ActiveNamespaceList.SIZE]);
                    ActiveNamespaceList.encode(out, ids);
                    FuzzSupport.assertStable(ids, ActiveNamespaceList.decode(out), input);
                }
                case 3 -> {
                    var list = NamespaceDescriptorList.decode(padded(body, 4096));
                    MemorySegment out = MemorySegment.ofArray(new byte[4096]);
                    NamespaceDescriptorList.encode(out, list);
                    FuzzSupport.assertStable(list, NamespaceDescriptorList.decode(out), input);
                }
                case 4 -> discoveryLog(body);
                case 5 -> {
                    ChangedNamespaceList c = ChangedNamespaceList.decode(padded(body, 4096));
                    MemorySegment out = MemorySegment.ofArray(new byte[4096]);
                    c.encode(out);
                    FuzzSupport.assertStable(c, ChangedNamespaceList.decode(out), input);
                }
                default -> assertNotNull(Status.fromField(CompletionQueueEntry.wrap(padded(body, 16)).statusField()).toString());
            }
        }, MalformedStructureException.class);
    }

    /** The header, then the records the buffer holds (never NUMREC of them: NUMREC is the peer's claim). */
    private static void discoveryLog(byte[] body) {
        MemorySegment page = padded(body, DiscoveryLogPage.HEADER_SIZE);
        DiscoveryLogPage log = DiscoveryLogPage.wrap(page);
        readAll(log);
        long inBuffer = (page.byteSize() - DiscoveryLogPage.HEADER_SIZE) / DiscoveryLogEntry.SIZE;
        for (long i = 0; i < Math.min(inBuffer, log.numrec()); i++) {
            DiscoveryLogEntry e = log.entry(i);
            readAll(e);
            Nqn nqn = e.subsystemNqn();
            assertNotNull(nqn.toString());
        }
    }

    private static MemorySegment padded(byte[] body, int size) {
        return MemorySegment.ofArray(body.length >= size ? body : Arrays.copyOf(body, size));
    }

    /** Calls every public no-argument accessor, as the CLI's identify/discover text output does. */
    private static void readAll(Object view) {
        for (Method m : accessors(view.getClass())) {
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
                            && !m.getName().equals("segment") && !m.getName().equals("hashCode"))
                    .sorted(java.util.Comparator.comparing(Method::getName))
                    .toList();
        }
    };

    private static List<Method> accessors(Class<?> type) {
        return ACCESSORS.get(type);
    }

    // ---- short generative run in mvn verify ---------------------------------------------------------------

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void fewThousandMutationsOfTheCorpusPerDecoder() {
        int n = FuzzSupport.shortRunInputs(SHORT_RUN);
        FuzzSupport.shortRun(getClass(), "capsule", 64 + 1024, n, 2, this::capsule);
        FuzzSupport.shortRun(getClass(), "connectData", 1100, n, 1.5, this::connectData);
        FuzzSupport.shortRun(getClass(), "rdmaCm", 300, n, 1, this::rdmaCm);
        FuzzSupport.shortRun(getClass(), "tcpPdu", 300, n, 1, this::tcpPdu);
        FuzzSupport.shortRun(getClass(), "hostData", 4200, n, 2, this::hostData);
        FuzzSupport.shortRun(getClass(), "authMessage", 1200, n, 2, this::authMessage);
    }

    // ---- DH-HMAC-CHAP messages (Authentication Send/Receive data) ----------------------------------------------

    private static final io.nvmf4j.protocol.auth.DhchapKeys AUTH_KEYS = new io.nvmf4j.protocol.auth.DhchapKeys(
            io.nvmf4j.protocol.auth.DhchapSecret.of(0, new byte[32]), null, java.util.Set.of(),
            java.util.Set.of(io.nvmf4j.protocol.auth.DhchapDhGroup.NULL));
    private static final java.security.SecureRandom AUTH_RANDOM = new java.security.SecureRandom();

    /**
     * The data of an Authentication Send or Receive: every message decodes or is refused with
     * {@link MalformedStructureException}, what decodes re-encodes stably, and the controller's state machine takes
     * the bytes in any step without throwing.
     */
    @FuzzTest(maxDuration = "10m")
    void authMessage(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT, () -> decodeAuth(input),
                MalformedStructureException.class);
    }

    private static void decodeAuth(byte[] input) {
        MemorySegment data = MemorySegment.ofArray(input);
        try {
            io.nvmf4j.protocol.auth.AuthMessage m = io.nvmf4j.protocol.auth.AuthMessage.decode(data);
            byte[] once = m.toBytes();
            byte[] twice = io.nvmf4j.protocol.auth.AuthMessage.decode(MemorySegment.ofArray(once)).toBytes();
            if (!Arrays.equals(once, twice)) {
                throw new AssertionError("authentication message not stable: " + m);
            }
        } catch (MalformedStructureException e) {
            requireMessage(e);
        }
        io.nvmf4j.protocol.auth.DhchapControllerSession c = new io.nvmf4j.protocol.auth.DhchapControllerSession(
                AUTH_KEYS, "nqn.2014-08.org.nvmexpress:uuid:h", "nqn.2026-12.io.nvmf4j:s", AUTH_RANDOM);
        c.onSend(data);
        c.onReceive();
        c.onSend(data);
        c.onReceive();
    }
}
