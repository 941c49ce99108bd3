package io.nvmf4j.protocol.io;

import io.nvmf4j.protocol.Wire;

import io.nvmf4j.protocol.MalformedStructureException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One 16-byte Dataset Management range (NVM Command Set 1.0, Figure 39): Context Attributes u32@0, Length in logical
 * blocks u32@4 (1's based, unlike NLB), Starting LBA u64@8. Linux: {@code struct nvme_dsm_range} (cattr, nlb, slba);
 * SPDK: {@code struct spdk_nvme_dsm_range}.
 */
public record DsmRange(int contextAttributes, long lengthInBlocks, long startingLba) {

    public static final int SIZE = 16;
    public static final int OFFSET_CONTEXT_ATTRIBUTES = 0;
    public static final int OFFSET_LENGTH = 4;
    public static final int OFFSET_SLBA = 8;

    private static final ValueLayout.OfInt U32 = Wire.LE_U32;
    private static final ValueLayout.OfLong U64 = Wire.LE_U64;

    public DsmRange {
        if (lengthInBlocks < 0 || lengthInBlocks > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("DSM range length " + lengthInBlocks + " outside 0..2^32-1");
        }
    }

    /** A range of {@code blocks} at {@code slba} with no context attributes (what Linux sends for discard). */
    public static DsmRange of(long slba, long blocks) {
        return new DsmRange(0, blocks, slba);
    }

    public static DsmRange decode(MemorySegment segment, long offset) {
        if (offset < 0 || segment.byteSize() - offset < SIZE) {
            throw new MalformedStructureException("DSM range at offset " + offset + " needs " + SIZE
                    + " bytes, buffer holds " + segment.byteSize());
        }
        return new DsmRange(segment.get(U32, offset + OFFSET_CONTEXT_ATTRIBUTES),
                Integer.toUnsignedLong(segment.get(U32, offset + OFFSET_LENGTH)),
                segment.get(U64, offset + OFFSET_SLBA));
    }

    public void encode(MemorySegment segment, long offset) {
        segment.set(U32, offset + OFFSET_CONTEXT_ATTRIBUTES, contextAttributes);
        segment.set(U32, offset + OFFSET_LENGTH, (int) lengthInBlocks);
        segment.set(U64, offset + OFFSET_SLBA, startingLba);
    }

    @Override
    public String toString() {
        return String.format("DsmRange[slba=%s blocks=%d cattr=%08xh]", Long.toUnsignedString(startingLba),
                lengthInBlocks, contextAttributes);
    }
}
