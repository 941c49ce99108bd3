package io.nvmf4j.cli.mount.ublk;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;

/**
 * {@code struct ublksrv_ctrl_cmd} (32 bytes), the payload of every control command in {@code sqe->cmd}: the device
 * it is for, a queue (-1, i.e. 0xffff, when none), and a buffer of {@code len} bytes at {@code addr} that the
 * command reads or fills (a {@link DeviceInfo} for ADD_DEV and GET_DEV_INFO, {@link DeviceParams} for the PARAMS
 * commands), plus one word of inline data (START_DEV and START_USER_RECOVERY: the server's pid). Bytes 24-31
 * ({@code dev_path_len}, {@code pad}, {@code reserved} since 6.5; {@code data[1]} before) are written zero.
 */
public final class ControlCommand {
    public static final int SIZE = 32;
    static final long DEV_ID = 0;      // __u32
    static final long QUEUE_ID = 4;    // __u16
    static final long LEN = 6;         // __u16
    static final long ADDR = 8;        // __u64
    static final long DATA = 16;       // __u64 data[1]
    static final long TAIL = 24;       // dev_path_len, pad, reserved (6.5+)

    /** {@code queue_id} of a command for no particular queue. */
    public static final int NO_QUEUE = 0xffff;

    private ControlCommand() {
    }

    /**
     * Fills {@code to} (at least {@link #SIZE} bytes) with one command.
     *
     * @param buffer the command's buffer ({@code addr}, {@code len}), or {@link MemorySegment#NULL}
     */
    public static void write(MemorySegment to, int devId, int queueId, MemorySegment buffer, long data) {
        long length = buffer.byteSize();
        if (length > 0xffff) {
            throw new IllegalArgumentException("a ublk control buffer is at most 65535 bytes: " + length);
        }
        to.set(JAVA_INT, DEV_ID, devId);
        to.set(JAVA_SHORT, QUEUE_ID, (short) queueId);
        to.set(JAVA_SHORT, LEN, (short) length);
        to.set(JAVA_LONG, ADDR, buffer.address());
        to.set(JAVA_LONG, DATA, data);
        to.set(JAVA_LONG, TAIL, 0L);
    }
}
