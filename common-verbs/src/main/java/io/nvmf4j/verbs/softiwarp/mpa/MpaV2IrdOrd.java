package io.nvmf4j.verbs.softiwarp.mpa;

/**
 * The RFC 6581 section 3 (Enhanced Connection Setup) IRD/ORD words at the start of MPA revision 2 private data
 * ({@code struct mpa_v2_data} in siw's iwarp.h): a 16-bit IRD word whose top bit is the peer-to-peer flag P
 * ({@code MPA_V2_PEER_TO_PEER} 0x8000) and bit 14 the zero-length RTR flag, then a 16-bit ORD word whose top bits
 * choose the ready-to-receive message ({@code MPA_V2_RDMA_WRITE_RTR} 0x8000, {@code MPA_V2_RDMA_READ_RTR} 0x4000);
 * the low 14 bits ({@code MPA_IRD_ORD_MASK} 0x3fff) carry the values.
 *
 * @param ird         inbound RDMA read queue depth (14 bits)
 * @param ord         outbound RDMA read queue depth (14 bits)
 * @param peerToPeer  P flag (RTR message follows the reply)
 * @param zeroLength  L flag in the IRD word (0x4000)
 * @param writeRtr    zero-length RDMA Write as RTR (ORD word 0x8000)
 * @param readRtr     zero-length RDMA Read as RTR (ORD word 0x4000)
 */
public record MpaV2IrdOrd(int ird, int ord, boolean peerToPeer, boolean zeroLength, boolean writeRtr,
                          boolean readRtr) {
    public static final int LENGTH = 4;
    public static final int MASK = 0x3fff;
    public static final int PEER_TO_PEER = 0x8000;
    public static final int ZERO_LENGTH_RTR = 0x4000;
    public static final int WRITE_RTR = 0x8000;
    public static final int READ_RTR = 0x4000;

    public MpaV2IrdOrd {
        if (ird < 0 || ird > MASK || ord < 0 || ord > MASK) {
            throw new IllegalArgumentException("IRD/ORD outside 0..0x3fff: " + ird + "/" + ord);
        }
    }

    /** Plain IRD/ORD without peer-to-peer (what siw sends with its default peer_to_peer = false). */
    public static MpaV2IrdOrd of(int ird, int ord) {
        return new MpaV2IrdOrd(ird, ord, false, false, false, false);
    }

    public int irdWord() {
        return ird | (peerToPeer ? PEER_TO_PEER : 0) | (zeroLength ? ZERO_LENGTH_RTR : 0);
    }

    public int ordWord() {
        return ord | (writeRtr ? WRITE_RTR : 0) | (readRtr ? READ_RTR : 0);
    }

    /** Writes the 4 bytes, big-endian, at {@code offset}. */
    public void encode(byte[] out, int offset) {
        out[offset] = (byte) (irdWord() >>> 8);
        out[offset + 1] = (byte) irdWord();
        out[offset + 2] = (byte) (ordWord() >>> 8);
        out[offset + 3] = (byte) ordWord();
    }

    /** Reads the 4 bytes at the start of MPA v2 private data. */
    public static MpaV2IrdOrd decode(byte[] privateData) throws MpaException {
        if (privateData.length < LENGTH) {
            throw new MpaException("MPA v2 enhanced frame needs 4 bytes of IRD/ORD, private data has "
                    + privateData.length);
        }
        int irdWord = ((privateData[0] & 0xff) << 8) | (privateData[1] & 0xff);
        int ordWord = ((privateData[2] & 0xff) << 8) | (privateData[3] & 0xff);
        return new MpaV2IrdOrd(irdWord & MASK, ordWord & MASK, (irdWord & PEER_TO_PEER) != 0,
                (irdWord & ZERO_LENGTH_RTR) != 0, (ordWord & WRITE_RTR) != 0, (ordWord & READ_RTR) != 0);
    }
}
