package io.nvmf4j.protocol.sgl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Hex;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.StatusCode;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/**
 * Vectors written from Linux struct nvme_sgl_desc {le64 addr; le32 length; u8 rsvd[3]; u8 type;} and
 * struct nvme_keyed_sgl_desc {le64 addr; u8 length[3]; u8 key[4]; u8 type;}.
 */
class SglDescriptorTest {

    private static String encode(SglDescriptor d) {
        MemorySegment s = MemorySegment.ofArray(new byte[16]);
        s.fill((byte) 0xEE); // every byte must be written, reserved ones as zero
        d.encode(s);
        return Hex.of(s);
    }

    @Test
    void everyDescriptorIsSixteenBytes() {
        assertEquals(16, SglDescriptor.SIZE);
        assertEquals(16, SubmissionQueueEntry.DPTR_LENGTH);
        assertEquals(11, SglDescriptor.OFFSET_KEY);
        assertEquals(15, SglDescriptor.OFFSET_IDENTIFIER);
    }

    @Test
    void keyedDescriptorWithInvalidateIsWhatNvmeRdmaMapSgFrWrites() {
        KeyedSglDescriptor d = new KeyedSglDescriptor(0x0000_7F12_3456_7000L, 4096, 0x1234ABCD, true);
        // addr LE              | len 24-bit LE | key LE    | type 4h<<4 | NVME_SGL_FMT_INVALIDATE
        assertEquals(Hex.norm("0070563412 7f0000 001000 cdab3412 4f"), encode(d));
        assertEquals(d, SglDescriptor.decode(Hex.segment("0070563412 7f0000 001000 cdab3412 4f")));
        assertEquals("KeyedSGL[addr=00007f1234567000h len=4096 key=1234abcdh invalidate]", d.toString());
    }

    @Test
    void keyedDescriptorWithoutInvalidateHasIdentifier40() {
        KeyedSglDescriptor d = new KeyedSglDescriptor(0x1000, 0xFF_FFFF, 0xFFFF_FFFF, false);
        assertEquals(Hex.norm("0010000000000000 ffffff ffffffff 40"), encode(d));
        KeyedSglDescriptor back = (KeyedSglDescriptor) SglDescriptor.decode(Hex.segment("0010000000000000 ffffff ffffffff 40"));
        assertEquals(0xFF_FFFF, back.length());
        assertEquals(-1, back.key());
        assertEquals(0x40, back.identifier());
    }

