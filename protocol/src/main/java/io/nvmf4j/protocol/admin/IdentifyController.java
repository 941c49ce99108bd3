package io.nvmf4j.protocol.admin;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import io.nvmf4j.protocol.StructureView;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.Nqn;
import java.lang.foreign.MemorySegment;
import java.math.BigInteger;

/**
 * The 4096-byte Identify Controller data structure (CNS 01h; NVMe Base 2.0, 5.17.2.1, Figure 275), including the
 * fabrics-only fields at 1792-2047 (NVMe-oF 1.1, 4.1 / Figure 25: IOCCSZ, IORCSZ, ICDOFF, FCATT, MSDBD, OFCS).
 *
 * <p>Offsets follow Linux {@code struct nvme_id_ctrl} and SPDK {@code struct spdk_nvme_ctrlr_data} (checked with
 * {@code offsetof} against SPDK's header). A view over a {@link MemorySegment}: reads and writes go straight to the
 * buffer that travels on the wire.
 */
public final class IdentifyController extends StructureView<IdentifyController> {

    public static final int SIZE = 4096;

    public static final int OFFSET_VID = 0;
    public static final int OFFSET_SSVID = 2;
    public static final int OFFSET_SN = 4;
    public static final int SN_LENGTH = 20;
    public static final int OFFSET_MN = 24;
    public static final int MN_LENGTH = 40;
    public static final int OFFSET_FR = 64;
    public static final int FR_LENGTH = 8;
    public static final int OFFSET_RAB = 72;
    public static final int OFFSET_IEEE = 73;
    public static final int OFFSET_CMIC = 76;
    public static final int OFFSET_MDTS = 77;
    public static final int OFFSET_CNTLID = 78;
    public static final int OFFSET_VER = 80;
    public static final int OFFSET_RTD3R = 84;
    public static final int OFFSET_RTD3E = 88;
    public static final int OFFSET_OAES = 92;
    public static final int OFFSET_CTRATT = 96;
    public static final int OFFSET_RRLS = 100;
    public static final int OFFSET_CNTRLTYPE = 111;
    public static final int OFFSET_FGUID = 112;
    public static final int FGUID_LENGTH = 16;
    public static final int OFFSET_CRDT1 = 128;
    public static final int OFFSET_CRDT2 = 130;
    public static final int OFFSET_CRDT3 = 132;
    public static final int OFFSET_OACS = 256;
    public static final int OFFSET_ACL = 258;
    public static final int OFFSET_AERL = 259;
    public static final int OFFSET_FRMW = 260;
    public static final int OFFSET_LPA = 261;
    public static final int OFFSET_ELPE = 262;
    public static final int OFFSET_NPSS = 263;
    public static final int OFFSET_AVSCC = 264;
    public static final int OFFSET_APSTA = 265;
    public static final int OFFSET_WCTEMP = 266;
    public static final int OFFSET_CCTEMP = 268;
    public static final int OFFSET_MTFA = 270;
    public static final int OFFSET_HMPRE = 272;
    public static final int OFFSET_HMMIN = 276;
    public static final int OFFSET_TNVMCAP = 280;
    public static final int OFFSET_UNVMCAP = 296;
    public static final int OFFSET_RPMBS = 312;
    public static final int OFFSET_EDSTT = 316;
    public static final int OFFSET_DSTO = 318;
    public static final int OFFSET_FWUG = 319;
    public static final int OFFSET_KAS = 320;
    public static final int OFFSET_HCTMA = 322;
    public static final int OFFSET_MNTMT = 324;
    public static final int OFFSET_MXTMT = 326;
    public static final int OFFSET_SANICAP = 328;
    public static final int OFFSET_HMMINDS = 332;
    public static final int OFFSET_HMMAXD = 336;
    public static final int OFFSET_NSETIDMAX = 338;
    public static final int OFFSET_ENDGIDMAX = 340;
    public static final int OFFSET_ANATT = 342;
    public static final int OFFSET_ANACAP = 343;
    public static final int OFFSET_ANAGRPMAX = 344;
    public static final int OFFSET_NANAGRPID = 348;
    public static final int OFFSET_PELS = 352;
    public static final int OFFSET_SQES = 512;
    public static final int OFFSET_CQES = 513;
    public static final int OFFSET_MAXCMD = 514;
    public static final int OFFSET_NN = 516;
    public static final int OFFSET_ONCS = 520;
    public static final int OFFSET_FUSES = 522;
    public static final int OFFSET_FNA = 524;
    public static final int OFFSET_VWC = 525;
    public static final int OFFSET_AWUN = 526;
    public static final int OFFSET_AWUPF = 528;
    /** NVSCC in NVMe 1.4, ICSVSCC in 2.0. */
    public static final int OFFSET_NVSCC = 530;
    public static final int OFFSET_NWPC = 531;
    public static final int OFFSET_ACWU = 532;
    public static final int OFFSET_OCFS = 534;
    public static final int OFFSET_SGLS = 536;
    public static final int OFFSET_MNAN = 540;
    public static final int OFFSET_MAXDNA = 544;
    public static final int OFFSET_MAXCNA = 560;
    public static final int OFFSET_SUBNQN = 768;
    public static final int SUBNQN_LENGTH = 256;
    /** Fabrics: I/O Queue Command Capsule Supported Size, in 16-byte units. */
    public static final int OFFSET_IOCCSZ = 1792;
    /** Fabrics: I/O Queue Response Capsule Supported Size, in 16-byte units. */
    public static final int OFFSET_IORCSZ = 1796;
    /** Fabrics: In Capsule Data Offset, in 16-byte units. */
    public static final int OFFSET_ICDOFF = 1800;
    /** Fabrics: Controller Attributes (FCATT; CTRATTR in older Linux): bit 0 static controller model. */
    public static final int OFFSET_FCATT = 1802;
    /** Fabrics: Maximum SGL Data Block Descriptors (0 = no limit). */
    public static final int OFFSET_MSDBD = 1803;
    /** Fabrics: Optional Fabric Commands Support, bit 0 Disconnect. */
    public static final int OFFSET_OFCS = 1804;
    public static final int OFFSET_DCTYPE = 1806;
    public static final int OFFSET_PSD = 2048;
    public static final int PSD_COUNT = 32;
    public static final int OFFSET_VS = 3072;
    public static final int VS_LENGTH = 1024;

