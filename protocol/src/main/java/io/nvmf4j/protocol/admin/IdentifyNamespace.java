package io.nvmf4j.protocol.admin;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.StructureView;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.math.BigInteger;

/**
 * The 4096-byte Identify Namespace data structure for the NVM command set (CNS 00h; NVMe Base 2.0 / NVM Command Set
 * 1.0, 4.1.5.1, Figure 114). NSZE/NCAP/NUSE are counts of logical blocks. NLBAF is 0's based; up to 64 LBA formats
 * at 128 + 4n (formats 16-63 are NVMe 2.0). FLBAS bits 3:0 select the format, with bits 6:5 as the upper two bits
 * of the index when NLBAF > 16; bit 4 is "extended data LBA" (metadata at the end of each LBA).
 *
 * <p>Linux: {@code struct nvme_id_ns}; SPDK: {@code struct spdk_nvme_ns_data} (offsets checked with offsetof).
 */
public final class IdentifyNamespace extends StructureView<IdentifyNamespace> {

    public static final int SIZE = 4096;

    public static final int OFFSET_NSZE = 0;
    public static final int OFFSET_NCAP = 8;
    public static final int OFFSET_NUSE = 16;
    public static final int OFFSET_NSFEAT = 24;
    public static final int OFFSET_NLBAF = 25;
    public static final int OFFSET_FLBAS = 26;
    public static final int OFFSET_MC = 27;
    public static final int OFFSET_DPC = 28;
    public static final int OFFSET_DPS = 29;
    public static final int OFFSET_NMIC = 30;
    public static final int OFFSET_RESCAP = 31;
    public static final int OFFSET_FPI = 32;
    public static final int OFFSET_DLFEAT = 33;
    public static final int OFFSET_NAWUN = 34;
    public static final int OFFSET_NAWUPF = 36;
    public static final int OFFSET_NACWU = 38;
    public static final int OFFSET_NABSN = 40;
    public static final int OFFSET_NABO = 42;
    public static final int OFFSET_NABSPF = 44;
    public static final int OFFSET_NOIOB = 46;
    public static final int OFFSET_NVMCAP = 48;
    public static final int OFFSET_NPWG = 64;
    public static final int OFFSET_NPWA = 66;
    public static final int OFFSET_NPDG = 68;
    public static final int OFFSET_NPDA = 70;
    public static final int OFFSET_NOWS = 72;
    public static final int OFFSET_ANAGRPID = 92;
    public static final int OFFSET_NSATTR = 99;
    public static final int OFFSET_NVMSETID = 100;
    public static final int OFFSET_ENDGID = 102;
    public static final int OFFSET_NGUID = 104;
    public static final int NGUID_LENGTH = 16;
    public static final int OFFSET_EUI64 = 120;
    public static final int EUI64_LENGTH = 8;
    public static final int OFFSET_LBAF = 128;
    /** 64 LBA format slots (NLBAF max 63); NVMe 1.4 had 16 (NLBAF max 15). */
    public static final int MAX_LBA_FORMATS = 64;
    /** Vendor specific area: bytes 384-4095. */
    public static final int OFFSET_VS = 384;
    public static final int VS_LENGTH = 3712;

    /** NSFEAT bit 0: thin provisioning. */
    public static final int NSFEAT_THIN_PROVISIONING = 1;
    /** FLBAS bit 4: metadata transferred at the end of the data LBA (extended LBA). */
    public static final int FLBAS_EXTENDED = 1 << 4;
    /** DLFEAT bits 2:0 = 001b: deallocated blocks read as zeroes; bit 3: Write Zeroes may deallocate. */
    public static final int DLFEAT_READ_ZEROES = 0x1;
    public static final int DLFEAT_WRITE_ZEROES_DEALLOCATE = 0x8;

    private IdentifyNamespace(MemorySegment segment) {
        super(segment);
    }

    public static IdentifyNamespace wrap(MemorySegment segment) {
        return new IdentifyNamespace(Wire.require(segment, SIZE, "Identify Namespace data"));
    }

    public static IdentifyNamespace allocate() {
        return new IdentifyNamespace(MemorySegment.ofArray(new byte[SIZE]));
    }

