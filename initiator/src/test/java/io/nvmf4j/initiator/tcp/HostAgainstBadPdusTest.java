package io.nvmf4j.initiator.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.initiator.TestRequest;
import io.nvmf4j.protocol.CompletionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.tcp.CapsulePdu;
import io.nvmf4j.protocol.tcp.DataPdu;
import io.nvmf4j.protocol.tcp.NegotiatedParameters;
import io.nvmf4j.protocol.tcp.PduDigest;
import io.nvmf4j.protocol.tcp.PduHeader;
import io.nvmf4j.protocol.tcp.PduType;
import io.nvmf4j.protocol.tcp.TermReq;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A TCP host queue against a controller that sends PDUs the host must refuse (NVMe/TCP 1.0a, 3.6.2; Linux
 * {@code nvme_tcp_recv_pdu()}, {@code nvme_tcp_handle_r2t()}, {@code nvme_tcp_handle_c2h_data()}): each ends the
 * connection, with an H2CTermReq naming the fatal error where the host found one in the controller's header, and
 * without one for a C2HTermReq or a data digest error; the queue fails as on a socket error (the command waits for
 * the reconnect), and not a byte lands outside the read's memory. A scripted controller stands on the other end.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class HostAgainstBadPdusTest {

    private static final int READ_BYTES = 4096;
    private static final int WRITE_BYTES = 16384;
    /** The controller's MAXH2CDATA here: a write's data comes in several H2CData PDUs. */
    private static final int MAX_H2C_DATA = 8192;
    private static final byte CANARY = 0x5A;

    private FakeTcpController controller;
    private TcpHostQueue queue;
    private final LinkedBlockingQueue<String> failures = new LinkedBlockingQueue<>();
    private final Arena arena = Arena.ofShared();
    /** The read's memory with a canary page before and after it. */
    private MemorySegment readMemory;
    private TestRequest read;
    private int readCid;
    private TestRequest write;
    private int writeCid;

    @AfterEach
    void close() throws Exception {
        if (queue != null) {
            queue.close();
        }
        if (controller != null) {
            controller.close();
        }
        arena.close();
    }

    // ---- PDUs the host never receives, and broken common headers -----------------------------------------------

    @ParameterizedTest(name = "PDU type {0}")
    @ValueSource(ints = {0x00, 0x02, 0x04, 0x06, 0x0A, 0xFF}) // ICReq, H2CTermReq, CapsuleCmd, H2CData, reserved
    void aPduTypeTheHostNeverReceivesIsAnInvalidHeaderField(int type) throws Exception {
        connect(false, false, 0);
        send(header(type, 0, 24, 0, 24));
        assertRefusedWithTermReq(0x01, PduHeader.OFFSET_TYPE, "not one the host receives");
    }

    @Test
    void anIcRespAfterTheConnectionIsSetUpIsAPduSequenceError() throws Exception {
        connect(false, false, 0);
        send(header(PduType.IC_RESP.code(), 0, 128, 0, 128));
        assertRefusedWithTermReq(0x02, 0, "after the connection was set up");
    }

    @Test
    void anHlenThatIsNotTheTypesIsRefused() throws Exception {
        connect(false, false, 0);
        send(header(PduType.CAPSULE_RESP.code(), 0, 16, 0, 24));
        assertRefusedWithTermReq(0x01, PduHeader.OFFSET_HLEN, "HLEN 16");
    }

    @Test
    void aPlenShorterThanTheHeaderIsRefused() throws Exception {
        connect(false, false, 0);
        send(header(PduType.CAPSULE_RESP.code(), 0, 24, 0, 16));
        assertRefusedWithTermReq(0x01, PduHeader.OFFSET_PLEN, "PLEN 16");
    }

    @Test
    void aPlenBeyondWhatAPduWithoutDataMayHaveIsRefusedBeforeItIsRead() throws Exception {
        connect(false, false, 0);
        send(header(PduType.CAPSULE_RESP.code(), 0, 24, 0, 0xFFFF_FFF0L));
        assertRefusedWithTermReq(0x01, PduHeader.OFFSET_PLEN, "carries no data");
    }

    @Test
    void aC2hDataClaimingFourGibibytesIsRefusedBeforeAByteIsPlaced() throws Exception {
        connect(false, false, 0);
        MemorySegment pdu = c2hData(readCid, 0, new byte[READ_BYTES], 0);
        Wire.u32(pdu, PduHeader.OFFSET_PLEN, 0xFFFF_FFF0L);
        Wire.u32(pdu, DataPdu.OFFSET_LENGTH, 0xFFFF_FFF0L - 24);
        send(pdu);
        assertRefusedWithTermReq(0x04, 0, "DATAL " + (0xFFFF_FFF0L - 24));
        assertReadMemoryUntouched(0);
    }

    @ParameterizedTest(name = "PDO {0}")
    @ValueSource(ints = {16, 26, 255})  // inside the header, not 4-aligned (HPDA 0), at or past PLEN
    void aPdoOutsideTheDataOrOffTheHostsAlignmentIsRefused(int pdo) throws Exception {
        connect(false, false, 0);
        MemorySegment pdu = c2hData(readCid, 0, new byte[64], 0);
        Wire.u8(pdu, PduHeader.OFFSET_PDO, pdo);
        send(pdu);
        assertRefusedWithTermReq(0x01, PduHeader.OFFSET_PDO, "PDO " + pdo);
        assertReadMemoryUntouched(0);
    }

    /** PDO only means something when the PDU carries data: a CapsuleResp is PLEN long, read to its end. */
    @Test
    void aPduWithoutDataIsReadToItsPlenWhateverItsPdoSays() throws Exception {
        connect(false, false, 0);
        MemorySegment pdu = capsuleResp(readCid, 0);
        Wire.u8(pdu, PduHeader.OFFSET_PDO, 200);
        send(pdu);
        assertEquals(0, read.done.get(10, TimeUnit.SECONDS));
        send(capsuleResp(writeCid, 0)); // the next PDU starts where PLEN said
        assertEquals(0, write.done.get(10, TimeUnit.SECONDS));
        assertTrue(failures.isEmpty(), String.valueOf(failures));
    }

    // ---- R2T ------------------------------------------------------------------------------------------------

    @Test
    void anR2tForAnUnknownCommandIsRefused() throws Exception {
        connect(false, false, 0);
        send(r2t(writeCid ^ 0x1000, 1, 0, WRITE_BYTES)); // the right tag, an earlier use of it
        assertRefusedWithTermReq(0x01, DataPdu.OFFSET_CCCID, "not outstanding");
    }

    @Test
    void anR2tForARead() throws Exception {
        connect(false, false, 0);
        send(r2t(readCid, 1, 0, READ_BYTES));
        assertRefusedWithTermReq(0x01, DataPdu.OFFSET_CCCID, "no data to send by R2T");
        assertReadMemoryUntouched(0);
    }

    @ParameterizedTest(name = "R2TO {0}, R2TL {1}")
    @CsvSource({"0, 0", "0, 16385", "16384, 1", "4096, 4294967295",
            "4294967295, 1"})
    void anR2tOutsideTheWritesDataIsOutOfRange(long offset, long length) throws Exception {
        connect(false, false, 0);
        send(r2t(writeCid, 1, offset, length));
        assertRefusedWithTermReq(0x04, 0, "R2TO " + offset + " R2TL " + length);
    }

    @Test
    void anR2tBelowWhatWasAlreadySentIsOutOfRange() throws Exception {
        connect(false, false, 0);
        send(r2t(writeCid, 1, 0, 8192));
        assertH2cData(writeCid, 1, 0, 8192, 24);
        send(r2t(writeCid, 2, 4096, 8192));
        assertRefusedWithTermReq(0x04, 0, "R2TO 4096");
    }

    /** The write's data, in H2CData PDUs of at most MAXH2CDATA, at the controller's PDU data alignment (CPDA). */
    @Test
    void anR2tIsAnsweredWithH2cDataAlignedToCpda() throws Exception {
        connect(true, true, 3);
        send(r2t(writeCid, 7, 0, WRITE_BYTES));
        assertH2cData(writeCid, 7, 0, MAX_H2C_DATA, 16 * 2); // 24 + HDGST 4, up to 16-byte alignment
        assertH2cData(writeCid, 7, MAX_H2C_DATA, MAX_H2C_DATA, 16 * 2);
        send(capsuleResp(writeCid, 0));
        assertEquals(0, write.done.get(10, TimeUnit.SECONDS));
    }

    // ---- C2HData ----------------------------------------------------------------------------------------------

    @Test
    void aC2hDataForAnUnknownCommandIsRefused() throws Exception {
        connect(false, false, 0);
        send(c2hData(readCid + 2, 0, new byte[512], 0)); // a free tag
        assertRefusedWithTermReq(0x01, DataPdu.OFFSET_CCCID, "not outstanding");
        assertReadMemoryUntouched(0);
    }

    @Test
    void aC2hDataForAWrite() throws Exception {
        connect(false, false, 0);
        send(c2hData(writeCid, 0, new byte[512], 0));
        assertRefusedWithTermReq(0x01, DataPdu.OFFSET_CCCID, "reads no data");
        assertReadMemoryUntouched(0);
    }

    @Test
    void aC2hDataBeyondTheReadsMemoryIsOutOfRange() throws Exception {
        connect(false, false, 0);
        send(c2hData(readCid, 0, filled(READ_BYTES + 512, (byte) 1), 0));
        assertRefusedWithTermReq(0x04, 0, "DATAL " + (READ_BYTES + 512));
        assertReadMemoryUntouched(0);
    }

    @Test
    void aC2hDataOverlappingWhatArrivedIsOutOfRange() throws Exception {
        connect(false, false, 0);
        send(c2hData(readCid, 0, filled(2048, (byte) 1), 0));
        send(c2hData(readCid, 1024, filled(2048, (byte) 2), 0));
        assertRefusedWithTermReq(0x04, 0, "DATAO 1024");
        assertReadMemoryUntouched(2048);
    }

    @Test
    void aC2hDataWithoutDataIsRefused() throws Exception {
        connect(false, true, 0);
        MemorySegment pdu = header(PduType.C2H_DATA.code(), 0, 24, 0, 24);
        Wire.u16(pdu, DataPdu.OFFSET_CCCID, readCid);
        send(pdu);
        assertRefusedWithTermReq(0x01, DataPdu.OFFSET_LENGTH, "without data");
    }

    @Test
    void aC2hDataWithSuccessButNotLastIsRefused() throws Exception {
        connect(false, false, 0);
        send(c2hData(readCid, 0, filled(READ_BYTES, (byte) 1), PduHeader.FLAG_SUCCESS));
        assertRefusedWithTermReq(0x01, PduHeader.OFFSET_FLAGS, "SUCCESS but not LAST_PDU");
    }

    // ---- digests ----------------------------------------------------------------------------------------------

    @Test
    void aWrongHeaderDigestIsAHeaderDigestError() throws Exception {
        connect(true, false, 0);
        MemorySegment pdu = capsuleResp(readCid, 0);
        Wire.u32(pdu, 24, Wire.u32(pdu, 24) ^ 1);
        send(pdu);
        assertRefusedWithTermReq(0x03, 0, "header digest");
        assertFalse(read.done.isDone());
    }

    @Test
    void aWrongDataDigestEndsTheConnectionWithoutATermReq() throws Exception {
        connect(true, true, 0);
        MemorySegment pdu = c2hData(readCid, 0, filled(READ_BYTES, (byte) 3), PduHeader.FLAG_LAST_PDU
                | PduHeader.FLAG_SUCCESS);
        long ddgst = pdu.byteSize() - 4;
        Wire.u32(pdu, ddgst, Wire.u32(pdu, ddgst) ^ 0x8000_0000L);
        send(pdu);
        assertRefusedWithoutTermReq("data digest mismatch");
        assertFalse(read.done.isDone(), "a read whose data failed its digest completed");
    }

    /** Right digests, the data split over several socket reads: the read completes with its data. */
    @Test
    void digestedDataInPiecesCompletesTheRead() throws Exception {
        connect(true, true, 0);
        byte[] data = filled(READ_BYTES, (byte) 0);
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 31);
        }
        byte[] pdu = c2hData(readCid, 0, data, PduHeader.FLAG_LAST_PDU | PduHeader.FLAG_SUCCESS)
                .toArray(ValueLayout.JAVA_BYTE);
        for (int at = 0; at < pdu.length; at += 1000) {
            controller.send(Arrays.copyOfRange(pdu, at, Math.min(pdu.length, at + 1000)));
            Thread.sleep(2);
        }
        assertEquals(0, read.done.get(10, TimeUnit.SECONDS));
        assertArrayEquals(data, readMemory.asSlice(READ_BYTES, READ_BYTES).toArray(ValueLayout.JAVA_BYTE));
        assertTrue(failures.isEmpty(), String.valueOf(failures));
    }

    // ---- CapsuleResp and C2HTermReq ----------------------------------------------------------------------------

    /** The H2CTermReq quotes the CapsuleResp in error (its header, as NVMe/TCP 1.0a, 3.6.2.5 asks). */
    @Test
    void aCapsuleRespForAnUnknownCommandIsRefusedQuotingIt() throws Exception {
        connect(false, false, 0);
        MemorySegment pdu = capsuleResp(0x0FFF, 0);
        send(pdu);
        byte[] termReq = assertRefusedWithTermReq(0x01, CapsulePdu.OFFSET_ENTRY + CompletionQueueEntry.OFFSET_CID,
                "unknown command id 4095");
        assertArrayEquals(pdu.toArray(ValueLayout.JAVA_BYTE),
                Arrays.copyOfRange(termReq, TermReq.HEADER_LENGTH, termReq.length));
        assertFalse(read.done.isDone());
    }

    @Test
    void aC2hTermReqEndsTheConnectionWithItsFesInTheFailure() throws Exception {
        connect(false, false, 0);
        send(c2hTermReq(0x04, 12, 24));
        assertRefusedWithoutTermReq("C2HTermReq: DATA_OUT_OF_RANGE (FEI 12)");
    }

    @Test
    void aC2hTermReqWithAReservedFesStillEndsTheConnection() throws Exception {
        connect(false, false, 0);
        send(c2hTermReq(0x0F, 0, 24));
        assertRefusedWithoutTermReq("reserved FES 15");
    }

    /** Its PLEN beyond 152 bytes: the host does not wait for the rest of it. */
    @Test
    void aMalformedC2hTermReqEndsTheConnectionAtOnce() throws Exception {
        connect(false, false, 0);
        send(c2hTermReq(0x01, 0, 4096).asSlice(0, TermReq.HEADER_LENGTH));
        assertRefusedWithoutTermReq("malformed C2HTermReq (PLEN 4096)");
    }

    // ---- the connection and its checks -------------------------------------------------------------------------

    /** Connects a queue to the scripted controller and submits a read and a write (by R2T); takes their CIDs. */
    private void connect(boolean headerDigest, boolean dataDigest, int cpda) throws Exception {
        controller = new FakeTcpController(cpda, MAX_H2C_DATA);
        queue = controller.connectHost(16, headerDigest, dataDigest, failures);
        readMemory = arena.allocate(3L * READ_BYTES, 64);
        readMemory.fill(CANARY);
        read = TestRequest.read(0, readMemory.asSlice(READ_BYTES, READ_BYTES));
        queue.submit(read);
        readCid = FakeTcpController.commandId(expectPdu(PduType.CAPSULE_CMD));
        byte[] data = new byte[WRITE_BYTES];
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) (i * 7 + 1);
        }
        write = TestRequest.write(64, MemorySegment.ofArray(data));
        queue.submit(write);
        writeCid = FakeTcpController.commandId(expectPdu(PduType.CAPSULE_CMD));
    }

    private byte[] expectPdu(PduType type) throws Exception {
        return controller.expectPdu(type, failures);
    }

    /** The next PDU is H2CData for {@code cid} of {@code length} bytes at {@code offset}, PDO {@code pdo}. */
    private void assertH2cData(int cid, int ttag, int offset, int length, int pdo) throws Exception {
        MemorySegment pdu = MemorySegment.ofArray(expectPdu(PduType.H2C_DATA));
        assertEquals(cid, DataPdu.commandId(pdu));
        assertEquals(ttag, DataPdu.transferTag(pdu));
        assertEquals(offset, DataPdu.dataOffset(pdu));
        assertEquals(length, DataPdu.dataLength(pdu));
        assertEquals(pdo, PduHeader.dataOffset(pdu));
        NegotiatedParameters n = controller.negotiated();
        if (n.headerDigest()) {
            assertTrue(PduDigest.matches(pdu, 0, PduType.H2C_DATA.headerLength()), "H2CData header digest");
        }
        if (n.dataDigest()) {
            assertTrue(PduDigest.matches(pdu, pdo, pdo + length), "H2CData data digest");
        }
        for (int i = 0; i < length; i++) {
            assertEquals((byte) ((offset + i) * 7 + 1), pdu.get(ValueLayout.JAVA_BYTE, pdo + i), "byte " + i);
        }
    }

    /**
     * The queue failed with {@code reason} in its failure; the host sent an H2CTermReq with this FES and FEI; the
     * commands wait for a reconnect. The H2CTermReq, whole.
     */
    private byte[] assertRefusedWithTermReq(int fes, int fei, String reason) throws Exception {
        List<byte[]> sent = assertFailed(reason);
        assertEquals(1, sent.size(), "PDUs the host sent after the bad one");
        byte[] termReq = sent.getFirst();
        MemorySegment t = MemorySegment.ofArray(termReq);
        assertEquals(PduType.H2C_TERM_REQ.code(), PduHeader.type(t));
        assertEquals(fes, Wire.u16(t, TermReq.OFFSET_FES), "FES");
        assertEquals(fei, Wire.u32(t, TermReq.OFFSET_FEI), "FEI");
        return termReq;
    }

    private void assertRefusedWithoutTermReq(String reason) throws Exception {
        List<byte[]> sent = assertFailed(reason);
        assertEquals(List.of(), sent.stream().map(p -> PduType.of(p[0] & 0xFF)).toList(),
                "PDUs the host sent after the bad one");
    }

    /** The failure as the controller's recovery hears it; then the connection ends: what the host sent till then. */
    private List<byte[]> assertFailed(String reason) throws Exception {
        String failure = failures.poll(10, TimeUnit.SECONDS);
        assertNotNull(failure, "the queue did not fail");
        assertTrue(failure.contains(reason), failure);
        assertEquals(2, queue.pendingCount(), "the read and the write wait for the reconnect");
        assertFalse(read.done.isDone(), "the read ended: " + read.done);
        assertFalse(write.done.isDone(), "the write ended: " + write.done);
        queue.disconnect();
        List<byte[]> sent = new ArrayList<>();
        for (byte[] pdu = controller.nextPdu(); pdu != null; pdu = controller.nextPdu()) {
            sent.add(pdu);
        }
        return sent;
    }

    /** The canaries around the read's memory are whole, and the read's own bytes past {@code placed} too. */
    private void assertReadMemoryUntouched(int placed) {
        for (long i = 0; i < readMemory.byteSize(); i++) {
            if (i < READ_BYTES || i >= READ_BYTES + placed) {
                assertEquals(CANARY, readMemory.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " of the read's memory");
            }
        }
    }

    // ---- PDUs as a controller sends them -----------------------------------------------------------------------

    private void send(MemorySegment pdu) throws Exception {
        controller.send(pdu.toArray(ValueLayout.JAVA_BYTE));
    }

    /** A common header and zeros up to PLEN (at most a page: a longer PLEN is a lie). */
    private static MemorySegment header(int type, int flags, int hlen, int pdo, long plen) {
        MemorySegment p = MemorySegment.ofArray(new byte[(int) Math.min(plen, 4096)]);
        Wire.u8(p, PduHeader.OFFSET_TYPE, type);
        Wire.u8(p, PduHeader.OFFSET_FLAGS, flags);
        Wire.u8(p, PduHeader.OFFSET_HLEN, hlen);
        Wire.u8(p, PduHeader.OFFSET_PDO, pdo);
        Wire.u32(p, PduHeader.OFFSET_PLEN, plen);
        return p;
    }

    private MemorySegment capsuleResp(int cid, int status) {
        return controller.capsuleResp(cid, status);
    }

    private MemorySegment c2hData(int cid, long offset, byte[] data, int flags) {
        NegotiatedParameters n = controller.negotiated();
        MemorySegment p = MemorySegment.ofArray(new byte[256 + data.length]);
        long plen = DataPdu.writeData(p, PduType.C2H_DATA, n, flags, cid, 0, offset, data.length);
        int pdo = n.dataOffset(PduType.C2H_DATA);
        MemorySegment.copy(MemorySegment.ofArray(data), 0, p, pdo, data.length);
        if (n.headerDigest()) {
            PduDigest.write(p, 0, PduType.C2H_DATA.headerLength());
        }
        if (n.dataDigest()) {
            PduDigest.write(p, pdo, pdo + data.length);
        }
        return p.asSlice(0, plen);
    }

    private MemorySegment r2t(int cid, int ttag, long offset, long length) {
        return controller.r2t(cid, ttag, offset, length);
    }

    private static MemorySegment c2hTermReq(int fes, long fei, long plen) {
        MemorySegment p = header(PduType.C2H_TERM_REQ.code(), 0, TermReq.HEADER_LENGTH, 0, plen);
        Wire.u16(p, TermReq.OFFSET_FES, fes);
        Wire.u32(p, TermReq.OFFSET_FEI, fei);
        return p;
    }

    private static byte[] filled(int length, byte value) {
        byte[] b = new byte[length];
        Arrays.fill(b, value);
        return b;
    }
}