    /** SGLS bits 1:0: 01b SGLs supported (no alignment), 10b supported with dword alignment. */
    public static final int SGLS_SUPPORTED = 1;
    /** SGLS bit 2: Keyed SGL Data Block descriptor supported (required for RDMA). */
    public static final int SGLS_KEYED = 1 << 2;
    /** SGLS bit 20: SGL offset (in-capsule data with an Offset descriptor) supported. */
    public static final int SGLS_OFFSET = 1 << 20;
    /** ONCS bit 2: Dataset Management; bit 3: Write Zeroes. */
    public static final int ONCS_DSM = 1 << 2;
    public static final int ONCS_WRITE_ZEROES = 1 << 3;
    /** VWC bit 0: a volatile write cache is present. */
    public static final int VWC_PRESENT = 1;

    private IdentifyController(MemorySegment segment) {
        super(segment);
    }

    /** A view over the first 4096 bytes of {@code segment}; fails with a message when it is shorter. */
    public static IdentifyController wrap(MemorySegment segment) {
        return new IdentifyController(Wire.require(segment, SIZE, "Identify Controller data"));
    }

    /** A zeroed structure on the heap. */
    public static IdentifyController allocate() {
        return new IdentifyController(MemorySegment.ofArray(new byte[SIZE]));
    }

    // ---- controller capabilities and features, bytes 0-255

