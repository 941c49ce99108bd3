package io.nvmf4j.cli.mount.ublk;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;

/**
 * {@code struct ublksrv_io_cmd} (16 bytes), the payload of FETCH_REQ and COMMIT_AND_FETCH_REQ: which queue and tag,
 * the result of the request being committed (bytes transferred, or -errno), and the address of the tag's data
 * buffer in the server (the driver copies a write's data into it before the request is handed over, and a read's
 * data out of it at commit).
 */
public final class IoCommand {
    public static final int SIZE = 16;
    static final long Q_ID = 0;     // __u16
    static final long TAG = 2;      // __u16
    static final long RESULT = 4;   // __s32
    static final long ADDR = 8;     // __u64 addr (zone_append_lba for zone append)

    private IoCommand() {
    }

    /** Fills {@code to} (at least {@link #SIZE} bytes). */
    public static void write(MemorySegment to, int queueId, int tag, int result, long bufferAddress) {
        to.set(JAVA_SHORT, Q_ID, (short) queueId);
        to.set(JAVA_SHORT, TAG, (short) tag);
        to.set(JAVA_INT, RESULT, result);
        to.set(JAVA_LONG, ADDR, bufferAddress);
    }
}