    /** Namespace Size in logical blocks. */
    public long nsze() { return u64(OFFSET_NSZE); }
    public IdentifyNamespace nsze(long v) { return u64(OFFSET_NSZE, v); }
    /** Namespace Capacity in logical blocks. */
    public long ncap() { return u64(OFFSET_NCAP); }
    public IdentifyNamespace ncap(long v) { return u64(OFFSET_NCAP, v); }
    /** Namespace Utilization in logical blocks. */
    public long nuse() { return u64(OFFSET_NUSE); }
    public IdentifyNamespace nuse(long v) { return u64(OFFSET_NUSE, v); }
    public int nsfeat() { return u8(OFFSET_NSFEAT); }
    public IdentifyNamespace nsfeat(int v) { return u8(OFFSET_NSFEAT, v); }
    /** Number of LBA Formats, 0's based (0 means one format). */
    public int nlbaf() { return u8(OFFSET_NLBAF); }
    public IdentifyNamespace nlbaf(int v) { return u8(OFFSET_NLBAF, v); }
    public int flbas() { return u8(OFFSET_FLBAS); }
    public IdentifyNamespace flbas(int v) { return u8(OFFSET_FLBAS, v); }
    public int mc() { return u8(OFFSET_MC); }
    public IdentifyNamespace mc(int v) { return u8(OFFSET_MC, v); }
    public int dpc() { return u8(OFFSET_DPC); }
    public IdentifyNamespace dpc(int v) { return u8(OFFSET_DPC, v); }
    public int dps() { return u8(OFFSET_DPS); }
    public IdentifyNamespace dps(int v) { return u8(OFFSET_DPS, v); }
    /** Namespace Multi-path I/O and Namespace Sharing Capabilities: bit 0 shared. */
    public int nmic() { return u8(OFFSET_NMIC); }
    public IdentifyNamespace nmic(int v) { return u8(OFFSET_NMIC, v); }
    public int rescap() { return u8(OFFSET_RESCAP); }
    public IdentifyNamespace rescap(int v) { return u8(OFFSET_RESCAP, v); }
    public int fpi() { return u8(OFFSET_FPI); }
    public IdentifyNamespace fpi(int v) { return u8(OFFSET_FPI, v); }
    public int dlfeat() { return u8(OFFSET_DLFEAT); }
    public IdentifyNamespace dlfeat(int v) { return u8(OFFSET_DLFEAT, v); }
    public int nawun() { return u16(OFFSET_NAWUN); }
    public IdentifyNamespace nawun(int v) { return u16(OFFSET_NAWUN, v); }
    public int nawupf() { return u16(OFFSET_NAWUPF); }
    public IdentifyNamespace nawupf(int v) { return u16(OFFSET_NAWUPF, v); }
    public int nacwu() { return u16(OFFSET_NACWU); }
    public IdentifyNamespace nacwu(int v) { return u16(OFFSET_NACWU, v); }
    public int nabsn() { return u16(OFFSET_NABSN); }
    public IdentifyNamespace nabsn(int v) { return u16(OFFSET_NABSN, v); }
    public int nabo() { return u16(OFFSET_NABO); }
    public IdentifyNamespace nabo(int v) { return u16(OFFSET_NABO, v); }
    public int nabspf() { return u16(OFFSET_NABSPF); }
    public IdentifyNamespace nabspf(int v) { return u16(OFFSET_NABSPF, v); }
    /** Namespace Optimal I/O Boundary in logical blocks (0 = not reported). */
    public int noiob() { return u16(OFFSET_NOIOB); }
    public IdentifyNamespace noiob(int v) { return u16(OFFSET_NOIOB, v); }
    /** NVM Capacity in bytes, 128 bits. */
    public BigInteger nvmcap() { return Uint128.read(segment, OFFSET_NVMCAP); }
    public IdentifyNamespace nvmcap(BigInteger v) { Uint128.write(segment, OFFSET_NVMCAP, v); return this; }
    public int npwg() { return u16(OFFSET_NPWG); }
    public IdentifyNamespace npwg(int v) { return u16(OFFSET_NPWG, v); }
    public int npwa() { return u16(OFFSET_NPWA); }
    public IdentifyNamespace npwa(int v) { return u16(OFFSET_NPWA, v); }
    public int npdg() { return u16(OFFSET_NPDG); }
    public IdentifyNamespace npdg(int v) { return u16(OFFSET_NPDG, v); }
    public int npda() { return u16(OFFSET_NPDA); }
    public IdentifyNamespace npda(int v) { return u16(OFFSET_NPDA, v); }
    public int nows() { return u16(OFFSET_NOWS); }
    public IdentifyNamespace nows(int v) { return u16(OFFSET_NOWS, v); }
    public int anagrpid() { return u32(OFFSET_ANAGRPID); }
    public IdentifyNamespace anagrpid(int v) { return u32(OFFSET_ANAGRPID, v); }
    public int nsattr() { return u8(OFFSET_NSATTR); }
    public IdentifyNamespace nsattr(int v) { return u8(OFFSET_NSATTR, v); }
    public int nvmsetid() { return u16(OFFSET_NVMSETID); }
    public IdentifyNamespace nvmsetid(int v) { return u16(OFFSET_NVMSETID, v); }
    public int endgid() { return u16(OFFSET_ENDGID); }
    public IdentifyNamespace endgid(int v) { return u16(OFFSET_ENDGID, v); }

    /** Namespace Globally Unique Identifier, 16 bytes in wire order (all zero = not reported). */
    public byte[] nguid() { return segment.asSlice(OFFSET_NGUID, NGUID_LENGTH).toArray(JAVA_BYTE); }
    public IdentifyNamespace nguid(byte[] v) { return bytes(OFFSET_NGUID, NGUID_LENGTH, v); }
    /** IEEE Extended Unique Identifier, 8 bytes in wire order (big-endian as the IEEE writes it). */
    public byte[] eui64() { return segment.asSlice(OFFSET_EUI64, EUI64_LENGTH).toArray(JAVA_BYTE); }
    public IdentifyNamespace eui64(byte[] v) { return bytes(OFFSET_EUI64, EUI64_LENGTH, v); }

