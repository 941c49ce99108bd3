package io.nvmf4j.target.reservation;

import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

/**
 * A 128-bit Host Identifier (NVMe Base 2.0, 5.27.1.25; the HOSTID of the Connect data, NVMe-oF 1.1 Figure 20), the
 * identity reservations are keyed by: every controller of one host shares its registrations (8.19.1). Kept as two
 * longs so the I/O path compares without touching an array. The all-zero value means "no host identifier".
 */
public record HostId(long high, long low) {

    public static final HostId NONE = new HostId(0, 0);

    /** From the 16 bytes in wire order (high = bytes 0-7 as little-endian u64, low = bytes 8-15). */
    public static HostId of(byte[] bytes) {
        if (bytes.length != 16) {
            throw new IllegalArgumentException("host identifier of " + bytes.length + " bytes, not 16");
        }
        MemorySegment s = MemorySegment.ofArray(bytes);
        return new HostId(Wire.u64(s, 0), Wire.u64(s, 8));
    }

    public static HostId parse(String hex) {
        return of(HexFormat.of().parseHex(hex));
    }

    public byte[] toBytes() {
        byte[] b = new byte[16];
        MemorySegment s = MemorySegment.ofArray(b);
        Wire.u64(s, 0, high);
        Wire.u64(s, 8, low);
        return b;
    }

    public boolean isNone() {
        return high == 0 && low == 0;
    }

    public boolean matches(long h, long l) {
        return high == h && low == l;
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(toBytes());
    }
}
