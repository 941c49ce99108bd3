package io.nvmf4j.target;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.Status;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * A scripted host over {@link LoopTransportQueue}: builds fabrics capsules by their spec offsets, submits them
 * the way a transport does (prepare, check direction and length, hand over the data buffer, execute) and returns
 * the completed request.
 */
final class LoopHost {

    /** CC as a Linux host writes it to enable: EN, IOSQES 6 (64 B), IOCQES 4 (16 B), CSS NVM, MPS 4 KiB. */
    static final int CC_ENABLE_NVM = 0x0046_0001;

    final NvmeTarget target;
    final Port port;
    final String hostNqn;
    final byte[] hostId = new byte[16];
    /** The peer address its queues report to the core (null: the transport does not know one). */
    String peerAddress;
    final Arena arena = Arena.ofAuto();
    Queue admin;
    int cntlid = -1;
    final Map<Integer, Queue> ioQueues = new HashMap<>();
    private int nextCid = 1;

    record Queue(SubmissionQueue sq, LoopTransportQueue transport) {
    }

    LoopHost(NvmeTarget target, Port port, String hostNqn) {
        this.target = target;
        this.port = port;
        this.hostNqn = hostNqn;
        for (int i = 0; i < 16; i++) {
            hostId[i] = (byte) (0xA0 + i);
        }
    }

    Queue openQueue() {
        LoopTransportQueue t = new LoopTransportQueue();
        t.remoteAddress = peerAddress;
        return new Queue(target.createQueue(port, t), t);
    }

    MemorySegment buffer(long size) {
        return arena.allocate(Math.max(size, 1), 4096).asSlice(0, size);
    }

    /** Submits like a transport: prepare; if it survives, give it {@code data} (sized as the SGL) and execute. */
    Request submit(Queue q, SubmissionQueueEntry sqe, MemorySegment data) {
        sqe.psdt(SubmissionQueueEntry.PSDT_SGL_MPTR_CONTIGUOUS);
        if (sqe.cid() == 0) {
            sqe.cid(nextCid++);
        }
        Request r = new Request().reset(sqe);
        if (q.sq().prepare(r)) {
            r.data(data);
            q.sq().execute(r);
            // a waiting command (authentication work on the target's executor) completes on the queue's thread:
            // this one; an Asynchronous Event Request waits for an event and is returned as it is
            if (!r.isCompleted() && isAuthentication(sqe)) {
                q.transport().runTasksUntil(r::isCompleted, 20_000);
            }
        }
        return r;
    }

    private static boolean isAuthentication(SubmissionQueueEntry sqe) {
        if (sqe.opcode() != io.nvmf4j.protocol.fabrics.FabricsCommandType.OPCODE) {
            return false;
        }
        int fctype = Wire.u8(sqe.segment(), FabricsCommands.OFFSET_FCTYPE);
        return fctype == io.nvmf4j.protocol.fabrics.FabricsCommandType.AUTH_SEND.value()
                || fctype == io.nvmf4j.protocol.fabrics.FabricsCommandType.AUTH_RECEIVE.value();
    }

    Request submit(Queue q, SubmissionQueueEntry sqe) {
        return submit(q, sqe, MemorySegment.NULL);
    }

    // ---- fabrics capsules, by the offsets of NVMe-oF 1.1 Figures 19-20 (Linux struct nvmf_connect_command) ----

    static SubmissionQueueEntry connectSqe(int qid, int sqsize, long katoMillis) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        sqe.opcode(0x7F);
        Wire.u8(sqe.segment(), 4, 0x01); // FCTYPE Connect
        Wire.u16(sqe.segment(), 40, 0); // RECFMT
        Wire.u16(sqe.segment(), 42, qid);
        Wire.u16(sqe.segment(), 44, sqsize);
        Wire.u32(sqe.segment(), 48, katoMillis);
        return sqe;
    }

    MemorySegment connectData(int cntlid, String subnqn, String connectHostNqn) {
        MemorySegment d = buffer(1024);
        d.fill((byte) 0);
        MemorySegment.copy(MemorySegment.ofArray(hostId), 0, d, 0, 16);
        Wire.u16(d, 16, cntlid);
        Nqn.writeField(d.asSlice(256, 256), subnqn);
        Nqn.writeField(d.asSlice(512, 256), connectHostNqn);
        return d;
    }

    Request connectAdmin(String subnqn, long katoMillis) {
        admin = openQueue();
        Request r = submit(admin, connectSqe(0, 31, katoMillis), connectData(0xFFFF, subnqn, hostNqn));
        if (r.status().isSuccess()) {
            cntlid = r.cqe().dw0() & 0xFFFF;
        }
        return r;
    }

    Request connectIo(String subnqn, int qid, int sqsize) {
        Queue q = openQueue();
        Request r = submit(q, connectSqe(qid, sqsize, 0), connectData(cntlid, subnqn, hostNqn));
        if (r.status().isSuccess()) {
            ioQueues.put(qid, q);
        }
        return r;
    }

    static SubmissionQueueEntry propertySet(int offset, long value) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        sqe.opcode(0x7F);
        Wire.u8(sqe.segment(), 4, 0x00);
        Wire.u8(sqe.segment(), 40, 0); // ATTRIB: 4 bytes
        Wire.u32(sqe.segment(), 44, offset);
        Wire.u64(sqe.segment(), 48, value);
        return sqe;
    }

    static SubmissionQueueEntry propertyGet(int offset, boolean eightBytes) {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        sqe.opcode(0x7F);
        Wire.u8(sqe.segment(), 4, 0x04);
        Wire.u8(sqe.segment(), 40, eightBytes ? 1 : 0);
        Wire.u32(sqe.segment(), 44, offset);
        return sqe;
    }

    static SubmissionQueueEntry disconnectSqe() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        sqe.opcode(0x7F);
        Wire.u8(sqe.segment(), 4, 0x08);
        return sqe;
    }

    long getProperty(int offset, boolean eightBytes) {
        Request r = submit(admin, propertyGet(offset, eightBytes));
        assertEquals(Status.SUCCESS, r.status(), "Property Get " + offset);
        return r.cqe().result();
    }

    void setProperty(int offset, long value) {
        Request r = submit(admin, propertySet(offset, value));
        assertEquals(Status.SUCCESS, r.status(), "Property Set " + offset);
    }

    /** Connect the admin queue and enable the controller, as a Linux host does before Identify. */
    LoopHost connectAndEnable(String subnqn) {
        Request r = connectAdmin(subnqn, 0);
        assertTrue(r.status().isSuccess(), () -> "admin Connect: " + r.status());
        setProperty(Controller.REG_CC, CC_ENABLE_NVM);
        assertEquals(1, getProperty(Controller.REG_CSTS, false) & 1, "CSTS.RDY");
        return this;
    }

    Controller controller() {
        return admin.sq().controller();
    }
}