    public int vid() { return u16(OFFSET_VID); }
    public IdentifyController vid(int v) { return u16(OFFSET_VID, v); }
    public int ssvid() { return u16(OFFSET_SSVID); }
    public IdentifyController ssvid(int v) { return u16(OFFSET_SSVID, v); }

    /** Serial Number, ASCII, space padded. */
    public String serialNumber() { return AsciiField.read(segment, OFFSET_SN, SN_LENGTH); }
    public IdentifyController serialNumber(String sn) {
        AsciiField.writeSpacePadded(segment, OFFSET_SN, SN_LENGTH, "SN", sn);
        return this;
    }

    /** Model Number, ASCII, space padded. */
    public String modelNumber() { return AsciiField.read(segment, OFFSET_MN, MN_LENGTH); }
    public IdentifyController modelNumber(String mn) {
        AsciiField.writeSpacePadded(segment, OFFSET_MN, MN_LENGTH, "MN", mn);
        return this;
    }

    /** Firmware Revision, ASCII, space padded. */
    public String firmwareRevision() { return AsciiField.read(segment, OFFSET_FR, FR_LENGTH); }
    public IdentifyController firmwareRevision(String fr) {
        AsciiField.writeSpacePadded(segment, OFFSET_FR, FR_LENGTH, "FR", fr);
        return this;
    }

    public int rab() { return u8(OFFSET_RAB); }
    public IdentifyController rab(int v) { return u8(OFFSET_RAB, v); }

    /** IEEE OUI, 24 bits, least significant byte first (as stored on the wire). */
    public int ieee() { return u8(OFFSET_IEEE) | u8(OFFSET_IEEE + 1) << 8 | u8(OFFSET_IEEE + 2) << 16; }
    public IdentifyController ieee(int oui) {
        u8(OFFSET_IEEE, oui & 0xFF);
        u8(OFFSET_IEEE + 1, (oui >>> 8) & 0xFF);
        return u8(OFFSET_IEEE + 2, (oui >>> 16) & 0xFF);
    }

    public int cmic() { return u8(OFFSET_CMIC); }
    public IdentifyController cmic(int v) { return u8(OFFSET_CMIC, v); }

    /** Maximum Data Transfer Size as a power of two in units of CAP.MPSMIN; 0 means no limit. */
    public int mdts() { return u8(OFFSET_MDTS); }
    public IdentifyController mdts(int v) { return u8(OFFSET_MDTS, v); }

    public int cntlid() { return u16(OFFSET_CNTLID); }
    public IdentifyController cntlid(int v) { return u16(OFFSET_CNTLID, v); }

    /** Version, same layout as the VS property: major 31:16, minor 15:8, tertiary 7:0. */
    public int ver() { return u32(OFFSET_VER); }
    public IdentifyController ver(int v) { return u32(OFFSET_VER, v); }

    public int rtd3r() { return u32(OFFSET_RTD3R); }
    public IdentifyController rtd3r(int v) { return u32(OFFSET_RTD3R, v); }
    public int rtd3e() { return u32(OFFSET_RTD3E); }
    public IdentifyController rtd3e(int v) { return u32(OFFSET_RTD3E, v); }
    /** Optional Asynchronous Events Supported: bit 8 namespace attribute notices, bit 31 discovery log change. */
    public int oaes() { return u32(OFFSET_OAES); }
    public IdentifyController oaes(int v) { return u32(OFFSET_OAES, v); }
    public int ctratt() { return u32(OFFSET_CTRATT); }
    public IdentifyController ctratt(int v) { return u32(OFFSET_CTRATT, v); }
    public int rrls() { return u16(OFFSET_RRLS); }
    public IdentifyController rrls(int v) { return u16(OFFSET_RRLS, v); }
    /** Controller Type: 1 I/O, 2 discovery, 3 administrative (0 = not reported, pre-1.4). */
    public int cntrltype() { return u8(OFFSET_CNTRLTYPE); }
    public IdentifyController cntrltype(int v) { return u8(OFFSET_CNTRLTYPE, v); }
    public byte[] fguid() { return bytes(OFFSET_FGUID, FGUID_LENGTH); }
    public IdentifyController fguid(byte[] v) { return bytes(OFFSET_FGUID, FGUID_LENGTH, v); }
    public int crdt1() { return u16(OFFSET_CRDT1); }
    public IdentifyController crdt1(int v) { return u16(OFFSET_CRDT1, v); }
    public int crdt2() { return u16(OFFSET_CRDT2); }
    public IdentifyController crdt2(int v) { return u16(OFFSET_CRDT2, v); }
    public int crdt3() { return u16(OFFSET_CRDT3); }
    public IdentifyController crdt3(int v) { return u16(OFFSET_CRDT3, v); }

