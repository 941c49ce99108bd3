package io.nvmf4j.initiator.fake;

import io.nvmf4j.initiator.fake.ScriptedController.Hostility;
import io.nvmf4j.initiator.fake.ScriptedController.Received;
import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.fabrics.FabricsCommandType;
import io.nvmf4j.protocol.rdma.RdmaCmRequest;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import io.nvmf4j.protocol.sgl.SglDescriptor;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.WcOpcode;
import io.nvmf4j.verbs.WcStatus;
import io.nvmf4j.verbs.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

/**
 * One queue of the {@link ScriptedController}, on its own thread: takes each capsule the host sends, records it,
 * has {@link AdminCommands} or {@link IoCommands} answer it, moves the data with RDMA Read or Write and sends the
 * response capsule, one command at a time (as nvmet_rdma_handle_command() and nvmet_rdma_queue_response() do for
 * a real target, without the pipelining). The script's misuse of the host's keyed SGLs
 * ({@link ScriptedController.Hostility}) happens here, on the data transfers.
 */
final class ScriptedQueue {
    private final ScriptedController controller;
    final RdmaCmRequest cm;
    final int slots;
    final int capsule;
    final CompletionQueue cq;
    final MemoryRegion recv;
    final MemoryRegion send;
    final MemoryRegion data;
    RdmaConnection connection;
    final ArrayDeque<Long> readyRecvs = new ArrayDeque<>();
    final ArrayDeque<int[]> readyLengths = new ArrayDeque<>();
    int qid;

    ScriptedQueue(ScriptedController controller, RdmaCmRequest cm, RdmaDevice device, ProtectionDomain pd,
            Arena arena) throws Exception {
        this.controller = controller;
        this.cm = cm;
        this.qid = cm.qid().value();
        this.slots = cm.hrqsize();
        this.capsule = SubmissionQueueEntry.SIZE + (qid == 0 ? 0 : controller.script.inCapsuleBytes);
        this.cq = device.createCompletionQueue(slots * 4 + 8);
        this.recv = pd.register(arena.allocate((long) slots * capsule, 64), EnumSet.of(AccessFlag.LOCAL_WRITE));
        this.send = pd.register(arena.allocate(16, 16), EnumSet.of(AccessFlag.LOCAL_WRITE));
        this.data = pd.register(arena.allocate(Math.max(1 << 20, controller.script.blockSize), 4096),
                EnumSet.of(AccessFlag.LOCAL_WRITE));
    }

    void postReceives(io.nvmf4j.verbs.QueuePair qp) throws io.nvmf4j.verbs.VerbsException {
        for (int i = 0; i < slots; i++) {
            qp.postReceive(new ReceiveWorkRequest(1).wrId(i).local(recv, (long) i * capsule, capsule));
        }
    }

    void run() {
        WorkCompletion[] wcs = {new WorkCompletion()};
        try {
            while (controller.running() && connection.isConnected()) {
                int n = cq.await(wcs, 100, TimeUnit.MILLISECONDS);
                if (n == 0) {
                    continue;
                }
                WorkCompletion wc = wcs[0];
                if (wc.status() != WcStatus.SUCCESS) {
                    return;
                }
                if (wc.opcode() == WcOpcode.RECV) {
                    handle((int) wc.wrId(), wc.byteLength());
                }
                while (!readyRecvs.isEmpty()) {
                    long slot = readyRecvs.pollFirst();
                    handle((int) slot, readyLengths.pollFirst()[0]);
                }
            }
        } catch (Exception e) {
            if (controller.running() && connection.isConnected()
                    && controller.script.hostility == Hostility.NONE) {
                e.printStackTrace();
            }
        }
    }

    private boolean hostile(Hostility h) {
        return controller.script.hostility == h && controller.script.hostileQueue == qid;
    }

    private void handle(int slot, int length) throws Exception {
        MemorySegment capsuleBytes = recv.segment().asSlice((long) slot * capsule, capsule);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.wrap(capsuleBytes);
        byte[] raw = sqe.segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        int sglId = Wire.u8(sqe.dptr(), 15);
        int dataLength = (sglId >>> 4) == 4 ? Wire.u24(sqe.dptr(), 8) : (int) Wire.u32(sqe.dptr(), 8);
        controller.received.add(new Received(qid, sqe.opcode(), sqe.cid(), sqe.nsid(), sglId >>> 4, sglId & 0xF,
                dataLength, raw));
        // the in-capsule data must be read before the receive is re-posted
        byte[] inCapsule = length > 64 ? capsuleBytes.asSlice(64, length - 64).toArray(
                java.lang.foreign.ValueLayout.JAVA_BYTE) : new byte[0];
        int cid = sqe.cid();
        connection.queuePair().postReceive(new ReceiveWorkRequest(1).wrId(slot)
                .local(recv, (long) slot * capsule, capsule));
        if (qid != 0 && sqe.opcode() != FabricsCommandType.OPCODE) {
            if (controller.script.silentIo) {
                return;
            }
            if (controller.script.closeAfterFirstIo) {
                controller.script.closeAfterFirstIo = false;
                controller.dropConnections();
                return;
            }
            if (controller.script.closeOnEveryIo) {
                controller.dropConnections();
                return;
            }
        }
        Response r = execute(sqe, raw, inCapsule);
        KeyedSglDescriptor k = (Byte.toUnsignedInt(raw[39]) >>> 4) == SglDescriptor.TYPE_KEYED_DATA_BLOCK
                ? keyed(raw) : null;
        // nvmet_rdma_queue_response(): a keyed SGL with the invalidate subtype is answered by Send with Invalidate
        int invalidate = k != null && k.invalidate() && k.length() > 0 ? k.key() : 0;
        boolean answerWithInvalidate = invalidate != 0;
        if (r.toHost() > 0) {
            int written = r.toHost();
            if (hostile(Hostility.WRITE_PAST_END)) {
                data.segment().asSlice(written, 4096).fill((byte) 0xEE);
                written += 4096;
            }
            if (hostile(Hostility.WRITE_WITH_PREVIOUS_KEY) && controller.previous != null) {
                connection.queuePair().postSend(new SendWorkRequest(1).opcode(SendOpcode.RDMA_WRITE)
                        .signaled(false).local(data, 0, r.toHost())
                        .remote(controller.previous.address(), controller.previous.key()));
            }
            long address = hostile(Hostility.WRITE_AT_PREVIOUS_ADDRESS) && controller.previous != null
                    ? controller.previous.address() : k.address();
            if (hostile(Hostility.INVALIDATE_ANOTHER_COMMANDS_KEY)) {
                invalidate = nextCommandsKey();
                answerWithInvalidate = true;
            }
            SendWorkRequest write = new SendWorkRequest(1).opcode(SendOpcode.RDMA_WRITE).signaled(false)
                    .local(data, 0, written).remote(address, k.key());
            connection.queuePair().postSend(write.next(response(cid, r, answerWithInvalidate, invalidate)));
        } else {
            connection.queuePair().postSend(response(cid, r, answerWithInvalidate, invalidate));
        }
        if (k != null && k.length() > 0 && qid == controller.script.hostileQueue && controller.previous == null) {
            controller.previous = k; // the first command served honestly: the one the hostile ones aim at
        }
        waitFor(WcOpcode.SEND);
    }

