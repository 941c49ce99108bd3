package io.nvmf4j.cli.serve;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Replaces a file so that after a crash it holds either the old or the new text, never a mix: write a temporary file
 * beside it, fsync it, rename it over the old one, fsync the directory so the rename itself is durable (the
 * sequence rename(2) documents; ext4/xfs need the directory fsync for the new name to survive a power loss).
 */
final class AtomicSave {

    private AtomicSave() {
    }

    static void write(Path file, String text) throws IOException {
        Path target = file.toAbsolutePath();
        Path dir = target.getParent();
        Path temp = Files.createTempFile(dir, "." + target.getFileName() + ".", ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer data = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                while (data.hasRemaining()) {
                    ch.write(data);
                }
                ch.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        } catch (IOException e) {
            // some file systems cannot open or sync a directory; the rename is still atomic
        }
    }
}
