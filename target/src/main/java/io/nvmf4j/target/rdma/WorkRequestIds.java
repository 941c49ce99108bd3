package io.nvmf4j.target.rdma;

/**
 * The 64-bit {@code wr_id} of every work request the transport posts: which queue (poll-group slot and its
 * generation, so a completion for a queue already gone is recognised and dropped), what kind of work request, and
 * which receive buffer or request context. Decoding is arithmetic: no lookup tables, no allocation.
 *
 * <pre>
 *  63..48 slot   47..32 generation   31..28 kind   27..0 index
 * </pre>
 */
final class WorkRequestIds {

    static final int RECV = 1;
    /** RDMA Read of write data, or RDMA Write of read data. */
    static final int DATA = 2;
    static final int SEND = 3;

    static final int MAX_SLOTS = 1 << 16;

    private WorkRequestIds() {
    }

    static long of(int slot, int generation, int kind, int index) {
        return ((long) slot << 48) | ((long) (generation & 0xFFFF) << 32) | ((long) kind << 28) | (index & 0x0FFF_FFFF);
    }

    static int slot(long wrId) {
        return (int) (wrId >>> 48);
    }

    static int generation(long wrId) {
        return (int) (wrId >>> 32) & 0xFFFF;
    }

    static int kind(long wrId) {
        return (int) (wrId >>> 28) & 0xF;
    }

    static int index(long wrId) {
        return (int) wrId & 0x0FFF_FFFF;
    }
}
