package io.nvmf4j.hostile;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * NVMe structures a raw host puts on the wire, little-endian as the NVMe specifications define them: the 64-byte
 * submission queue entry (NVMe Base 2.0 4.2; SGL use: PSDT = 01b), the SGL descriptors of NVMe Base 4.3.2 (keyed data
 * block 4h with subtype 0h address or Fh invalidate key; data block 0h with subtype 1h offset for in-capsule data), the
 * fabrics commands of NVMe-oF 1.1 section 3 (Connect 3.3, Property Get 3.5, Property Set 3.6), the 16-byte completion
 * queue entry (NVMe Base 4.6) and the RDMA_CM private data of the NVMe/RDMA transport binding (NVMe-oF 1.1 7.3.1).
 */
final class NvmeCapsules {
    private NvmeCapsules() {
    }

    static final int SQE_SIZE = 64;
    static final int OPC_FABRICS = 0x7f;
    static final int FCTYPE_PROPERTY_SET = 0x00;
    static final int FCTYPE_CONNECT = 0x01;
    static final int FCTYPE_PROPERTY_GET = 0x04;
    static final int ADMIN_GET_LOG_PAGE = 0x02;
    static final int ADMIN_IDENTIFY = 0x06;
    static final int ADMIN_GET_FEATURES = 0x0a;
    static final int ADMIN_KEEP_ALIVE = 0x18;
    static final int NVM_WRITE = 0x01;
    static final int NVM_READ = 0x02;
    /** NVMe Base 3.1.3: CC at 14h, CSTS at 1Ch, CAP at 0h, VS at 8h. */
    static final int PROP_CAP = 0x00;
    static final int PROP_VS = 0x08;
    static final int PROP_CC = 0x14;
    static final int PROP_CSTS = 0x1c;
    /** NVMe-oF 1.1 5 (Discovery Log Page, LID 70h). */
    static final int LID_DISCOVERY = 0x70;
    static final int FID_KEEP_ALIVE_TIMER = 0x0f;
    static final String DISCOVERY_NQN = "nqn.2014-08.org.nvmexpress.discovery";

