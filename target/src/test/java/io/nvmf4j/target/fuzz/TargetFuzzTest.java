package io.nvmf4j.target.fuzz;

import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.testsupport.FuzzSupport;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Request;
import io.nvmf4j.target.SubmissionQueue;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.TransportQueue;
import io.nvmf4j.target.backend.RamBackend;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Generative fuzzing of the target's command parsing as a transport drives it (the unit-level entry point the
 * RDMA transport uses: {@link SubmissionQueue#prepare}, then the data the SGL asked for, then
 * {@link SubmissionQueue#execute}): fabrics Connect/Property/Disconnect before and after a Connect, then admin and I/O
 * commands on the queues they created. No exception may reach the transport (NVMe-oF 1.1 section 7.3: an error is
 * a status in the response), and every command gets exactly one response (or is an Asynchronous Event Request left
 * waiting).
 *
 * <p>Input: byte 0 selects the scenario (bit 0: the peer first connects an admin queue to the NVM subsystem and
 * enables it, as a Linux host does; bit 1: ... to the discovery subsystem instead; bit 2: also an I/O queue 1),
 * then commands: 1 byte queue selector (0 admin, 1 I/O, 2 a new queue), 64 bytes of SQE, 2 bytes of data length
 * (for host-to-controller data), the data.
 */
class TargetFuzzTest {

    static final String SUBNQN = "nqn.2026-12.io.nvmf4j:fuzz:ram";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555";
    /** The port's MDTS (8: 1 MiB with 4 KiB pages) bounds what the transport maps; a larger SGL is refused there. */
    static final long MAX_DATA = 1L << 20;

    /** Collects responses, as the RDMA transport would send them. */
    static final class Transport implements TransportQueue {
        final List<Request> responses = new ArrayList<>();
        int disconnects;

        @Override
        public void queueResponse(Request request) {
            responses.add(request);
        }

        @Override
        public void disconnect() {
            disconnects++;
        }
    }

    record Queue(SubmissionQueue sq, Transport transport) {
    }

    @FuzzTest(maxDuration = "10m")
    void fabrics(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT + 64L * input.length, () -> run(input));
    }

    private static void run(byte[] input) {
        if (input.length == 0) {
            return;
        }
        try (NvmeTarget target = new NvmeTarget(); Arena arena = Arena.ofConfined()) {
            Port port = Port.rdma(1, "127.0.0.1", "4420").build();
            Subsystem subsystem = Subsystem.builder(Nqn.parse(SUBNQN)).serial("FUZZ0001").model("nvmf4j fuzz")
                    .allowHost(HOST).build();
            subsystem.addNamespace(SubsystemNamespace.of(1, RamBackend.allocate(64 << 10, 512),
                    SubsystemNamespace.parseNguid("0123456789abcdef0011223344556677"),
                    java.util.UUID.fromString("6c9d8f0e-1a2b-4c3d-8e9f-0a1b2c3d4e5f"), new byte[8]));
            target.addSubsystem(subsystem);
            target.addPort(port);
            port.addSubsystem(subsystem);

            int flags = input[0] & 0xff;
            List<Queue> queues = new ArrayList<>();
            Queue admin = open(target, port, queues);
            if ((flags & 3) != 0) {
                String nqn = (flags & 2) != 0 ? Nqn.DISCOVERY.value() : SUBNQN;
                submit(admin, connectSqe(0, 31), connectData(0xFFFF, nqn), arena);
                int cntlid = admin.transport.responses.getLast().cqe().dw0() & 0xFFFF;
                submit(admin, propertySet(0x14, 0x0046_0001), MemorySegment.NULL, arena);
                if ((flags & 4) != 0) {
                    Queue io = open(target, port, queues);
                    submit(io, connectSqe(1, 31), connectData(cntlid, nqn), arena);
                }
            }
            int at = 1;
            int commands = 0;
            while (at + 1 + SubmissionQueueEntry.SIZE + 2 <= input.length && commands++ < 64) {
                int selector = input[at++] & 0xff;
                byte[] sqeBytes = java.util.Arrays.copyOfRange(input, at, at + SubmissionQueueEntry.SIZE);
                at += SubmissionQueueEntry.SIZE;
                int length = ((input[at] & 0xff) << 8 | (input[at + 1] & 0xff)) & 0x1FFF;
                at += 2;
                int take = Math.min(length, input.length - at);
                MemorySegment data = MemorySegment.ofArray(input).asSlice(at, take);
                at += take;
                Queue q = switch (selector % 3) {
                    case 0 -> queues.getFirst();
                    case 1 -> queues.size() > 1 ? queues.get(1) : queues.getFirst();
                    default -> open(target, port, queues);
                };
                submit(q, SubmissionQueueEntry.wrap(MemorySegment.ofArray(sqeBytes)), data, arena);
            }
        }
    }

    private static Queue open(NvmeTarget target, Port port, List<Queue> queues) {
        Transport t = new Transport();
        Queue q = new Queue(target.createQueue(port, t), t);
        queues.add(q);
        return q;
    }

    /**
     * As the RDMA transport does: prepare; if accepted, hand over a buffer of the length SGL1 describes (keyed:
     * what the transport would RDMA Read or Write, up to MDTS; data block: the in-capsule bytes; SglMapping refuses
     * anything else before the core sees it), execute; then exactly one response, unless the command waits (an AER)
     * or the queue was torn down. The core compares the SGL length with what the command implies.
     */
    private static void submit(Queue q, SubmissionQueueEntry sqe, MemorySegment hostData, Arena arena) {
        Request r = new Request().reset(sqe);
        int before = q.transport.responses.size();
        if (q.sq().prepare(r)) {
            long length = sglLength(sqe, hostData);
            if (length < 0) {
                return; // the transport fails the command itself (SglMapping), the core never runs it
            }
            MemorySegment buffer = length == 0 ? MemorySegment.NULL : arena.allocate(length, 8);
            if (length > 0 && r.dataDirection() != null) {
                MemorySegment.copy(hostData, 0, buffer, 0, Math.min(length, hostData.byteSize()));
            }
            r.data(buffer);
            q.sq().execute(r);
        }
        int responses = q.transport.responses.size() - before;
        if (responses > 1 || (responses == 0 && !r.state().waiting() && !r.isCompleted()
                && !q.sq().isDestroyed() && !isAsyncEventRequest(sqe))) {
            throw new AssertionError(responses + " responses to " + sqe);
        }
    }

    /** The data length the transport would give the core for SGL1, or -1 when the transport refuses it. */
    private static long sglLength(SubmissionQueueEntry sqe, MemorySegment inCapsule) {
        int identifier = Wire.u8(sqe.segment(), 24 + 15);
        long length = switch (identifier >>> 4) {
            case 0x4 -> Wire.u24(sqe.segment(), 24 + 8);                      // keyed data block
            case 0x0 -> (identifier & 0xF) == 1 && Wire.u64(sqe.segment(), 24) == 0
                    && Wire.u32(sqe.segment(), 24 + 8) <= inCapsule.byteSize()
                    ? Wire.u32(sqe.segment(), 24 + 8) : -1;                        // in-capsule, offset 0
            default -> -1;
        };
        return length > MAX_DATA ? -1 : length;
    }

    private static boolean isAsyncEventRequest(SubmissionQueueEntry sqe) {
        return sqe.opcode() == 0x0C;
    }

    static SubmissionQueueEntry connectSqe(int qid, int sqsize) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        sqe.opcode(0x7F).psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS).cid(1);
        Wire.u8(sqe.segment(), 4, 0x01);
        Wire.u16(sqe.segment(), 42, qid);
        Wire.u16(sqe.segment(), 44, sqsize);
        // SGL1: data block, offset subtype, 1024 bytes (in-capsule Connect data)
        Wire.u32(sqe.segment(), 24 + 8, 1024);
        Wire.u8(sqe.segment(), 24 + 15, 0x01);
        return sqe;
    }

    static MemorySegment connectData(int cntlid, String subnqn) {
        MemorySegment d = MemorySegment.ofArray(new byte[1024]);
        for (int i = 0; i < 16; i++) {
            d.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (0xA0 + i));
        }
        Wire.u16(d, 16, cntlid);
        Nqn.writeField(d.asSlice(256, 256), subnqn);
        Nqn.writeField(d.asSlice(512, 256), HOST);
        return d;
    }

    static SubmissionQueueEntry propertySet(int offset, long value) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        sqe.opcode(0x7F).psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS).cid(2);
        Wire.u8(sqe.segment(), 4, 0x00);
        Wire.u32(sqe.segment(), 44, offset);
        Wire.u64(sqe.segment(), 48, value);
        return sqe;
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void fewThousandMutationsOfTheCorpus() {
        FuzzSupport.shortRun(getClass(), "fabrics", 4096, FuzzSupport.shortRunInputs(2000), 4, this::fabrics);
    }
}
