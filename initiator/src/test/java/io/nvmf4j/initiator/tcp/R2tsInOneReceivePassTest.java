package io.nvmf4j.initiator.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.initiator.TestRequest;
import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.protocol.tcp.PduDigest;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * R2Ts for writes whose data the host sends from the caller's memory arrive together, as a controller that answers
 * a burst of commands sends them: the host holds their H2CData back while it walks what it received and writes
 * them after the walk (as SPDK's nvme_tcp flushes a qpair's queued PDUs once per poll). Whatever the batching,
 * each write's data must leave whole, in order, from its own memory, with its digests right: more R2Ts than the
 * host holds back at once, and an R2T longer than MAXH2CDATA (several H2CData from one memory) among them.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class R2tsInOneReceivePassTest {

    /** The controller's MAXH2CDATA here. */
    private static final int MAX_H2C_DATA = 8192;

    private FakeTcpController controller;
    private TcpHostQueue queue;
    private final LinkedBlockingQueue<String> failures = new LinkedBlockingQueue<>();

    @AfterEach
    void close() throws Exception {
        if (queue != null) {
            queue.close();
        }
        if (controller != null) {
            controller.close();
        }
    }

    @Test
    void twentyR2tsInOneSegmentAreAnsweredInOrderEachFromItsOwnMemory() throws Exception {
        connect(true, true, 3);
        List<Write> writes = submitWrites(20, 4096);
        sendR2ts(writes, 0, 4096);
        for (Write w : writes) {
            assertH2cData(w, 0, 4096, true);
        }
        completeAll(writes);
    }

    @Test
    void r2tsLongerThanMaxH2cDataAreAnsweredPieceByPieceInOrder() throws Exception {
        connect(false, true, 0);
        List<Write> writes = submitWrites(3, 2 * MAX_H2C_DATA);
        sendR2ts(writes, 0, 2 * MAX_H2C_DATA);
        for (Write w : writes) {
            assertH2cData(w, 0, MAX_H2C_DATA, false);
            assertH2cData(w, MAX_H2C_DATA, MAX_H2C_DATA, true);
        }
        completeAll(writes);
    }

    @Test
    void r2tsForTheSecondHalvesFollowThoseForTheFirstHalves() throws Exception {
        connect(true, false, 1);
        List<Write> writes = submitWrites(5, 8192);
        sendR2ts(writes, 0, 4096);
        for (Write w : writes) {
            assertH2cData(w, 0, 4096, true);
        }
        sendR2ts(writes, 4096, 4096);
        for (Write w : writes) {
            assertH2cData(w, 4096, 4096, true);
        }
        completeAll(writes);
    }

    /**
     * One write: its request, the CID the host gave it, its data (random: no two ranges of one write look alike,
     * so a PDU carrying another range's bytes is caught).
     */
    private record Write(TestRequest request, int cid, int seed, byte[] data) {
        byte expected(int at) {
            return data[at];
        }
    }

    private void connect(boolean headerDigest, boolean dataDigest, int cpda) throws Exception {
        controller = new FakeTcpController(cpda, MAX_H2C_DATA);
        queue = controller.connectHost(32, headerDigest, dataDigest, failures);
    }

    /** {@code count} writes of {@code bytes} from direct buffers of their own, each with its own pattern. */
    private List<Write> submitWrites(int count, int bytes) throws Exception {
        List<Write> writes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] data = new byte[bytes];
            new Random(i + 1).nextBytes(data);
            ByteBuffer memory = ByteBuffer.allocateDirect(bytes).put(0, data);
            TestRequest r = TestRequest.writeInPlace(16L * i, memory);
            queue.submit(r);
            writes.add(new Write(r, FakeTcpController.commandId(expectPdu(PduType.CAPSULE_CMD)), i + 1, data));
        }
        return writes;
    }

    /** One R2T per write, all in one send: the host reads them in one receive pass. */
    private void sendR2ts(List<Write> writes, long offset, long length) throws Exception {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (Write w : writes) {
            all.writeBytes(controller.r2t(w.cid(), w.cid() & 0xFF, offset, length).toArray(ValueLayout.JAVA_BYTE));
        }
        controller.send(all.toByteArray());
    }

    private void completeAll(List<Write> writes) throws Exception {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (Write w : writes) {
            all.writeBytes(controller.capsuleResp(w.cid(), 0).toArray(ValueLayout.JAVA_BYTE));
        }
        controller.send(all.toByteArray());
        for (Write w : writes) {
            assertEquals(0, w.request().done.get(10, TimeUnit.SECONDS), "status of write " + w.seed());
        }
        assertEquals(null, failures.poll(), "queue failures");
    }

    private byte[] expectPdu(PduType type) throws Exception {
        return controller.expectPdu(type, failures);
    }

    /** The next PDU is the H2CData of {@code w}'s bytes at {@code offset}, whole, with its digests right. */
    private void assertH2cData(Write w, int offset, int length, boolean last) throws Exception {
        MemorySegment pdu = MemorySegment.ofArray(expectPdu(PduType.H2C_DATA));
        String what = "H2CData of write " + w.seed() + " at " + offset;
        assertEquals(w.cid(), DataPdu.commandId(pdu), what + ": CCCID");
        assertEquals(w.cid() & 0xFF, DataPdu.transferTag(pdu), what + ": TTAG");
        assertEquals(offset, DataPdu.dataOffset(pdu), what + ": DATAO");
        assertEquals(length, DataPdu.dataLength(pdu), what + ": DATAL");
        assertEquals(last, (PduHeader.flags(pdu) & PduHeader.FLAG_LAST_PDU) != 0, what + ": LAST_PDU");
        NegotiatedParameters n = controller.negotiated();
        int pdo = n.dataOffset(PduType.H2C_DATA);
        assertEquals(pdo, PduHeader.dataOffset(pdu), what + ": PDO");
        if (n.headerDigest()) {
            assertTrue(PduDigest.matches(pdu, 0, PduType.H2C_DATA.headerLength()), what + ": header digest");
        }
        if (n.dataDigest()) {
            assertTrue(PduDigest.matches(pdu, pdo, pdo + length), what + ": data digest");
        }
        for (int i = 0; i < length; i++) {
            assertEquals(w.expected(offset + i), pdu.get(ValueLayout.JAVA_BYTE, pdo + i), what + ": byte " + i);
        }
    }
}