    @Test
    void keyedLengthIsLimitedTo24Bits() {
        assertEquals("keyed SGL length 16777216 does not fit the 24-bit length field (0..16777215)",
                assertThrows(IllegalArgumentException.class,
                        () -> new KeyedSglDescriptor(0, 1 << 24, 1, false)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> new KeyedSglDescriptor(0, -1, 1, false));
    }

    @Test
    void inCapsuleDataBlockIsWhatNvmeRdmaMapSgInlineWrites() {
        // Linux: sg->addr = cpu_to_le64(queue->ctrl->ctrl.icdoff); sg->length = len; sg->type = 0 << 4 | 1
        DataBlockDescriptor d = DataBlockDescriptor.inCapsule(0, 1024);
        assertEquals(Hex.norm("0000000000000000 00040000 000000 01"), encode(d));
        assertEquals(d, SglDescriptor.decode(Hex.segment("0000000000000000 00040000 000000 01")));
        assertEquals("DataBlockSGL[in-capsule offset=0 len=1024]", d.toString());
        assertEquals(Hex.norm("efcdab8967452301 ffffffff 000000 00"),
                encode(DataBlockDescriptor.atAddress(0x0123456789ABCDEFL, 0xFFFF_FFFFL)));
    }

    @Test
    void segmentsBitBucketAndTransportDescriptorsHaveTheirIdentifiers() {
        assertEquals(Hex.norm("0010000000000000 20000000 000000 20"), encode(new SegmentDescriptor(0x1000, 32, false)));
        assertEquals(Hex.norm("4000000000000000 30000000 000000 31"), encode(new LastSegmentDescriptor(0x40, 48, true)));
        assertEquals(Hex.norm("0000000000000000 00020000 000000 10"), encode(new BitBucketDescriptor(512)));
        assertEquals(Hex.norm("0000000000000000 00100000 000000 5a"), encode(new TransportSglDescriptor(0, 4096)));

        assertEquals(new SegmentDescriptor(0x1000, 32, false),
                SglDescriptor.decode(Hex.segment("0010000000000000 20000000 000000 20")));
        assertEquals(3, ((LastSegmentDescriptor) SglDescriptor.decode(
                Hex.segment("4000000000000000 30000000 000000 31"))).descriptorCount());
        assertInstanceOf(BitBucketDescriptor.class, SglDescriptor.decode(Hex.segment(Hex.zeros(8) + "00020000 000000 10")));
        assertInstanceOf(TransportSglDescriptor.class, SglDescriptor.decode(Hex.segment(Hex.zeros(8) + "00100000 000000 5a")));
    }

    @Test
    void decodesSgl1StraightOutOfASubmissionQueueEntry() {
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        new KeyedSglDescriptor(0xABCDEF, 8192, 0x77, true).encode(sqe.dptr());
        assertEquals(Hex.norm("efcdab0000000000 002000 77000000 4f"), Hex.of(sqe.segment().asSlice(24, 16)));
        assertEquals(new KeyedSglDescriptor(0xABCDEF, 8192, 0x77, true), SglDescriptor.decode(sqe.dptr()));
    }

    @Test
    void reservedTypeIsRefusedNamingByte15() {
        SglDescriptorException e = assertThrows(SglDescriptorException.class,
                () -> SglDescriptor.decode(Hex.segment(Hex.zeros(15) + "60")));
        assertEquals("SGL descriptor byte 15 (identifier 60h): type 6h is reserved; defined are 0h data block, "
                + "1h bit bucket, 2h segment, 3h last segment, 4h keyed data block, 5h transport data block", e.getMessage());
        assertEquals(SglDescriptorException.Problem.TYPE, e.problem());
        assertEquals(StatusCode.SGL_INVALID_TYPE, e.problem().status());
        assertEquals(15, e.fieldOffset().orElseThrow());

        assertTrue(assertThrows(SglDescriptorException.class,
                () -> SglDescriptor.decode(Hex.segment(Hex.zeros(15) + "f0"))).getMessage()
                .contains("type Fh is vendor specific and not supported"));
    }

    @Test
    void undefinedSubtypesAreRefusedNamingByte15() {
        SglDescriptorException keyed = assertThrows(SglDescriptorException.class,
                () -> SglDescriptor.decode(Hex.segment(Hex.zeros(15) + "41")));
        assertEquals("SGL descriptor byte 15 (identifier 41h): subtype 1h is not defined for type 4h "
                + "(keyed data block); allowed: 0h address or Fh invalidate key", keyed.getMessage());
        assertEquals(SglDescriptorException.Problem.SUBTYPE, keyed.problem());
        assertEquals(15, keyed.fieldOffset().orElseThrow());

        assertTrue(assertThrows(SglDescriptorException.class,
                () -> SglDescriptor.decode(Hex.segment(Hex.zeros(15) + "0f"))).getMessage()
                .contains("subtype Fh is not defined for type 0h (data block)"));
        assertTrue(assertThrows(SglDescriptorException.class,
                () -> SglDescriptor.decode(Hex.segment(Hex.zeros(15) + "50"))).getMessage()
                .contains("allowed: Ah transport specific"));
        assertTrue(assertThrows(SglDescriptorException.class,
                () -> SglDescriptor.decode(Hex.segment(Hex.zeros(15) + "11"))).getMessage()
                .contains("subtype 1h is not defined for type 1h (bit bucket)"));
    }

    @Test
    void segmentLengthMustBeAMultipleOf16() {
        SglDescriptorException e = assertThrows(SglDescriptorException.class,
                () -> SglDescriptor.decode(Hex.segment("0010000000000000 14000000 000000 20")));
        assertEquals("SGL segment descriptor bytes 11:8: length 20 is not a non-zero multiple of 16", e.getMessage());
        assertEquals(8, e.fieldOffset().orElseThrow());
        assertEquals(StatusCode.SGL_INVALID_LAST, e.problem().status());
        assertThrows(SglDescriptorException.class,
                () -> SglDescriptor.decode(Hex.segment("0010000000000000 00000000 000000 30")));
        assertThrows(IllegalArgumentException.class, () -> new SegmentDescriptor(0, 17, false));
    }

    @Test
    void inCapsuleSegmentOfKeyedDescriptorsDecodesInOrder() {
        String segment = "0010000000000000 002000 11000000 40"   // 8 KiB at 1000h, key 11h
                + "0040000000000000 001000 22000000 4f";          // 4 KiB at 4000h, key 22h, invalidate
        assertEquals(java.util.List.of(new KeyedSglDescriptor(0x1000, 8192, 0x11, false),
                        new KeyedSglDescriptor(0x4000, 4096, 0x22, true)),
                SglDescriptor.decodeSegment(Hex.segment(segment), 32));
    }

    @Test
    void badDescriptorInASegmentIsNamedByIndexAndOffset() {
        String segment = "0010000000000000 002000 11000000 40" + Hex.zeros(15) + "70";
        SglDescriptorException e = assertThrows(SglDescriptorException.class,
                () -> SglDescriptor.decodeSegment(Hex.segment(segment), 32));
        assertTrue(e.getMessage().startsWith("SGL segment descriptor 1: SGL descriptor byte 15 (identifier 70h): type 7h"));
        assertEquals(31, e.fieldOffset().orElseThrow());
        assertEquals("SGL segment of 2 descriptors needs 32 bytes, got 16 (truncated)",
                assertThrows(MalformedStructureException.class,
                        () -> SglDescriptor.decodeSegment(Hex.segment(Hex.zeros(16)), 32)).getMessage());
        assertThrows(SglDescriptorException.class, () -> SglDescriptor.decodeSegment(Hex.segment(Hex.zeros(16)), 8));
    }

    @Test
    void truncatedDescriptorIsRefusedWithoutIndexOutOfBounds() {
        assertEquals("SGL descriptor needs 16 bytes, got 15 (truncated)",
                assertThrows(MalformedStructureException.class,
                        () -> SglDescriptor.decode(MemorySegment.ofArray(new byte[15]))).getMessage());
        assertThrows(MalformedStructureException.class, () -> SglDescriptor.decode(MemorySegment.NULL));
    }
}
