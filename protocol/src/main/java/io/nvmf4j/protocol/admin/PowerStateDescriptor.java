package io.nvmf4j.protocol.admin;

import io.nvmf4j.protocol.Wire;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One 32-byte Power State Descriptor of Identify Controller (NVMe Base 2.0, Figure 276): MP@0 (u16, centiwatts or
 * 0.0001 W with MPS), flags@3 (MPS bit 0, NOPS bit 1), ENLAT@4 and EXLAT@8 (u32, microseconds), RRT@12, RRL@13,
 * RWT@14, RWL@15 (bits 4:0), IDLP@16 (u16), IPS@18 (bits 7:6), ACTP@20 (u16), APW/APS@22 (APW bits 2:0, APS bits
 * 7:6). Linux: {@code struct nvme_id_power_state}; SPDK: {@code struct spdk_nvme_power_state}.
 */
public record PowerStateDescriptor(int maxPower, int flags, long entryLatencyUs, long exitLatencyUs,
        int relativeReadThroughput, int relativeReadLatency, int relativeWriteThroughput, int relativeWriteLatency,
        int idlePower, int idlePowerScale, int activePower, int activePowerWorkload) {

    public static final int SIZE = 32;
    public static final int OFFSET_MP = 0;
    public static final int OFFSET_FLAGS = 3;
    public static final int OFFSET_ENLAT = 4;
    public static final int OFFSET_EXLAT = 8;
    public static final int OFFSET_RRT = 12;
    public static final int OFFSET_RRL = 13;
    public static final int OFFSET_RWT = 14;
    public static final int OFFSET_RWL = 15;
    public static final int OFFSET_IDLP = 16;
    public static final int OFFSET_IPS = 18;
    public static final int OFFSET_ACTP = 20;
    public static final int OFFSET_APW_APS = 22;

    /** flags bit 0: MP is in units of 0.0001 W instead of 0.01 W. */
    public static final int FLAG_MAX_POWER_SCALE = 1;
    /** flags bit 1: non-operational state. */
    public static final int FLAG_NON_OPERATIONAL = 2;

    private static final ValueLayout.OfShort U16 = Wire.LE_U16;
    private static final ValueLayout.OfInt U32 = Wire.LE_U32;

    /** An operational state drawing {@code centiwatts}, with no latency figures. */
    public static PowerStateDescriptor operational(int centiwatts) {
        return new PowerStateDescriptor(centiwatts, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    static PowerStateDescriptor decode(MemorySegment s) {
        return new PowerStateDescriptor(
                Short.toUnsignedInt(s.get(U16, OFFSET_MP)),
                Byte.toUnsignedInt(s.get(JAVA_BYTE, OFFSET_FLAGS)) & 0x3,
                Integer.toUnsignedLong(s.get(U32, OFFSET_ENLAT)),
                Integer.toUnsignedLong(s.get(U32, OFFSET_EXLAT)),
                s.get(JAVA_BYTE, OFFSET_RRT) & 0x1F,
                s.get(JAVA_BYTE, OFFSET_RRL) & 0x1F,
                s.get(JAVA_BYTE, OFFSET_RWT) & 0x1F,
                s.get(JAVA_BYTE, OFFSET_RWL) & 0x1F,
                Short.toUnsignedInt(s.get(U16, OFFSET_IDLP)),
                (Byte.toUnsignedInt(s.get(JAVA_BYTE, OFFSET_IPS)) >>> 6) & 0x3,
                Short.toUnsignedInt(s.get(U16, OFFSET_ACTP)),
                Byte.toUnsignedInt(s.get(JAVA_BYTE, OFFSET_APW_APS)));
    }

    void encode(MemorySegment s) {
        s.fill((byte) 0);
        s.set(U16, OFFSET_MP, (short) maxPower);
        s.set(JAVA_BYTE, OFFSET_FLAGS, (byte) (flags & 0x3));
        s.set(U32, OFFSET_ENLAT, (int) entryLatencyUs);
        s.set(U32, OFFSET_EXLAT, (int) exitLatencyUs);
        s.set(JAVA_BYTE, OFFSET_RRT, (byte) (relativeReadThroughput & 0x1F));
        s.set(JAVA_BYTE, OFFSET_RRL, (byte) (relativeReadLatency & 0x1F));
        s.set(JAVA_BYTE, OFFSET_RWT, (byte) (relativeWriteThroughput & 0x1F));
        s.set(JAVA_BYTE, OFFSET_RWL, (byte) (relativeWriteLatency & 0x1F));
        s.set(U16, OFFSET_IDLP, (short) idlePower);
        s.set(JAVA_BYTE, OFFSET_IPS, (byte) ((idlePowerScale & 0x3) << 6));
        s.set(U16, OFFSET_ACTP, (short) activePower);
        s.set(JAVA_BYTE, OFFSET_APW_APS, (byte) activePowerWorkload);
    }
}