    /** Waits for the host's next capsule (handled after this one) and returns the key of its keyed SGL. */
    private int nextCommandsKey() throws Exception {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (readyRecvs.isEmpty() && System.nanoTime() < deadline) {
            if (cq.await(wcs, 50, TimeUnit.MILLISECONDS) == 1 && wcs[0].opcode() == WcOpcode.RECV
                    && wcs[0].status() == WcStatus.SUCCESS) {
                readyRecvs.addLast(wcs[0].wrId());
                readyLengths.addLast(new int[] {wcs[0].byteLength()});
            }
        }
        if (readyRecvs.isEmpty()) {
            throw new IllegalStateException("scripted controller: the host sent no second command");
        }
        long slot = readyRecvs.peekFirst();
        byte[] next = recv.segment().asSlice(slot * capsule, SubmissionQueueEntry.SIZE)
                .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
        return keyed(next).key();
    }

    private SendWorkRequest response(int cid, Response r, boolean withInvalidate, int rkey) {
        CompletionQueueEntry cqe = CompletionQueueEntry.wrap(send.segment()).clear();
        cqe.cid(cid).sqId(qid).sqHead(0).result(r.result()).statusField(r.status().toField());
        SendWorkRequest wr = new SendWorkRequest(1).local(send, 0, 16);
        return withInvalidate ? wr.opcode(SendOpcode.SEND_WITH_INVALIDATE).invalidateRkey(rkey)
                : wr.opcode(SendOpcode.SEND);
    }

    private void waitFor(WcOpcode opcode) throws Exception {
        WorkCompletion[] wcs = {new WorkCompletion()};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (cq.await(wcs, 50, TimeUnit.MILLISECONDS) == 0) {
                continue;
            }
            WorkCompletion wc = wcs[0];
            if (wc.status() != WcStatus.SUCCESS) {
                controller.remoteErrors.add("q" + qid + " " + wc.opcode() + " " + wc.status());
                throw new IllegalStateException("scripted controller: " + wc);
            }
            if (wc.opcode() == opcode) {
                return;
            }
            if (wc.opcode() == WcOpcode.RECV) {
                // handled after the current command: one command at a time per queue
                readyRecvs.addLast(wc.wrId());
                readyLengths.addLast(new int[] {wc.byteLength()});
            }
        }
        throw new IllegalStateException("scripted controller: no " + opcode + " completion");
    }

    /** Fetches host data into {@code data} (keyed: RDMA Read; in-capsule: copy). */
    void fetch(byte[] raw, byte[] inCapsule, int length) throws Exception {
        int type = Byte.toUnsignedInt(raw[39]) >>> 4;
        if (type == 0) {
            MemorySegment.copy(MemorySegment.ofArray(inCapsule), 0, data.segment(), 0, length);
            return;
        }
        KeyedSglDescriptor k = keyed(raw);
        int asked = hostile(Hostility.READ_PAST_END) ? length + 4096 : length;
        connection.queuePair().postSend(new SendWorkRequest(1).opcode(SendOpcode.RDMA_READ)
                .local(data, 0, asked).remote(k.address(), k.key()));
        waitFor(WcOpcode.RDMA_READ);
        if (asked > length) {
            controller.stolen.add(data.segment().asSlice(length, asked - length)
                    .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        }
    }

    static KeyedSglDescriptor keyed(byte[] raw) {
        return (KeyedSglDescriptor) SglDescriptor.decode(MemorySegment.ofArray(raw).asSlice(24, 16));
    }

    private Response execute(SubmissionQueueEntry sqe, byte[] raw, byte[] inCapsule) throws Exception {
        if (sqe.opcode() == FabricsCommandType.OPCODE) {
            return controller.adminCommands.fabrics(sqe, raw, inCapsule, this);
        }
        if (qid == 0) {
            return controller.adminCommands.admin(sqe, raw, data);
        }
        return controller.ioCommands.io(sqe, raw, inCapsule, this);
    }
}
