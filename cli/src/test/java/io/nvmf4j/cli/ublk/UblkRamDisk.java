package io.nvmf4j.cli.ublk;

import io.nvmf4j.cli.mount.ublk.BlockRequestHandler;
import io.nvmf4j.cli.mount.ublk.DeviceParams;
import io.nvmf4j.cli.mount.ublk.IoDescriptor;
import io.nvmf4j.cli.mount.ublk.UblkControl;
import io.nvmf4j.cli.mount.ublk.UblkDevice;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * A ublk block device backed by RAM, for the lab check that drives the ublk server against the guest's ublk_drv
 * (interop/checks/48-ublk-ram-disk.sh): starts {@code /dev/ublkbN}, prints {@code READY /dev/ublkbN}, serves until
 * a line {@code stop} (or the end of standard input), then stops and deletes the device and prints
 * {@code STOPPED served=N}. Not a user command: the mount of a remote namespace (issue 29) puts the initiator
 * where this puts RAM.
 *
 * <pre>java -cp nvmf4j.jar:CLASSES io.nvmf4j.cli.ublk.UblkRamDisk [--size-mib 64] [--queues 1] [--depth 64]</pre>
 */
public final class UblkRamDisk {
    private static final int MAX_IO_BYTES = 256 * 1024;
    private static final int EIO = 5;
    private static final int EOPNOTSUPP = 95;

    private UblkRamDisk() {
    }

    public static void main(String[] args) throws Exception {
        long sizeMib = 64;
        int queues = 1;
        int depth = 64;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--size-mib" -> sizeMib = Long.parseLong(args[i + 1]);
                case "--queues" -> queues = Integer.parseInt(args[i + 1]);
                case "--depth" -> depth = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        long size = sizeMib << 20;
        DeviceParams params = new DeviceParams(0, 9, 12, 12, 9, MAX_IO_BYTES >> 9, size >> 9,
                new DeviceParams.Discard(0, 4096, 1 << 20, 1 << 20, 1));
        try (Arena arena = Arena.ofShared(); UblkControl control = UblkControl.open()) {
            MemorySegment ram = arena.allocate(size, 4096);
            long served;
            try (UblkDevice device = UblkDevice.start(control, queues, depth, MAX_IO_BYTES, params,
                    BlockRequestHandler.synchronous(ramHandler(ram)))) {
                System.out.println("READY " + device.blockDevice());
                System.out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line;
                do {
                    line = in.readLine();
                } while (line != null && !line.trim().equals("stop"));
                served = device.served();
            }
            System.out.println("STOPPED served=" + served);
        }
    }

    private static BlockRequestHandler.Synchronous ramHandler(MemorySegment ram) {
        return (op, flags, offset, length, buffer) -> {
            if (offset < 0 || length < 0 || offset + length > ram.byteSize()) {
                return -EIO;
            }
            return switch (op) {
                case IoDescriptor.OP_READ -> {
                    MemorySegment.copy(ram, offset, buffer, 0, length);
                    yield (int) length;
                }
                case IoDescriptor.OP_WRITE -> {
                    MemorySegment.copy(buffer, 0, ram, offset, length);
                    yield (int) length;
                }
                case IoDescriptor.OP_FLUSH -> 0;
                case IoDescriptor.OP_DISCARD, IoDescriptor.OP_WRITE_ZEROES -> {
                    ram.asSlice(offset, length).fill((byte) 0);
                    yield 0;
                }
                default -> -EOPNOTSUPP;
            };
        };
    }
}