    // ---- admin command set attributes, bytes 256-511

    public int oacs() { return u16(OFFSET_OACS); }
    public IdentifyController oacs(int v) { return u16(OFFSET_OACS, v); }
    /** Abort Command Limit, 0's based. */
    public int acl() { return u8(OFFSET_ACL); }
    public IdentifyController acl(int v) { return u8(OFFSET_ACL, v); }
    /** Asynchronous Event Request Limit, 0's based. */
    public int aerl() { return u8(OFFSET_AERL); }
    public IdentifyController aerl(int v) { return u8(OFFSET_AERL, v); }
    public int frmw() { return u8(OFFSET_FRMW); }
    public IdentifyController frmw(int v) { return u8(OFFSET_FRMW, v); }
    /** Log Page Attributes: bit 1 commands effects log, bit 2 extended data for Get Log Page (NUMDU, LPO). */
    public int lpa() { return u8(OFFSET_LPA); }
    public IdentifyController lpa(int v) { return u8(OFFSET_LPA, v); }
    /** Error Log Page Entries, 0's based. */
    public int elpe() { return u8(OFFSET_ELPE); }
    public IdentifyController elpe(int v) { return u8(OFFSET_ELPE, v); }
    /** Number of Power States Support, 0's based. */
    public int npss() { return u8(OFFSET_NPSS); }
    public IdentifyController npss(int v) { return u8(OFFSET_NPSS, v); }
    public int avscc() { return u8(OFFSET_AVSCC); }
    public IdentifyController avscc(int v) { return u8(OFFSET_AVSCC, v); }
    public int apsta() { return u8(OFFSET_APSTA); }
    public IdentifyController apsta(int v) { return u8(OFFSET_APSTA, v); }
    /** Warning Composite Temperature Threshold, Kelvin. */
    public int wctemp() { return u16(OFFSET_WCTEMP); }
    public IdentifyController wctemp(int v) { return u16(OFFSET_WCTEMP, v); }
    /** Critical Composite Temperature Threshold, Kelvin. */
    public int cctemp() { return u16(OFFSET_CCTEMP); }
    public IdentifyController cctemp(int v) { return u16(OFFSET_CCTEMP, v); }
    public int mtfa() { return u16(OFFSET_MTFA); }
    public IdentifyController mtfa(int v) { return u16(OFFSET_MTFA, v); }
    public int hmpre() { return u32(OFFSET_HMPRE); }
    public IdentifyController hmpre(int v) { return u32(OFFSET_HMPRE, v); }
    public int hmmin() { return u32(OFFSET_HMMIN); }
    public IdentifyController hmmin(int v) { return u32(OFFSET_HMMIN, v); }
    /** Total NVM Capacity in bytes, a 128-bit little-endian value. */
    public BigInteger tnvmcap() { return u128(OFFSET_TNVMCAP); }
    public IdentifyController tnvmcap(BigInteger v) { return u128(OFFSET_TNVMCAP, v); }
    /** Unallocated NVM Capacity in bytes, 128 bits. */
    public BigInteger unvmcap() { return u128(OFFSET_UNVMCAP); }
    public IdentifyController unvmcap(BigInteger v) { return u128(OFFSET_UNVMCAP, v); }
    public int rpmbs() { return u32(OFFSET_RPMBS); }
    public IdentifyController rpmbs(int v) { return u32(OFFSET_RPMBS, v); }
    public int edstt() { return u16(OFFSET_EDSTT); }
    public IdentifyController edstt(int v) { return u16(OFFSET_EDSTT, v); }
    public int dsto() { return u8(OFFSET_DSTO); }
    public IdentifyController dsto(int v) { return u8(OFFSET_DSTO, v); }
    public int fwug() { return u8(OFFSET_FWUG); }
    public IdentifyController fwug(int v) { return u8(OFFSET_FWUG, v); }
    /** Keep Alive Support: granularity of KATO in units of 100 ms; 0 means Keep Alive is not supported. */
    public int kas() { return u16(OFFSET_KAS); }
    public IdentifyController kas(int v) { return u16(OFFSET_KAS, v); }
    public int hctma() { return u16(OFFSET_HCTMA); }
    public IdentifyController hctma(int v) { return u16(OFFSET_HCTMA, v); }
    public int mntmt() { return u16(OFFSET_MNTMT); }
    public IdentifyController mntmt(int v) { return u16(OFFSET_MNTMT, v); }
    public int mxtmt() { return u16(OFFSET_MXTMT); }
    public IdentifyController mxtmt(int v) { return u16(OFFSET_MXTMT, v); }
    public int sanicap() { return u32(OFFSET_SANICAP); }
    public IdentifyController sanicap(int v) { return u32(OFFSET_SANICAP, v); }
    public int hmminds() { return u32(OFFSET_HMMINDS); }
    public IdentifyController hmminds(int v) { return u32(OFFSET_HMMINDS, v); }
    public int hmmaxd() { return u16(OFFSET_HMMAXD); }
    public IdentifyController hmmaxd(int v) { return u16(OFFSET_HMMAXD, v); }
    public int nsetidmax() { return u16(OFFSET_NSETIDMAX); }
    public IdentifyController nsetidmax(int v) { return u16(OFFSET_NSETIDMAX, v); }
    public int endgidmax() { return u16(OFFSET_ENDGIDMAX); }
    public IdentifyController endgidmax(int v) { return u16(OFFSET_ENDGIDMAX, v); }
    public int anatt() { return u8(OFFSET_ANATT); }
    public IdentifyController anatt(int v) { return u8(OFFSET_ANATT, v); }
    public int anacap() { return u8(OFFSET_ANACAP); }
    public IdentifyController anacap(int v) { return u8(OFFSET_ANACAP, v); }
    public int anagrpmax() { return u32(OFFSET_ANAGRPMAX); }
    public IdentifyController anagrpmax(int v) { return u32(OFFSET_ANAGRPMAX, v); }
    public int nanagrpid() { return u32(OFFSET_NANAGRPID); }
    public IdentifyController nanagrpid(int v) { return u32(OFFSET_NANAGRPID, v); }
    public int pels() { return u32(OFFSET_PELS); }
    public IdentifyController pels(int v) { return u32(OFFSET_PELS, v); }

