package io.nvmf4j.hostile;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

/**
 * NVMe-oF 1.1 3.3 Figure 20, the 1024 bytes of Connect command data: HOSTID (16 bytes at 0), CNTLID (at 16; FFFFh
 * asks for a dynamic controller), SUBNQN (256 bytes at 256), HOSTNQN (256 bytes at 512), NUL-terminated UTF-8.
 */
final class ConnectData {
    private ConnectData() {
    }

    static final int SIZE = 1024;
    static final int DYNAMIC_CNTLID = 0xffff;

    static byte[] of(UUID hostId, int cntlid, String subnqn, String hostnqn) {
        ByteBuffer b = ByteBuffer.allocate(SIZE).order(ByteOrder.BIG_ENDIAN);
        b.putLong(0, hostId.getMostSignificantBits()).putLong(8, hostId.getLeastSignificantBits());
        b.order(ByteOrder.LITTLE_ENDIAN).putShort(16, (short) cntlid);
        b.put(256, nqn(subnqn)).put(512, nqn(hostnqn));
        return b.array();
    }

    /** A host NQN in the UUID format of NVMe Base 4.5 for a random host. */
    static String randomHostNqn(UUID id) {
        return "nqn.2014-08.org.nvmexpress:uuid:" + id;
    }

    private static byte[] nqn(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > 255) {
            throw new IllegalArgumentException("NQN longer than 255 bytes");
        }
        return bytes;
    }
}
