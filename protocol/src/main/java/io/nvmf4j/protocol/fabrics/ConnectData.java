package io.nvmf4j.protocol.fabrics;

import io.nvmf4j.protocol.ControllerId;
import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.util.UUID;

/**
 * The 1024-byte data of a Connect command (NVMe-oF 1.1, "Connect Command and Response"; Linux {@code struct
 * nvmf_connect_data}):
 *
 * <pre>
 *  0..15     HOSTID, the host identifier (a UUID, bytes in the order of its text form: Linux uuid_t)
 *  16..17    CNTLID: FFFFh on the admin queue (dynamic model), the allocated controller on I/O queues
 *  18..255   reserved
 *  256..511  SUBNQN, NUL-terminated
 *  512..767  HOSTNQN, NUL-terminated
 *  768..1023 reserved
 * </pre>
 */
public record ConnectData(UUID hostId, ControllerId cntlid, Nqn subsystemNqn, Nqn hostNqn) {

    public ConnectData {
        java.util.Objects.requireNonNull(hostId, "hostId");
        java.util.Objects.requireNonNull(cntlid, "cntlid");
        java.util.Objects.requireNonNull(subsystemNqn, "subsystemNqn");
        java.util.Objects.requireNonNull(hostNqn, "hostNqn");
    }

    public static final int SIZE = 1024;
    public static final int OFFSET_HOSTID = 0;
    public static final int OFFSET_CNTLID = 16;
    public static final int OFFSET_SUBNQN = 256;
    public static final int OFFSET_HOSTNQN = 512;

    /** CNTLID (bytes 17:16) of Connect data in {@code data}, read in place; FFFFh asks for a dynamic controller. */
    public static int cntlidOf(MemorySegment data) {
        return Wire.u16(data, OFFSET_CNTLID);
    }

    /** True when the HOSTNQN field of Connect data in {@code data} is empty (its first byte is NUL). */
    public static boolean hostNqnEmpty(MemorySegment data) {
        return Wire.u8(data, OFFSET_HOSTNQN) == 0;
    }

    public void encode(MemorySegment destination) {
        MemorySegment d = Wire.requireDestination(destination, SIZE, "Connect data");
        d.fill((byte) 0);
        d.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                OFFSET_HOSTID, hostId.getMostSignificantBits());
        d.set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                OFFSET_HOSTID + 8, hostId.getLeastSignificantBits());
        Wire.u16(d, OFFSET_CNTLID, cntlid.value());
        subsystemNqn.encode(d.asSlice(OFFSET_SUBNQN, Nqn.FIELD_SIZE));
        hostNqn.encode(d.asSlice(OFFSET_HOSTNQN, Nqn.FIELD_SIZE));
    }

    /**
     * Reads Connect data. A short buffer, or an NQN field that is unterminated, over-long or not an NQN, fails
     * with a {@link MalformedStructureException} whose {@code fieldOffset} (256 or 512) is what a controller puts
     * in the IPO of a Connect Invalid Parameters response (with IATTR 1, see {@link ConnectResponse}).
     */
    public static ConnectData decode(MemorySegment source) {
        MemorySegment s = Wire.require(source, SIZE, "Connect data");
        var be = java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
        UUID hostId = new UUID(s.get(be, OFFSET_HOSTID), s.get(be, OFFSET_HOSTID + 8));
        ControllerId cntlid = ControllerId.of(cntlidOf(s));
        Nqn subnqn = nqnAt(s, OFFSET_SUBNQN, "SUBNQN");
        Nqn hostnqn = nqnAt(s, OFFSET_HOSTNQN, "HOSTNQN");
        return new ConnectData(hostId, cntlid, subnqn, hostnqn);
    }

    private static Nqn nqnAt(MemorySegment s, int offset, String name) {
        try {
            return Nqn.decode(s.asSlice(offset, Nqn.FIELD_SIZE));
        } catch (MalformedStructureException e) {
            throw new MalformedStructureException(String.format("Connect data %s (bytes %d..%d): %s",
                    name, offset, offset + Nqn.FIELD_SIZE - 1, e.getMessage()), offset);
        }
    }

    @Override
    public String toString() {
        return "ConnectData[hostid=" + hostId + " " + cntlid + " subnqn=" + subsystemNqn + " hostnqn=" + hostNqn + "]";
    }
}