    // ---- NVM command set attributes, bytes 512-703

    /** SQ Entry Size: required (bits 3:0) and maximum (bits 7:4) as powers of two; 66h for 64-byte entries. */
    public int sqes() { return u8(OFFSET_SQES); }
    public IdentifyController sqes(int v) { return u8(OFFSET_SQES, v); }
    /** CQ Entry Size: 44h for 16-byte entries. */
    public int cqes() { return u8(OFFSET_CQES); }
    public IdentifyController cqes(int v) { return u8(OFFSET_CQES, v); }
    /** Maximum Outstanding Commands (required for fabrics). */
    public int maxcmd() { return u16(OFFSET_MAXCMD); }
    public IdentifyController maxcmd(int v) { return u16(OFFSET_MAXCMD, v); }
    /** Number of Namespaces: the largest NSID this controller may report, unsigned. */
    public long nn() { return Integer.toUnsignedLong(u32(OFFSET_NN)); }
    public IdentifyController nn(long v) { return u32(OFFSET_NN, (int) v); }
    public int oncs() { return u16(OFFSET_ONCS); }
    public IdentifyController oncs(int v) { return u16(OFFSET_ONCS, v); }
    public int fuses() { return u16(OFFSET_FUSES); }
    public IdentifyController fuses(int v) { return u16(OFFSET_FUSES, v); }
    public int fna() { return u8(OFFSET_FNA); }
    public IdentifyController fna(int v) { return u8(OFFSET_FNA, v); }
    public int vwc() { return u8(OFFSET_VWC); }
    public IdentifyController vwc(int v) { return u8(OFFSET_VWC, v); }
    public int awun() { return u16(OFFSET_AWUN); }
    public IdentifyController awun(int v) { return u16(OFFSET_AWUN, v); }
    public int awupf() { return u16(OFFSET_AWUPF); }
    public IdentifyController awupf(int v) { return u16(OFFSET_AWUPF, v); }
    public int nvscc() { return u8(OFFSET_NVSCC); }
    public IdentifyController nvscc(int v) { return u8(OFFSET_NVSCC, v); }
    public int nwpc() { return u8(OFFSET_NWPC); }
    public IdentifyController nwpc(int v) { return u8(OFFSET_NWPC, v); }
    public int acwu() { return u16(OFFSET_ACWU); }
    public IdentifyController acwu(int v) { return u16(OFFSET_ACWU, v); }
    public int ocfs() { return u16(OFFSET_OCFS); }
    public IdentifyController ocfs(int v) { return u16(OFFSET_OCFS, v); }
    /** SGL Support; see {@link #SGLS_SUPPORTED}, {@link #SGLS_KEYED}, {@link #SGLS_OFFSET}. */
    public int sgls() { return u32(OFFSET_SGLS); }
    public IdentifyController sgls(int v) { return u32(OFFSET_SGLS, v); }
    public int mnan() { return u32(OFFSET_MNAN); }
    public IdentifyController mnan(int v) { return u32(OFFSET_MNAN, v); }
    public BigInteger maxdna() { return u128(OFFSET_MAXDNA); }
    public IdentifyController maxdna(BigInteger v) { return u128(OFFSET_MAXDNA, v); }
    public int maxcna() { return u32(OFFSET_MAXCNA); }
    public IdentifyController maxcna(int v) { return u32(OFFSET_MAXCNA, v); }

