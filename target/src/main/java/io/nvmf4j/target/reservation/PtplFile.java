package io.nvmf4j.target.reservation;

import io.nvmf4j.protocol.io.ReservationType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * The Persist Through Power Loss file of one namespace (NVMe Base 2.0, 8.19.10; SPDK keeps the same facts in its
 * {@code ptpl_file} JSON: ptpl, rtype, crkey, holder_uuid, registrants). One fact per line, so a reader can check it
 * with a text editor:
 *
 * <pre>
 * nvmf4j-reservations 1
 * ptpl 1
 * generation 7
 * type 3                                   (0: no reservation)
 * holder 00112233445566778899aabbccddeeff  (absent without a reservation)
 * registrant 00112233445566778899aabbccddeeff 000000000000abcd 1   (host id, key, controller id)
 * </pre>
 *
 * <p>Written atomically: a temporary file in the same directory, fsync, rename over the old one, fsync of the
 * directory, so a crash leaves either the old or the new state, never a torn one.
 */
final class PtplFile {

    private static final String MAGIC = "nvmf4j-reservations 1";

    record Saved(boolean ptpl, long generation, ReservationType type, HostId holder, List<Registrant> registrants) {
    }

    private final Path path;

    PtplFile(Path path) {
        this.path = path.toAbsolutePath();
    }

    Path path() {
        return path;
    }

    /** The saved state, or null when there is no file. */
    Saved load() throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(path, StandardCharsets.US_ASCII);
        } catch (NoSuchFileException e) {
            return null;
        }
        if (lines.isEmpty() || !lines.get(0).equals(MAGIC)) {
            throw new IOException(path + ": not a reservation state file (first line must be \"" + MAGIC + "\")");
        }
        boolean ptpl = false;
        long generation = 0;
        ReservationType type = null;
        HostId holder = null;
        List<Registrant> registrants = new ArrayList<>();
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\\s+");
            try {
                switch (f[0]) {
                    case "ptpl" -> ptpl = "1".equals(f[1]);
                    case "generation" -> generation = Long.parseLong(f[1]);
                    case "type" -> type = ReservationType.ofCode(Integer.parseInt(f[1]));
                    case "holder" -> holder = HostId.parse(f[1]);
                    case "registrant" -> registrants.add(new Registrant(HostId.parse(f[1]),
                            Long.parseUnsignedLong(f[2], 16), Integer.parseInt(f[3])));
                    default -> throw new IllegalArgumentException("unknown fact \"" + f[0] + "\"");
                }
            } catch (RuntimeException e) {
                throw new IOException(path + " line " + (i + 1) + " \"" + line + "\": " + e.getMessage(), e);
            }
        }
        if (registrants.size() > ReservationState.MAX_REGISTRANTS) {
            throw new IOException(path + ": " + registrants.size() + " registrants, more than "
                    + ReservationState.MAX_REGISTRANTS);
        }
        return new Saved(ptpl, generation, type, holder, registrants);
    }

    void store(Saved s) throws IOException {
        StringBuilder b = new StringBuilder(MAGIC).append('\n');
        b.append("ptpl ").append(s.ptpl() ? 1 : 0).append('\n');
        b.append("generation ").append(s.generation()).append('\n');
        b.append("type ").append(s.type() == null ? 0 : s.type().code()).append('\n');
        if (s.holder() != null) {
            b.append("holder ").append(s.holder()).append('\n');
        }
        for (Registrant r : s.registrants()) {
            b.append("registrant ").append(r.host()).append(' ')
                    .append(HexFormat.of().toHexDigits(r.key())).append(' ').append(r.cntlid()).append('\n');
        }
        writeAtomically(path, b.toString().getBytes(StandardCharsets.US_ASCII));
    }

    /** temp + fsync + rename + directory fsync. */
    static void writeAtomically(Path file, byte[] content) throws IOException {
        Path dir = file.getParent();
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer buf = ByteBuffer.wrap(content);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
    }
}
