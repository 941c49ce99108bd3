package io.nvmf4j.protocol.admin;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.UUID;

/**
 * One Namespace Identification Descriptor (NVMe Base 2.0, 5.17.2.3, Figure 278): a 4-byte header (NIDT at byte 0,
 * NIDL at byte 1, bytes 2-3 reserved) followed by NIDL bytes of identifier. The types fix the lengths: EUI64 (1h) 8,
 * NGUID (2h) 16, UUID (3h) 16, CSI (4h) 1. Linux: {@code struct nvme_ns_id_desc}, {@code NVME_NIDT_*}; SPDK:
 * {@code struct spdk_nvme_ns_id_desc}.
 */
public record NamespaceDescriptor(int type, byte[] id) {

    public static final int HEADER_SIZE = 4;
    public static final int OFFSET_NIDT = 0;
    public static final int OFFSET_NIDL = 1;

    public static final int NIDT_EUI64 = 0x1;
    public static final int NIDT_NGUID = 0x2;
    public static final int NIDT_UUID = 0x3;
    public static final int NIDT_CSI = 0x4;

    public NamespaceDescriptor {
        int expected = lengthFor(type);
        if (expected < 0) {
            throw new IllegalArgumentException("namespace identifier type " + type + " is reserved");
        }
        if (id.length != expected) {
            throw new IllegalArgumentException("NIDT " + type + " needs NIDL " + expected + ", got " + id.length);
        }
        id = id.clone();
    }

    public static NamespaceDescriptor eui64(byte[] eui64) {
        return new NamespaceDescriptor(NIDT_EUI64, eui64);
    }

    public static NamespaceDescriptor nguid(byte[] nguid) {
        return new NamespaceDescriptor(NIDT_NGUID, nguid);
    }

    /** A UUID descriptor; the 16 bytes are in RFC 4122 network order (most significant byte first). */
    public static NamespaceDescriptor uuid(UUID uuid) {
        byte[] b = new byte[16];
        long hi = uuid.getMostSignificantBits();
        long lo = uuid.getLeastSignificantBits();
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (hi >>> (56 - 8 * i));
            b[8 + i] = (byte) (lo >>> (56 - 8 * i));
        }
        return new NamespaceDescriptor(NIDT_UUID, b);
    }

    /** The Command Set Identifier descriptor (00h NVM, 02h ZNS). */
    public static NamespaceDescriptor csi(int csi) {
        return new NamespaceDescriptor(NIDT_CSI, new byte[] {(byte) csi});
    }

    /** The NIDL a type requires, or -1 for a reserved type. */
    public static int lengthFor(int type) {
        return switch (type) {
            case NIDT_EUI64 -> 8;
            case NIDT_NGUID, NIDT_UUID -> 16;
            case NIDT_CSI -> 1;
            default -> -1;
        };
    }

    @Override
    public byte[] id() {
        return id.clone();
    }

    /** Header plus identifier. */
    public int encodedLength() {
        return HEADER_SIZE + id.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof NamespaceDescriptor d && d.type == type && Arrays.equals(d.id, id);
    }

    @Override
    public int hashCode() {
        return 31 * type + Arrays.hashCode(id);
    }

    @Override
    public String toString() {
        String name = switch (type) {
            case NIDT_EUI64 -> "eui64";
            case NIDT_NGUID -> "nguid";
            case NIDT_UUID -> "uuid";
            default -> "csi";
        };
        return name + ":" + HexFormat.of().formatHex(id);
    }
}
