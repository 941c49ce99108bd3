package io.nvmf4j.cli.mount.ublk;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemorySegment;

/**
 * {@code struct ublksrv_ctrl_dev_info} (64 bytes): what ADD_DEV asks for and GET_DEV_INFO reports. The server fills
 * queues, depth, largest I/O, the device id it wants ({@link #ANY_ID}: the kernel picks) and {@code UBLK_F_*} flags;
 * the kernel writes back the id it gave and the flags it kept, and reports state and server pid later.
 *
 * @param queues      {@code nr_hw_queues}
 * @param queueDepth  {@code queue_depth}, at most {@link #MAX_QUEUE_DEPTH}
 * @param state       {@code state}: {@link #STATE_DEAD}, {@link #STATE_LIVE}, {@link #STATE_QUIESCED}
 * @param maxIoBytes  {@code max_io_buf_bytes}: the largest request, and each tag's buffer
 * @param devId       {@code dev_id}: N of /dev/ublkbN and /dev/ublkcN
 * @param serverPid   {@code ublksrv_pid}
 * @param flags       {@code flags}: {@code UBLK_F_*}
 * @param serverFlags {@code ublksrv_flags}: the server's own, kept by the kernel for the device's life (nvmf4j puts
 *                    the namespace there, so that a recovering process knows which one a device served)
 */
public record DeviceInfo(int queues, int queueDepth, int state, int maxIoBytes, int devId, int serverPid,
                         long flags, long serverFlags) {
    public static final int SIZE = 64;
    static final long NR_HW_QUEUES = 0;      // __u16
    static final long QUEUE_DEPTH = 2;       // __u16
    static final long STATE = 4;             // __u16, then __u16 pad0
    static final long MAX_IO_BUF_BYTES = 8;  // __u32
    static final long DEV_ID = 12;           // __u32
    static final long UBLKSRV_PID = 16;      // __s32, then __u32 pad1
    static final long FLAGS = 24;            // __u64
    static final long UBLKSRV_FLAGS = 32;    // __u64, the server's own (the kernel keeps them for it)

    /** {@code dev_id} for ADD_DEV that lets the kernel choose. */
    public static final int ANY_ID = -1;
    /** {@code UBLK_MAX_QUEUE_DEPTH}. */
    public static final int MAX_QUEUE_DEPTH = 4096;

    public static final int STATE_DEAD = 0;
    public static final int STATE_LIVE = 1;
    public static final int STATE_QUIESCED = 2;

    /** {@code UBLK_F_*}: features a server asks for in {@code flags}. */
    public static final long F_SUPPORT_ZERO_COPY = 1L;
    public static final long F_URING_CMD_COMP_IN_TASK = 1L << 1;
    public static final long F_NEED_GET_DATA = 1L << 2;
    public static final long F_USER_RECOVERY = 1L << 3;
    public static final long F_USER_RECOVERY_REISSUE = 1L << 4;
    public static final long F_UNPRIVILEGED_DEV = 1L << 5;
    public static final long F_CMD_IOCTL_ENCODE = 1L << 6;
    public static final long F_USER_COPY = 1L << 7;
    public static final long F_ZONED = 1L << 8;

    /** The state's name as ublksrv's {@code ublk list} prints it. */
    public static String stateName(int state) {
        return switch (state) {
            case STATE_DEAD -> "DEAD";
            case STATE_LIVE -> "LIVE";
            case STATE_QUIESCED -> "QUIESCED";
            default -> "state " + state;
        };
    }

    /** Writes the whole structure (every other byte zero) into {@code to}, at least {@link #SIZE} bytes. */
    public void write(MemorySegment to) {
        to.asSlice(0, SIZE).fill((byte) 0);
        to.set(JAVA_SHORT, NR_HW_QUEUES, (short) queues);
        to.set(JAVA_SHORT, QUEUE_DEPTH, (short) queueDepth);
        to.set(JAVA_SHORT, STATE, (short) state);
        to.set(JAVA_INT, MAX_IO_BUF_BYTES, maxIoBytes);
        to.set(JAVA_INT, DEV_ID, devId);
        to.set(JAVA_INT, UBLKSRV_PID, serverPid);
        to.set(JAVA_LONG, FLAGS, flags);
        to.set(JAVA_LONG, UBLKSRV_FLAGS, serverFlags);
    }

    /** Reads what the kernel wrote (ADD_DEV's answer, GET_DEV_INFO). */
    public static DeviceInfo read(MemorySegment from) {
        return new DeviceInfo(Short.toUnsignedInt(from.get(JAVA_SHORT, NR_HW_QUEUES)),
                Short.toUnsignedInt(from.get(JAVA_SHORT, QUEUE_DEPTH)),
                Short.toUnsignedInt(from.get(JAVA_SHORT, STATE)), from.get(JAVA_INT, MAX_IO_BUF_BYTES),
                from.get(JAVA_INT, DEV_ID), from.get(JAVA_INT, UBLKSRV_PID), from.get(JAVA_LONG, FLAGS),
                from.get(JAVA_LONG, UBLKSRV_FLAGS));
    }
}
