package io.nvmf4j.cli.mount;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.Properties;

/**
 * What {@code nvmf4j umount} needs to find the process serving a mount point (a FUSE directory, an --fs directory,
 * or a {@code mount --ublk} device node): one properties file per name in
 * {@code /run/nvmf4j/mounts} (tmpfs: gone after a reboot, like the mounts), written once the mount is ready.
 */
record MountRecord(long pid, Path mountpoint, String fsDirectory, String loopDevice) {

    static final Path DIRECTORY = Path.of(System.getProperty("nvmf4j.run.dir", "/run/nvmf4j"), "mounts");

    static Path fileFor(Path mountpoint) {
        String key = mountpoint.toAbsolutePath().normalize().toString().replace('/', '_');
        return DIRECTORY.resolve(key + ".properties");
    }

    void write() throws IOException {
        Files.createDirectories(DIRECTORY);
        Properties p = new Properties();
        p.setProperty("pid", Long.toString(pid));
        p.setProperty("mountpoint", mountpoint.toString());
        if (fsDirectory != null) {
            p.setProperty("fs", fsDirectory);
        }
        if (loopDevice != null) {
            p.setProperty("loop", loopDevice); // the loop device under --fs, or mount --ublk's /dev/ublkbN
        }
        Path file = fileFor(mountpoint);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, "nvmf4j mount");
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static Optional<MountRecord> read(Path mountpoint) {
        Path file = fileFor(mountpoint);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
            return Optional.of(new MountRecord(Long.parseLong(p.getProperty("pid")),
                    Path.of(p.getProperty("mountpoint")), p.getProperty("fs"), p.getProperty("loop")));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    static void delete(Path mountpoint) {
        try {
            Files.deleteIfExists(fileFor(mountpoint));
        } catch (IOException ignored) {
            // a stale record is recognised by its dead pid
        }
    }
}
