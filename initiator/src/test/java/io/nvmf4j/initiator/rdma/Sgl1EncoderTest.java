package io.nvmf4j.initiator.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.sgl.DataBlockDescriptor;
import io.nvmf4j.protocol.sgl.KeyedSglDescriptor;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * SGL1 written in place (no descriptor record per command) is byte for byte what Linux puts in SQE bytes 39:24:
 * {@code struct nvme_keyed_sgl_desc} (addr __le64, length[3], key[4], type = NVME_KEY_SGL_FMT_DATA_DESC << 4) and
 * {@code struct nvme_sgl_desc} for in-capsule data (addr = offset, length __le32, rsvd[3], type =
 * NVME_SGL_FMT_DATA_DESC << 4 | NVME_SGL_FMT_OFFSET); and the same as the protocol records encode.
 */
class Sgl1EncoderTest {

    private static byte[] dptr(MemorySegment sqe) {
        return sqe.asSlice(SubmissionQueueEntry.OFFSET_DPTR, SubmissionQueueEntry.DPTR_LENGTH).toArray(
                java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    @Test
    void keyedDescriptorMatchesLinuxLayoutAndTheRecord() {
        MemorySegment sqe = MemorySegment.ofArray(new byte[SubmissionQueueEntry.SIZE]);
        Sgl1Encoder.keyed(sqe, 0x1122_3344_5566_7788L, 0x01_0000, 0xA1B2_C3D4);
        assertArrayEquals(HexFormat.of().parseHex("8877665544332211" + "000001" + "d4c3b2a1" + "40"), dptr(sqe));
        MemorySegment expected = MemorySegment.ofArray(new byte[16]);
        new KeyedSglDescriptor(0x1122_3344_5566_7788L, 0x01_0000, 0xA1B2_C3D4, false).encode(expected);
        assertArrayEquals(expected.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), dptr(sqe));
        // nothing outside bytes 39:24 touched
        assertArrayEquals(new byte[24], sqe.asSlice(0, 24).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        assertArrayEquals(new byte[24], sqe.asSlice(40, 24).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    @Test
    void keyedDescriptorAskingForInvalidationHasIdentifier4FhLikeNvmeRdmaMapSgFr() {
        MemorySegment sqe = MemorySegment.ofArray(new byte[SubmissionQueueEntry.SIZE]);
        Sgl1Encoder.keyed(sqe, 0x1000L, 4096, 0x0000_2A5C, true);
        assertArrayEquals(HexFormat.of().parseHex("0010000000000000" + "001000" + "5c2a0000" + "4f"), dptr(sqe));
        MemorySegment expected = MemorySegment.ofArray(new byte[16]);
        new KeyedSglDescriptor(0x1000L, 4096, 0x0000_2A5C, true).encode(expected);
        assertArrayEquals(expected.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), dptr(sqe));
    }

    @Test
    void nullKeyedDescriptorIsZeroWithIdentifier40h() {
        MemorySegment sqe = MemorySegment.ofArray(new byte[SubmissionQueueEntry.SIZE]);
        Sgl1Encoder.nullKeyed(sqe);
        assertArrayEquals(HexFormat.of().parseHex("000000000000000000000000000000" + "40"), dptr(sqe));
    }

    @Test
    void inCapsuleDescriptorMatchesLinuxLayoutAndTheRecord() {
        MemorySegment sqe = MemorySegment.ofArray(new byte[SubmissionQueueEntry.SIZE]);
        Sgl1Encoder.inCapsule(sqe, 0, 4096);
        assertArrayEquals(HexFormat.of().parseHex("0000000000000000" + "00100000" + "000000" + "01"), dptr(sqe));
        MemorySegment expected = MemorySegment.ofArray(new byte[16]);
        DataBlockDescriptor.inCapsule(0, 4096).encode(expected);
        assertArrayEquals(expected.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), dptr(sqe));
    }

    @Test
    void keyedLengthAbove24BitsIsRefused() {
        MemorySegment sqe = MemorySegment.ofArray(new byte[SubmissionQueueEntry.SIZE]);
        assertThrows(IllegalArgumentException.class, () -> Sgl1Encoder.keyed(sqe, 0, 1 << 24, 1));
    }
}
