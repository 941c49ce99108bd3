package io.nvmf4j.protocol.admin;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The 4096-byte I/O Command Set Independent Identify Namespace data structure (Identify CNS 08h; NVMe Base 2.0,
 * 5.17.2): the namespace fields every command set shares (NSFEAT, NMIC, RESCAP, FPI, ANAGRPID,
 * NSATTR, NVMSETID, ENDGID, NSTAT).
 *
 * <p>Linux: {@code struct nvme_id_ns_cs_indep}.
 */
public final class IdentifyNamespaceIndependent {

    public static final int SIZE = 4096;
    public static final int OFFSET_NSFEAT = 0;
    public static final int OFFSET_NMIC = 1;
    public static final int OFFSET_RESCAP = 2;
    public static final int OFFSET_FPI = 3;
    public static final int OFFSET_ANAGRPID = 4;
    public static final int OFFSET_NSATTR = 8;
    public static final int OFFSET_NVMSETID = 10;
    public static final int OFFSET_ENDGID = 12;
    public static final int OFFSET_NSTAT = 14;

    /** NSTAT bit 0: the namespace is ready (Linux {@code NVME_NSTAT_NRDY}). */
    public static final int NSTAT_READY = 1;

    private final MemorySegment segment;

    private IdentifyNamespaceIndependent(MemorySegment segment) {
        this.segment = segment;
    }

    public static IdentifyNamespaceIndependent wrap(MemorySegment segment) {
        if (segment.byteSize() < SIZE) {
            throw new MalformedStructureException("I/O command set independent Identify Namespace data needs "
                    + SIZE + " bytes, got " + segment.byteSize());
        }
        return new IdentifyNamespaceIndependent(segment.asSlice(0, SIZE));
    }

    public static IdentifyNamespaceIndependent allocate() {
        return new IdentifyNamespaceIndependent(MemorySegment.ofArray(new byte[SIZE]));
    }

    public MemorySegment segment() {
        return segment;
    }

    public int nsfeat() { return Wire.u8(segment, OFFSET_NSFEAT); }
    public IdentifyNamespaceIndependent nsfeat(int v) { Wire.u8(segment, OFFSET_NSFEAT, v); return this; }

    public int nmic() { return Wire.u8(segment, OFFSET_NMIC); }
    public IdentifyNamespaceIndependent nmic(int v) { Wire.u8(segment, OFFSET_NMIC, v); return this; }

    public int rescap() { return Wire.u8(segment, OFFSET_RESCAP); }
    public IdentifyNamespaceIndependent rescap(int v) { Wire.u8(segment, OFFSET_RESCAP, v); return this; }

    public long anagrpid() { return Wire.u32(segment, OFFSET_ANAGRPID); }
    public IdentifyNamespaceIndependent anagrpid(long v) { Wire.u32(segment, OFFSET_ANAGRPID, v); return this; }

    public int nsattr() { return Wire.u8(segment, OFFSET_NSATTR); }
    public IdentifyNamespaceIndependent nsattr(int v) { Wire.u8(segment, OFFSET_NSATTR, v); return this; }

    public int endgid() { return Wire.u16(segment, OFFSET_ENDGID); }
    public IdentifyNamespaceIndependent endgid(int v) { Wire.u16(segment, OFFSET_ENDGID, v); return this; }

    public int nstat() { return Wire.u8(segment, OFFSET_NSTAT); }
    public IdentifyNamespaceIndependent nstat(int v) { Wire.u8(segment, OFFSET_NSTAT, v); return this; }
}
