package io.nvmf4j.verbs.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Set;

/**
 * A registered region with guard bytes on both sides in the same allocation: {@code [guard | region | guard]}.
 * Only the middle is registered. A provider that writes outside a region (past its end or before its start)
 * hits a guard, and {@link #assertGuardsIntact()} reports where.
 */
public final class GuardedRegion implements AutoCloseable {
    static final int GUARD_BYTES = 256;
    static final byte GUARD_VALUE = (byte) 0xA5;

    private final MemorySegment whole;
    private final MemorySegment inner;
    private final MemoryRegion region;

    private GuardedRegion(MemorySegment whole, MemorySegment inner, MemoryRegion region) {
        this.whole = whole;
        this.inner = inner;
        this.region = region;
    }

    public static GuardedRegion register(Arena arena, ProtectionDomain pd, long size, Set<AccessFlag> access)
            throws VerbsException {
        MemorySegment whole = arena.allocate(size + 2L * GUARD_BYTES, 64);
        whole.fill(GUARD_VALUE);
        MemorySegment inner = whole.asSlice(GUARD_BYTES, size);
        inner.fill((byte) 0);
        return new GuardedRegion(whole, inner, pd.register(inner, access));
    }

    public MemoryRegion region() {
        return region;
    }

    /** The registered bytes. */
    public MemorySegment segment() {
        return inner;
    }

    public int lkey() {
        return region.lkey();
    }

    public int rkey() {
        return region.rkey();
    }

    /** The remote-visible address of byte {@code offset} of the region. */
    public long address(long offset) {
        return region.address() + offset;
    }

    /** Fills the region with the pattern of {@code seed}. */
    public GuardedRegion fill(long seed) {
        Patterns.fill(inner, seed);
        return this;
    }

    /** Snapshot of the region's bytes. */
    public byte[] snapshot() {
        return inner.toArray(ValueLayout.JAVA_BYTE);
    }

    /** Fails naming the first guard byte that changed. */
    public void assertGuardsIntact() {
        for (long i = 0; i < GUARD_BYTES; i++) {
            assertEquals(GUARD_VALUE, whole.get(ValueLayout.JAVA_BYTE, i),
                    "guard byte " + (GUARD_BYTES - i) + " bytes before the region was overwritten");
            long after = GUARD_BYTES + inner.byteSize() + i;
            assertEquals(GUARD_VALUE, whole.get(ValueLayout.JAVA_BYTE, after),
                    "guard byte " + i + " bytes past the end of the region was overwritten");
        }
    }

    @Override
    public void close() {
        region.close();
    }
}
