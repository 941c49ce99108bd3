package io.nvmf4j.protocol.io;

import io.nvmf4j.protocol.MalformedStructureException;
import io.nvmf4j.protocol.Wire;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * The data of Reservation Report (NVMe Base 2.0, 7.4, Figures 553-556), in both forms:
 *
 * <ul>
 *   <li><b>Reservation Status Data Structure</b> (EDS = 0; Linux {@code struct nvme_reservation_status}, SPDK
 *       {@code spdk_nvme_reservation_status_data}): GEN u32 at 0, RTYPE u8 at 4, REGCTL u16 at 5, PTPLS u8 at 9,
 *       reserved to 23; then one 24-byte Registered Controller Data Structure per registrant: CNTLID u16 at 0, RCSTS
 *       u8 at 2 (bit 0: holds the reservation), HOSTID (64 bits) at 8, RKEY u64 at 16;</li>
 *   <li><b>Reservation Status Extended Data Structure</b> (EDS = 1; {@code struct nvme_reservation_status_ext},
 *       {@code spdk_nvme_reservation_status_extended_data}): the same 24-byte header, reserved to 63; then one
 *       64-byte Registered Controller Extended Data Structure ({@code struct nvme_registered_ctrl_ext}): CNTLID u16
 *       at 0, RCSTS u8 at 2, RKEY u64 at 8, HOSTID (128 bits) at 16, reserved to 63.</li>
 * </ul>
 *
 * <p>REGCTL counts every registrant even when the host's buffer holds fewer entries (nvmet_execute_pr_report()).
 *
 * @param registeredControllers REGCTL: the number of registrants (may exceed {@code controllers().size()} when
 *                              decoded from a short buffer)
 */