    static ByteBuffer le(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** CDW0: opcode, flags (PSDT 01b = SGL for data), command identifier; then NSID. */
    static ByteBuffer sqe(int opcode, int cid, long nsid, byte[] sgl1) {
        ByteBuffer b = le(SQE_SIZE);
        b.put(0, (byte) opcode).put(1, (byte) 0x40).putShort(2, (short) cid).putInt(4, (int) nsid);
        b.put(24, sgl1);
        return b;
    }

    /** NVMe Base 4.3.2.6 Keyed SGL Data Block: address, 24-bit length, key; identifier 4h << 4 | subtype. */
    static byte[] keyedSgl(long address, int length, int key, boolean invalidate) {
        ByteBuffer b = le(16);
        b.putLong(0, address);
        b.put(8, (byte) length).put(9, (byte) (length >>> 8)).put(10, (byte) (length >>> 16));
        b.putInt(11, key);
        b.put(15, (byte) (0x40 | (invalidate ? 0x0f : 0x00)));
        return b.array();
    }

    /** NVMe Base 4.3.2.1 SGL Data Block with the Offset subtype (NVMe-oF 1.1 7.3.2: in-capsule data). */
    static byte[] inCapsuleSgl(long offset, long length) {
        ByteBuffer b = le(16);
        b.putLong(0, offset).putInt(8, (int) length).put(15, (byte) 0x01);
        return b.array();
    }

    static final byte[] NULL_SGL = keyedSgl(0, 0, 0, false);

    /** NVMe-oF 1.1 3.3 Connect: FCTYPE 01h, RECFMT 0, QID, SQSIZE (0's based), CATTR, KATO (ms). */
    static byte[] connect(int cid, int qid, int sqsize, int katoMillis, byte[] sgl1) {
        ByteBuffer b = sqe(OPC_FABRICS, cid, 0, sgl1);
        b.put(4, (byte) FCTYPE_CONNECT).putShort(40, (short) 0).putShort(42, (short) qid)
                .putShort(44, (short) sqsize).put(46, (byte) 0).putInt(48, katoMillis);
        return b.array();
    }

    /** NVMe-oF 1.1 3.5 Property Get: ATTRIB bit 0 = 8-byte property, OFST. */
    static byte[] propertyGet(int cid, int offset, boolean eightBytes) {
        ByteBuffer b = sqe(OPC_FABRICS, cid, 0, NULL_SGL);
        b.put(4, (byte) FCTYPE_PROPERTY_GET).put(40, (byte) (eightBytes ? 1 : 0)).putInt(44, offset);
        return b.array();
    }

    /** NVMe-oF 1.1 3.6 Property Set. */
    static byte[] propertySet(int cid, int offset, boolean eightBytes, long value) {
        ByteBuffer b = sqe(OPC_FABRICS, cid, 0, NULL_SGL);
        b.put(4, (byte) FCTYPE_PROPERTY_SET).put(40, (byte) (eightBytes ? 1 : 0)).putInt(44, offset)
                .putLong(48, value);
        return b.array();
    }

    /** CC with EN = 1, IOSQES = 6 (64 bytes), IOCQES = 4 (16 bytes) (NVMe Base 3.1.3.5). */
    static final long CC_ENABLE = 1L | (6L << 16) | (4L << 20);

    /**
     * NVMe Base 5.16 Get Log Page: CDW10 LID, RAE, NUMDL; CDW11 NUMDU; CDW12/13 the 64-bit offset (bytes).
     *
     * @param numd the 0's based number of dwords (32 bits)
     */
    static byte[] getLogPage(int cid, long nsid, int lid, long numd, long offset, byte[] sgl1) {
        ByteBuffer b = sqe(ADMIN_GET_LOG_PAGE, cid, nsid, sgl1);
        b.putInt(40, lid | ((int) (numd & 0xffff) << 16)).putInt(44, (int) ((numd >>> 16) & 0xffff))
                .putLong(48, offset);
        return b.array();
    }

    /** NVMe Base 5.15 Get Features: CDW10 FID, SEL 0 (current). */
    static byte[] getFeatures(int cid, int fid, byte[] sgl1) {
        ByteBuffer b = sqe(ADMIN_GET_FEATURES, cid, 0, sgl1);
        b.putInt(40, fid);
        return b.array();
    }

    /** NVMe Base 5.17 Identify: CDW10 CNS (01h = controller). */
    static byte[] identify(int cid, int cns, long nsid, byte[] sgl1) {
        ByteBuffer b = sqe(ADMIN_IDENTIFY, cid, nsid, sgl1);
        b.putInt(40, cns);
        return b.array();
    }

    static byte[] keepAlive(int cid) {
        return sqe(ADMIN_KEEP_ALIVE, cid, 0, NULL_SGL).array();
    }

    /** NVM Command Set 3.2.4/3.2.6 Read/Write: SLBA in CDW10-11, NLB (0's based) in CDW12. */
    static byte[] readWrite(int opcode, int cid, long nsid, long slba, int blocks, byte[] sgl1) {
        ByteBuffer b = sqe(opcode, cid, nsid, sgl1);
        b.putLong(40, slba).putInt(48, (blocks - 1) & 0xffff);
        return b.array();
    }

    /** NVMe Base 4.6 completion queue entry. */
    record Completion(int dw0, int dw1, int sqhd, int sqid, int cid, int statusWord) {
        static Completion decode(byte[] cqe) {
            ByteBuffer b = ByteBuffer.wrap(cqe).order(ByteOrder.LITTLE_ENDIAN);
            return new Completion(b.getInt(0), b.getInt(4), b.getShort(8) & 0xffff, b.getShort(10) & 0xffff,
                    b.getShort(12) & 0xffff, b.getShort(14) & 0xffff);
        }

        /** Status Code (bits 8:1 of the status word). */
        int sc() {
            return (statusWord >>> 1) & 0xff;
        }

        /** Status Code Type (bits 11:9). */
        int sct() {
            return (statusWord >>> 9) & 0x7;
        }

        boolean dnr() {
            return (statusWord & 0x8000) != 0;
        }

        boolean success() {
            return sc() == 0 && sct() == 0;
        }

        long dw01() {
            return Integer.toUnsignedLong(dw0) | ((long) dw1 << 32);
        }

        @Override
        public String toString() {
            return String.format("CQE(cid %d, sct %d, sc 0x%02x%s, dw0 0x%x)", cid, sct(), sc(), dnr() ? ", DNR" : "",
                    dw0);
        }
    }

    /**
     * NVMe-oF 1.1 7.3.1 RDMA_CM_REQUEST private data (32 bytes): RECFMT 0, QID, HRQSIZE (host receive queue entries),
     * HSQSIZE (0's based host submission queue size), CNTLID, reserved.
     */
    static byte[] cmRequest(int qid, int hrqsize, int hsqsize) {
        ByteBuffer b = le(32);
        b.putShort(0, (short) 0).putShort(2, (short) qid).putShort(4, (short) hrqsize).putShort(6, (short) hsqsize);
        return b.array();
    }

    /** NVMe-oF 1.1 7.3.1: RDMA_CM_ACCEPT carries RECFMT and CRQSIZE; RDMA_CM_REJECT carries RECFMT and STS. */
    static int cmWord(byte[] privateData, int index) {
        return privateData.length < 2 * index + 2 ? -1
                : ByteBuffer.wrap(privateData).order(ByteOrder.LITTLE_ENDIAN).getShort(2 * index) & 0xffff;
    }
}
