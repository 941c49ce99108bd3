package io.nvmf4j.cli.mount;

import java.nio.file.Path;
import java.util.List;

/**
 * {@code --fs DIR}: a loop device on the exposed file ({@code losetup --find --show --direct-io=on}: the loop
 * driver then does O_DIRECT I/O on it, no second page cache), optionally formatted, mounted on DIR. Undone in
 * reverse: umount, {@code losetup -d}.
 */
final class LoopFilesystem implements AutoCloseable {

    /** Bound on one tool run; mkfs of a large namespace over a slow link is the longest. */
    private static final long TOOL_SECONDS = 600;

    private final String device;
    private final Path directory;
    private boolean mounted;

    private LoopFilesystem(String device, Path directory) {
        this.device = device;
        this.directory = directory;
    }

    /** Attaches, formats when {@code mkfs}, mounts; on a failure undoes what was done and rethrows. */
    static LoopFilesystem attach(Path file, Path directory, String type, boolean mkfs) {
        String device = ExternalCommand.check(60, List.of("losetup", "--find", "--show", "--direct-io=on",
                file.toString())).strip();
        LoopFilesystem fs = new LoopFilesystem(device, directory);
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
        if (!mounted) {
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
