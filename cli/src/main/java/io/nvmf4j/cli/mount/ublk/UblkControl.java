package io.nvmf4j.cli.mount.ublk;

import io.nvmf4j.uring.CompletionHandler;
import io.nvmf4j.uring.IoUring;
import io.nvmf4j.uring.IoUringException;
import io.nvmf4j.uring.SqeSize;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * {@code /dev/ublk-control} and its io_uring: the device-level commands (ublksrv's {@code ublksrv_ctrl_*}, SPDK's
 * {@code ublk_ctrl_cmd}), each sent as one URING_CMD with a {@link ControlCommand} in a 128-byte SQE (the driver's
 * {@code ublk_ctrl_uring_cmd} refuses control commands in 64-byte SQEs) and waited for. Commands go one at a time:
 * START_DEV does not end until every queue of the device has fetched all its tags, so the queues run on their own
 * threads while the thread that holds this waits in it.
 */
public final class UblkControl implements AutoCloseable {
    public static final String CONTROL_DEVICE = "/dev/ublk-control";

    private final int fd;
    private final IoUring ring;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment command;
    private final MemorySegment buffer;
    private final Result result = new Result();
    private long sequence;

    private UblkControl(int fd, IoUring ring) {
        this.fd = fd;
        this.ring = ring;
        this.command = arena.allocate(ControlCommand.SIZE, 8);
        this.buffer = arena.allocate(Math.max(DeviceInfo.SIZE, DeviceParams.SIZE), 8);
    }

    /** Opens the control device (root, ublk_drv loaded) and sets up its ring. */
    public static UblkControl open() throws UblkException {
        int fd = UblkLinux.open(CONTROL_DEVICE);
        try {
            return new UblkControl(fd, IoUring.open(4, SqeSize.SQE128));
        } catch (IoUringException e) {
            UblkLinux.close(fd);
            throw new UblkException("io_uring setup for " + CONTROL_DEVICE + " (" + e.getMessage() + ")",
                    e.errno());
        }
    }

    /** ADD_DEV: a new device as {@code wanted} describes it; returns what the kernel made of it (its id, flags). */
    public synchronized DeviceInfo addDevice(DeviceInfo wanted) throws UblkException {
        MemorySegment info = buffer.asSlice(0, DeviceInfo.SIZE);
        wanted.write(info);
        send("ADD_DEV", UblkCommands.U_CMD_ADD_DEV, wanted.devId(), info, 0);
        return DeviceInfo.read(info);
    }

    /** SET_PARAMS: block sizes, capacity and limits, before START_DEV. */
    public synchronized void setParams(int devId, DeviceParams params) throws UblkException {
        MemorySegment p = buffer.asSlice(0, DeviceParams.SIZE);
        params.write(p);
        send("SET_PARAMS", UblkCommands.U_CMD_SET_PARAMS, devId, p, 0);
    }

    /** GET_PARAMS: the parameters the device was given (a recovering server checks them against its own). */
    public synchronized DeviceParams params(int devId) throws UblkException {
        MemorySegment p = buffer.asSlice(0, DeviceParams.SIZE);
        p.fill((byte) 0);
        p.set(java.lang.foreign.ValueLayout.JAVA_INT, DeviceParams.LEN, DeviceParams.SIZE); // how much we take
        send("GET_PARAMS", UblkCommands.U_CMD_GET_PARAMS, devId, p, 0);
        return DeviceParams.read(p);
    }

    /**
     * START_USER_RECOVERY: a device whose server died (state QUIESCED, its char device closed by everyone) takes a
     * new server; EBUSY while the old one's exit is still being cleaned up.
     */
    public synchronized void startUserRecovery(int devId) throws UblkException {
        send("START_USER_RECOVERY", UblkCommands.U_CMD_START_USER_RECOVERY, devId, MemorySegment.NULL, 0);
    }

    /**
     * END_USER_RECOVERY with this process as the server: returns once every queue has fetched all its tags; the
     * device is LIVE again and the requests held while it had no server are issued.
     */
    public synchronized void endUserRecovery(int devId, long serverPid) throws UblkException {
        send("END_USER_RECOVERY", UblkCommands.U_CMD_END_USER_RECOVERY, devId, MemorySegment.NULL, serverPid);
    }

    /** GET_DEV_INFO: the device as the kernel has it now (state, server pid). */
    public synchronized DeviceInfo deviceInfo(int devId) throws UblkException {
        MemorySegment info = buffer.asSlice(0, DeviceInfo.SIZE);
        info.fill((byte) 0);
        send("GET_DEV_INFO", UblkCommands.U_CMD_GET_DEV_INFO, devId, info, 0);
        return DeviceInfo.read(info);
    }

    /**
     * START_DEV with this process as the server: returns once every queue has fetched all its tags and
     * {@code /dev/ublkb<devId>} exists.
     */
    public synchronized void startDevice(int devId, long serverPid) throws UblkException {
        send("START_DEV", UblkCommands.U_CMD_START_DEV, devId, MemorySegment.NULL, serverPid);
    }

    /** STOP_DEV: removes the block device; the queues' outstanding fetches then end (UBLK_IO_RES_ABORT). */
    public synchronized void stopDevice(int devId) throws UblkException {
        send("STOP_DEV", UblkCommands.U_CMD_STOP_DEV, devId, MemorySegment.NULL, 0);
    }

    /** DEL_DEV: removes {@code /dev/ublkc<devId>}; waits until the char device is closed by its users. */
    public synchronized void deleteDevice(int devId) throws UblkException {
        send("DEL_DEV", UblkCommands.U_CMD_DEL_DEV, devId, MemorySegment.NULL, 0);
    }

    private void send(String name, int op, int devId, MemorySegment data, long inline) throws UblkException {
        ControlCommand.write(command, devId, ControlCommand.NO_QUEUE, data, inline);
        long id = ++sequence;
        if (!ring.prepareUringCmd(fd, op, command, id)) {
            throw new IllegalStateException("the control ring is full: commands are sent one at a time");
        }
        result.await(ring, id, name);
        if (result.value < 0) {
            throw new UblkException(name + " of ublk device " + devId, -result.value);
        }
    }

    @Override
    public synchronized void close() {
        ring.close();
        UblkLinux.close(fd);
        arena.close();
    }

    /** The CQE of the one command in flight. */
    private static final class Result implements CompletionHandler {
        private long expected;
        private boolean done;
        private int value;

        void await(IoUring ring, long id, String name) throws UblkException {
            expected = id;
            done = false;
            try {
                while (!done) {
                    if (ring.reap(this) == 0) {
                        ring.submitAndWait(1);
                    }
                }
            } catch (IoUringException e) {
                throw new UblkException(name + ": io_uring_enter (" + e.getMessage() + ")", e.errno());
            }
        }

        @Override
        public void completed(long userData, int res, int flags) {
            if (userData == expected) {
                value = res;
                done = true;
            }
        }
    }
}