    /** NVM Subsystem NVMe Qualified Name as stored (NUL terminated and padded; empty before NVMe 1.2.1). */
    public String subnqn() { return AsciiField.read(segment, OFFSET_SUBNQN, SUBNQN_LENGTH); }

    /** SUBNQN validated by the NQN rules (fails on an empty or malformed field). */
    public Nqn subsystemNqn() { return Nqn.decode(segment.asSlice(OFFSET_SUBNQN, SUBNQN_LENGTH)); }

    public IdentifyController subsystemNqn(Nqn nqn) {
        nqn.encode(segment.asSlice(OFFSET_SUBNQN, SUBNQN_LENGTH));
        return this;
    }

    // ---- fabrics specific, bytes 1792-2047

    public long ioccsz() { return Integer.toUnsignedLong(u32(OFFSET_IOCCSZ)); }
    public IdentifyController ioccsz(long v) { return u32(OFFSET_IOCCSZ, (int) v); }
    public long iorcsz() { return Integer.toUnsignedLong(u32(OFFSET_IORCSZ)); }
    public IdentifyController iorcsz(long v) { return u32(OFFSET_IORCSZ, (int) v); }
    public int icdoff() { return u16(OFFSET_ICDOFF); }
    public IdentifyController icdoff(int v) { return u16(OFFSET_ICDOFF, v); }
    public int fcatt() { return u8(OFFSET_FCATT); }
    public IdentifyController fcatt(int v) { return u8(OFFSET_FCATT, v); }
    public int msdbd() { return u8(OFFSET_MSDBD); }
    public IdentifyController msdbd(int v) { return u8(OFFSET_MSDBD, v); }
    public int ofcs() { return u16(OFFSET_OFCS); }
    public IdentifyController ofcs(int v) { return u16(OFFSET_OFCS, v); }
    public int dctype() { return u8(OFFSET_DCTYPE); }
    public IdentifyController dctype(int v) { return u8(OFFSET_DCTYPE, v); }