public record ReservationStatus(long generation, int rtype, int registeredControllers, boolean ptpls,
        List<RegisteredController> controllers) {

    public static final int HEADER_SIZE = 24;
    public static final int ENTRY_SIZE = 24;
    public static final int EXTENDED_HEADER_SIZE = 64;
    public static final int EXTENDED_ENTRY_SIZE = 64;

    public static final int OFFSET_GEN = 0;
    public static final int OFFSET_RTYPE = 4;
    public static final int OFFSET_REGCTL = 5;
    public static final int OFFSET_PTPLS = 9;
    // Registered Controller Data Structure (Figure 555)
    public static final int ENTRY_OFFSET_CNTLID = 0;
    public static final int ENTRY_OFFSET_RCSTS = 2;
    public static final int ENTRY_OFFSET_HOSTID = 8;
    public static final int ENTRY_OFFSET_RKEY = 16;
    // Registered Controller Extended Data Structure (Figure 556)
    public static final int EXT_ENTRY_OFFSET_RKEY = 8;
    public static final int EXT_ENTRY_OFFSET_HOSTID = 16;
    /** RCSTS bit 0: the host of this controller holds the reservation. */
    public static final int RCSTS_HOLDS_RESERVATION = 1;

    /**
     * One registrant.
     *
     * @param hostId 8 bytes (standard structure) or 16 bytes (extended)
     */
    public record RegisteredController(int cntlid, boolean holdsReservation, byte[] hostId, long rkey) {
        public RegisteredController {
            if (hostId.length != 8 && hostId.length != 16) {
                throw new IllegalArgumentException("host identifier of " + hostId.length + " bytes, not 8 or 16");
            }
            hostId = hostId.clone();
        }

        @Override
        public byte[] hostId() {
            return hostId.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof RegisteredController r && cntlid == r.cntlid
                    && holdsReservation == r.holdsReservation && Arrays.equals(hostId, r.hostId) && rkey == r.rkey;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(hostId) * 31 + Long.hashCode(rkey);
        }

        @Override
        public String toString() {
            return "RegisteredController[cntlid=" + cntlid + ", holds=" + holdsReservation + ", hostid="
                    + HexFormat.of().formatHex(hostId) + ", rkey=" + Long.toHexString(rkey) + "]";
        }
    }

    public ReservationStatus {
        controllers = List.copyOf(controllers);
    }

    /** The bytes this status takes when every entry is written. */
    public int size(boolean extended) {
        return extended ? EXTENDED_HEADER_SIZE + controllers.size() * EXTENDED_ENTRY_SIZE
                : HEADER_SIZE + controllers.size() * ENTRY_SIZE;
    }

    /**
     * Writes the structure into {@code data} (zeroing it first), as many entries as fit; {@code data} must hold at
     * least the header.
     */
    public void encode(MemorySegment data, boolean extended) {
        int header = extended ? EXTENDED_HEADER_SIZE : HEADER_SIZE;
        int entry = extended ? EXTENDED_ENTRY_SIZE : ENTRY_SIZE;
        Wire.requireDestination(data, header, "reservation status header");
        data.fill((byte) 0);
        Wire.u32(data, OFFSET_GEN, generation);
        Wire.u8(data, OFFSET_RTYPE, rtype);
        Wire.u16(data, OFFSET_REGCTL, registeredControllers);
        Wire.u8(data, OFFSET_PTPLS, ptpls ? 1 : 0);
        long offset = header;
        for (RegisteredController c : controllers) {
            if (offset + entry > data.byteSize()) {
                break;
            }
            if (extended != (c.hostId.length == 16)) {
                throw new IllegalArgumentException((extended ? "the extended" : "the standard") + " structure needs "
                        + (extended ? 16 : 8) + "-byte host identifiers, got " + c);
            }
            Wire.u16(data, offset + ENTRY_OFFSET_CNTLID, c.cntlid);
            Wire.u8(data, offset + ENTRY_OFFSET_RCSTS, c.holdsReservation ? RCSTS_HOLDS_RESERVATION : 0);
            long hostIdAt = offset + (extended ? EXT_ENTRY_OFFSET_HOSTID : ENTRY_OFFSET_HOSTID);
            MemorySegment.copy(MemorySegment.ofArray(c.hostId), 0, data, hostIdAt, c.hostId.length);
            Wire.u64(data, offset + (extended ? EXT_ENTRY_OFFSET_RKEY : ENTRY_OFFSET_RKEY), c.rkey);
            offset += entry;
        }
    }

    /** Decodes the entries present in {@code data} (at most REGCTL; a short buffer yields fewer). */
    public static ReservationStatus decode(MemorySegment data, boolean extended) {
        int header = extended ? EXTENDED_HEADER_SIZE : HEADER_SIZE;
        int entry = extended ? EXTENDED_ENTRY_SIZE : ENTRY_SIZE;
        Wire.require(data, header, extended ? "reservation status extended data" : "reservation status data");
        int regctl = Wire.u16(data, OFFSET_REGCTL);
        long fits = (data.byteSize() - header) / entry;
        List<RegisteredController> list = new ArrayList<>();
        for (int i = 0; i < Math.min(regctl, fits); i++) {
            long at = header + (long) i * entry;
            byte[] hostId = new byte[extended ? 16 : 8];
            MemorySegment.copy(data, at + (extended ? EXT_ENTRY_OFFSET_HOSTID : ENTRY_OFFSET_HOSTID),
                    MemorySegment.ofArray(hostId), 0, hostId.length);
            int rcsts = Wire.u8(data, at + ENTRY_OFFSET_RCSTS);
            list.add(new RegisteredController(Wire.u16(data, at + ENTRY_OFFSET_CNTLID),
                    (rcsts & RCSTS_HOLDS_RESERVATION) != 0, hostId,
                    Wire.u64(data, at + (extended ? EXT_ENTRY_OFFSET_RKEY : ENTRY_OFFSET_RKEY))));
        }
        int ptpls = Wire.u8(data, OFFSET_PTPLS);
        if (ptpls > 1) {
            throw new MalformedStructureException("reservation status PTPLS " + ptpls + " is reserved");
        }
        return new ReservationStatus(Wire.u32(data, OFFSET_GEN), Wire.u8(data, OFFSET_RTYPE), regctl, ptpls == 1,
                list);
    }
}