    /** LBA Format {@code n} (0..63) as stored, whether or not NLBAF declares it. */
    public LbaFormat lbaFormat(int n) {
        checkFormatSlot(n);
        long off = OFFSET_LBAF + (long) n * LbaFormat.SIZE;
        return new LbaFormat(u16(off), u8(off + 2), u8(off + 3) & 0x3);
    }

    public IdentifyNamespace lbaFormat(int n, LbaFormat f) {
        checkFormatSlot(n);
        long off = OFFSET_LBAF + (long) n * LbaFormat.SIZE;
        u16(off, f.metadataSize());
        u8(off + 2, f.lbaDataSizeShift());
        return u8(off + 3, f.relativePerformance());
    }

    /**
     * Index of the formatted LBA format from FLBAS: bits 3:0, plus bits 6:5 as index bits 5:4 when NLBAF exceeds 16
     * (NVM Command Set 1.0, Figure 114: "If the NLBAF field is set to a value of 16 or less, then these bits are
     * reserved"; SPDK {@code spdk_nvme_ns_get_format_index()} decides the same way).
     */
    public int formattedLbaIndex() {
        int flbas = flbas();
        int low = flbas & 0xF;
        return nlbaf() > 16 ? low | ((flbas >>> 5) & 0x3) << 4 : low;
    }

    /** Sets FLBAS bits 3:0 and 6:5 to {@code index}, keeping bit 4 (extended LBA). */
    public IdentifyNamespace formattedLbaIndex(int index) {
        checkFormatSlot(index);
        int flbas = flbas() & FLBAS_EXTENDED;
        return flbas(flbas | (index & 0xF) | ((index >>> 4) & 0x3) << 5);
    }

    /** The in-use LBA format, after checking NLBAF and FLBAS against each other (see {@link #validate()}). */
    public LbaFormat activeLbaFormat() {
        validate();
        return lbaFormat(formattedLbaIndex());
    }

    /** Logical block size in bytes of the in-use format. */
    public long blockSize() {
        return activeLbaFormat().lbaDataSize();
    }

    /**
     * What a host must check before it issues I/O: NLBAF names at most 64 formats, FLBAS selects one of them, and
     * that format has LBADS between 9 (512 bytes) and 31, and NCAP and NUSE do not exceed NSZE.
     */
    public IdentifyNamespace validate() {
        int nlbaf = nlbaf();
        if (nlbaf >= MAX_LBA_FORMATS) {
            throw new MalformedStructureException("NLBAF " + nlbaf + " (0's based) exceeds the 64 LBA format slots");
        }
        int index = formattedLbaIndex();
        if (index > nlbaf) {
            throw new MalformedStructureException(String.format(
                    "FLBAS %02xh selects LBA format %d but NLBAF declares only %d format(s)", flbas(), index, nlbaf + 1));
        }
        LbaFormat f = lbaFormat(index);
        if (!f.isUsable()) {
            throw new MalformedStructureException("LBA format " + index + " has LBADS " + f.lbaDataSizeShift()
                    + "; it must be 9 (512 bytes) or more and at most 31");
        }
        if (Long.compareUnsigned(ncap(), nsze()) > 0) {
            throw new MalformedStructureException("NCAP " + Long.toUnsignedString(ncap()) + " exceeds NSZE "
                    + Long.toUnsignedString(nsze()));
        }
        if (Long.compareUnsigned(nuse(), ncap()) > 0) {
            throw new MalformedStructureException("NUSE " + Long.toUnsignedString(nuse()) + " exceeds NCAP "
                    + Long.toUnsignedString(ncap()));
        }
        return this;
    }

    private static void checkFormatSlot(int n) {
        if (n < 0 || n >= MAX_LBA_FORMATS) {
            throw new IllegalArgumentException("LBA format index " + n + " outside 0..63");
        }
    }

    private IdentifyNamespace bytes(long offset, int length, byte[] value) {
        if (value.length != length) {
            throw new IllegalArgumentException("expected " + length + " bytes, got " + value.length);
        }
        MemorySegment.copy(value, 0, segment, JAVA_BYTE, offset, length);
        return this;
    }

    @Override
    public String toString() {
        String format;
        try {
            format = activeLbaFormat().toString();
        } catch (MalformedStructureException e) {
            format = "invalid(" + e.getMessage() + ")";
        }
        return String.format("IdentifyNamespace[nsze=%s ncap=%s nuse=%s nlbaf=%d flbas=%02xh format=%s nsfeat=%02xh]",
                Long.toUnsignedString(nsze()), Long.toUnsignedString(ncap()), Long.toUnsignedString(nuse()),
                nlbaf(), flbas(), format, nsfeat());
    }
}