    /**
     * Bytes of in-capsule data an I/O command capsule may carry: IOCCSZ * 16 minus the 64-byte SQE (NVMe-oF 1.1,
     * 4.1: "the minimum value is 4", i.e. a bare 64-byte SQE). Linux: {@code ctrl->ioccsz * 16 - sizeof(cmd)}.
     */
    public long inCapsuleDataSize() {
        long capsule = ioccsz() * 16;
        return Math.max(0, capsule - 64);
    }

    // ---- power state descriptors, bytes 2048-3071

    /** Power State Descriptor {@code n} (0..31). */
    public PowerStateDescriptor powerState(int n) {
        checkPowerState(n);
        return PowerStateDescriptor.decode(segment.asSlice(OFFSET_PSD + (long) n * PowerStateDescriptor.SIZE,
                PowerStateDescriptor.SIZE));
    }

    public IdentifyController powerState(int n, PowerStateDescriptor psd) {
        checkPowerState(n);
        psd.encode(segment.asSlice(OFFSET_PSD + (long) n * PowerStateDescriptor.SIZE, PowerStateDescriptor.SIZE));
        return this;
    }

    /** The vendor specific area, bytes 3072-4095, as a slice of this structure. */
    public MemorySegment vendorSpecific() {
        return segment.asSlice(OFFSET_VS, VS_LENGTH);
    }

    /**
     * Checks what a host relies on before using the controller: SN, MN and FR are printable ASCII (NVMe Base 2.0,
     * 1.5), NPSS names at most 32 states, SQES/CQES admit the fixed 64/16-byte entries that NVMe-oF requires
     * (NVMe-oF 1.1, 2.2), and IOCCSZ is at least 4 (64 bytes) when set.
     */
    public IdentifyController validate() {
        IdentifyControllerValidation.validate(this);
        return this;
    }

    private void checkPowerState(int n) {
        if (n < 0 || n >= PSD_COUNT) {
            throw new IllegalArgumentException("power state " + n + " outside 0..31");
        }
    }

    private BigInteger u128(long offset) {
        return Uint128.read(segment, offset);
    }

    private IdentifyController u128(long offset, BigInteger value) {
        Uint128.write(segment, offset, value);
        return this;
    }

    private byte[] bytes(long offset, int length) {
        return segment.asSlice(offset, length).toArray(JAVA_BYTE);
    }

    private IdentifyController bytes(long offset, int length, byte[] value) {
        if (value.length != length) {
            throw new IllegalArgumentException("expected " + length + " bytes, got " + value.length);
        }
        MemorySegment.copy(value, 0, segment, JAVA_BYTE, offset, length);
        return this;
    }

    @Override
    public String toString() {
        return String.format("IdentifyController[vid=%04xh sn=\"%s\" mn=\"%s\" fr=\"%s\" cntlid=%d ver=%08xh mdts=%d "
                        + "nn=%d sgls=%08xh kas=%d maxcmd=%d subnqn=%s ioccsz=%d iorcsz=%d icdoff=%d msdbd=%d]",
                vid(), serialNumber(), modelNumber(), firmwareRevision(), cntlid(), ver(), mdts(), nn(), sgls(), kas(),
                maxcmd(), subnqn(), ioccsz(), iorcsz(), icdoff(), msdbd());
    }
}
