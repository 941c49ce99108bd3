package io.nvmf4j.cli.mount.ublk;

/**
 * The {@code cmd_op} numbers of ublk's io_uring commands (include/uapi/linux/ublk_cmd.h). Since 6.3 each is
 * ioctl-encoded ({@code UBLK_U_CMD_*}, {@code UBLK_U_IO_*}: {@code _IOR}/{@code _IOWR('u', nr, struct)}), which a
 * kernel built without {@code CONFIG_BLKDEV_UBLK_LEGACY_OPCODES} requires; the bare numbers ({@code UBLK_CMD_*},
 * {@code UBLK_IO_*}) are what a 6.0-6.2 kernel takes, and what {@code _IOC_NR} of the encoded form gives back.
 */
public final class UblkCommands {
    // <asm-generic/ioctl.h>: nr in bits 0-7, type in 8-15, size in 16-29, direction in 30-31
    private static final int IOC_WRITE = 1;
    private static final int IOC_READ = 2;
    private static final int TYPE = 'u';

    /** {@code sizeof(struct ublksrv_ctrl_cmd)}: the control commands' payload in {@code sqe->cmd}. */
    static final int CONTROL_COMMAND_SIZE = ControlCommand.SIZE;
    /** {@code sizeof(struct ublksrv_io_cmd)}. */
    static final int IO_COMMAND_SIZE = IoCommand.SIZE;

    // legacy numbers (UBLK_CMD_*, UBLK_IO_*)
    public static final int CMD_GET_QUEUE_AFFINITY = 0x01;
    public static final int CMD_GET_DEV_INFO = 0x02;
    public static final int CMD_ADD_DEV = 0x04;
    public static final int CMD_DEL_DEV = 0x05;
    public static final int CMD_START_DEV = 0x06;
    public static final int CMD_STOP_DEV = 0x07;
    public static final int CMD_SET_PARAMS = 0x08;
    public static final int CMD_GET_PARAMS = 0x09;
    public static final int CMD_START_USER_RECOVERY = 0x10;
    public static final int CMD_END_USER_RECOVERY = 0x11;
    public static final int CMD_GET_DEV_INFO2 = 0x12;
    public static final int IO_FETCH_REQ = 0x20;
    public static final int IO_COMMIT_AND_FETCH_REQ = 0x21;

    // ioctl-encoded (UBLK_U_CMD_*, UBLK_U_IO_*): the direction each has in the header
    public static final int U_CMD_GET_QUEUE_AFFINITY = read(CMD_GET_QUEUE_AFFINITY, CONTROL_COMMAND_SIZE);
    public static final int U_CMD_GET_DEV_INFO = read(CMD_GET_DEV_INFO, CONTROL_COMMAND_SIZE);
    public static final int U_CMD_ADD_DEV = readWrite(CMD_ADD_DEV, CONTROL_COMMAND_SIZE);
    public static final int U_CMD_DEL_DEV = readWrite(CMD_DEL_DEV, CONTROL_COMMAND_SIZE);
    public static final int U_CMD_START_DEV = readWrite(CMD_START_DEV, CONTROL_COMMAND_SIZE);
    public static final int U_CMD_STOP_DEV = readWrite(CMD_STOP_DEV, CONTROL_COMMAND_SIZE);
    public static final int U_CMD_SET_PARAMS = readWrite(CMD_SET_PARAMS, CONTROL_COMMAND_SIZE);
    public static final int U_CMD_GET_PARAMS = read(CMD_GET_PARAMS, CONTROL_COMMAND_SIZE);
    public static final int U_CMD_START_USER_RECOVERY = readWrite(CMD_START_USER_RECOVERY, CONTROL_COMMAND_SIZE);
    public static final int U_CMD_END_USER_RECOVERY = readWrite(CMD_END_USER_RECOVERY, CONTROL_COMMAND_SIZE);
    public static final int U_CMD_GET_DEV_INFO2 = read(CMD_GET_DEV_INFO2, CONTROL_COMMAND_SIZE);
    public static final int U_IO_FETCH_REQ = readWrite(IO_FETCH_REQ, IO_COMMAND_SIZE);
    public static final int U_IO_COMMIT_AND_FETCH_REQ = readWrite(IO_COMMIT_AND_FETCH_REQ, IO_COMMAND_SIZE);

    /** {@code UBLK_IO_RES_OK}: a FETCH's completion with this result carries a request. */
    public static final int IO_RES_OK = 0;
    /** {@code UBLK_IO_RES_ABORT} (-ENODEV): the queue is going away; do not fetch again. */
    public static final int IO_RES_ABORT = -19;

    private UblkCommands() {
    }

    /** {@code _IOR('u', nr, size)}. */
    static int read(int nr, int size) {
        return encode(IOC_READ, nr, size);
    }

    /** {@code _IOWR('u', nr, size)}. */
    static int readWrite(int nr, int size) {
        return encode(IOC_READ | IOC_WRITE, nr, size);
    }

    /** {@code _IOC_NR}: the legacy number inside an encoded one (the driver switches on it). */
    public static int number(int cmdOp) {
        return cmdOp & 0xff;
    }

    private static int encode(int direction, int nr, int size) {
        return direction << 30 | size << 16 | TYPE << 8 | nr;
    }
}
