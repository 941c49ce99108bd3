package io.nvmf4j.cli.mount;

import java.nio.file.Path;
import java.util.List;

/**
 * {@code --fs DIR}: a loop device on the exposed file ({@code losetup --find --show --direct-io=on}: the loop
 * driver then does O_DIRECT I/O on it, no second page cache), optionally formatted, mounted on DIR. Undone in
 * reverse: umount, {@code losetup -d}. With {@code --ublk} the block device is the namespace's own
 * ({@link #onDevice}): no loop device, only the format, mount and umount.
 */
final class LoopFilesystem implements AutoCloseable {

    /** Bound on one tool run; mkfs of a large namespace over a slow link is the longest. */
    private static final long TOOL_SECONDS = 600;

    private final String device;
    private final Path directory;
    /** Whether {@link #close} detaches {@link #device} (a loop device this made). */
    private final boolean loop;
    private boolean mounted;

    private LoopFilesystem(String device, Path directory, boolean loop) {
        this.device = device;
        this.directory = directory;
        this.loop = loop;
    }

    /** Attaches, formats when {@code mkfs}, mounts; on a failure undoes what was done and rethrows. */
    static LoopFilesystem attach(Path file, Path directory, String type, boolean mkfs) {
        String device = ExternalCommand.check(60, List.of("losetup", "--find", "--show", "--direct-io=on",
                file.toString())).strip();
        return mount(new LoopFilesystem(device, directory, true), type, mkfs);
    }

    /** Formats {@code device} when {@code mkfs}, mounts it on {@code directory}; undone by close (umount only). */
    static LoopFilesystem onDevice(String device, Path directory, String type, boolean mkfs) {
        return mount(new LoopFilesystem(device, directory, false), type, mkfs);
    }

    /**
     * {@code device}'s file system on {@code directory}: taken over as it is when already mounted there (a recovered
     * ublk device whose dead server had mounted it), else mounted; close unmounts it either way.
     */
    static LoopFilesystem adoptOrMount(String device, Path directory, String type) {
        LoopFilesystem fs = new LoopFilesystem(device, directory, false);
        if (mountedThere(device, directory)) {
            fs.mounted = true;
            return fs;
        }
        return mount(fs, type, false);
    }

    /** Whether /proc/self/mounts has {@code device} mounted on {@code directory}. */
    private static boolean mountedThere(String device, Path directory) {
        try {
            for (String line : java.nio.file.Files.readAllLines(Path.of("/proc/self/mounts"))) {
                String[] f = line.split(" ");
                if (f.length > 1 && f[0].equals(device) && f[1].equals(directory.toString())) {
                    return true;
                }
            }
            return false;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static LoopFilesystem mount(LoopFilesystem fs, String type, boolean mkfs) {
        String device = fs.device;
        Path directory = fs.directory;
        try {
            if (mkfs) {
                ExternalCommand.check(TOOL_SECONDS, mkfsCommand(type, device));
            }
            ExternalCommand.check(TOOL_SECONDS, List.of("mount", "-t", type, device, directory.toString()));
            fs.mounted = true;
            return fs;
        } catch (RuntimeException e) {
            fs.close();
            throw e;
        }
    }

    private static List<String> mkfsCommand(String type, String device) {
        return switch (type) {
            case "ext2", "ext3", "ext4" -> List.of("mkfs." + type, "-F", "-q", device);
            case "xfs" -> List.of("mkfs.xfs", "-f", "-q", device);
            default -> List.of("mkfs." + type, device);
        };
    }

    String device() {
        return device;
    }

    Path directory() {
        return directory;
    }

    /** umount DIR (which writes back the file system's dirty data and journal), then detach the loop device. */
    @Override
    public void close() {
        RuntimeException first = null;
        if (mounted) {
            try {
                ExternalCommand.check(TOOL_SECONDS, List.of("umount", directory.toString()));
                mounted = false;
            } catch (RuntimeException e) {
                first = e;
            }
        }
        if (!mounted && loop) {
            try {
                ExternalCommand.check(60, List.of("losetup", "-d", device));
            } catch (RuntimeException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
