package io.nvmf4j.cli.powerloss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.cli.serve.TargetDaemon;
import io.nvmf4j.cli.serve.TestDaemons;
import io.nvmf4j.config.Provider;
import io.nvmf4j.config.QuickConfig;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The power-loss writer of interop check 38 against the Java target on a file: the marks come in the order the
 * replay expects, the record lists every write, no FUA write goes to a block with a plain write since the last Flush,
 * and the file ends holding each block's last recorded write byte for byte (the layout the replay checks).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PowerLossWriterTest {

    private static final String NQN = "nqn.2026-12.io.nvmf4j:powerloss";

    @TempDir
    Path dir;

    @Test
    void recordsEveryAcknowledgedWriteAndMarksAroundEachFlush() throws Exception {
        Path img = dir.resolve("plog.img");
        try (var f = java.nio.channels.FileChannel.open(img, java.nio.file.StandardOpenOption.CREATE_NEW,
                java.nio.file.StandardOpenOption.WRITE)) {
            f.write(java.nio.ByteBuffer.wrap(new byte[1]), 256L * PowerLossWriter.BLOCK - 1);
        }
        int port = TestDaemons.freePort();
        TargetDaemon daemon = TargetDaemon.start(QuickConfig.builder().nqn(NQN).file(img).blockSize(4096)
                .listen("127.0.0.1:" + port).provider(Provider.SOFTIWARP).pollGroups(1).build(), false);
        Path record = dir.resolve("record.txt");
        List<String> marks = new ArrayList<>();
        PowerLossWriter.Summary sum;
        try {
            sum = PowerLossWriter.run(new PowerLossWriter.Settings(new InetSocketAddress("127.0.0.1", port), NQN,
                    record, 3, 60, 8, 40, 42L, "softiwarp", Duration.ofSeconds(20)), marks::add);
        } finally {
            daemon.close();
        }
        assertEquals(List.of("pre-1", "post-1", "post-2", "pre-3", "post-3"), marks);
        assertEquals(180, sum.writes());
        assertEquals(256, sum.blocks());

        Map<Long, Long> last = new HashMap<>();
        Map<Long, Boolean> fuaOf = new HashMap<>();
        Set<Long> plainSinceFlush = new HashSet<>();
        int writes = 0;
        for (String line : Files.readAllLines(record)) {
            String[] p = line.split(" ");
            if (p[0].equals("W")) {
                writes++;
                long seq = Long.parseLong(p[1]);
                long block = Long.parseLong(p[2]);
                boolean fua = p[3].equals("1");
                if (fua) {
                    assertTrue(!plainSinceFlush.contains(block), "FUA write " + seq + " to block " + block
                            + ", which has a plain write since the last Flush");
                } else {
                    plainSinceFlush.add(block);
                }
                last.merge(block, seq, Math::max);
                fuaOf.put(seq, fua);
            } else if (p[0].equals("M") && p[2].equals("F")) {
                plainSinceFlush.clear();
            }
        }
        assertEquals(180, writes);
        byte[] disk = Files.readAllBytes(img);
        MemorySegment want = MemorySegment.ofArray(new byte[PowerLossWriter.BLOCK]);
        for (var e : last.entrySet()) {
            PowerLossWriter.fill(want, e.getKey(), e.getValue(), fuaOf.get(e.getValue()), sum.nonce());
            MemorySegment got = MemorySegment.ofArray(disk).asSlice(e.getKey() * PowerLossWriter.BLOCK,
                    PowerLossWriter.BLOCK);
            assertEquals(-1L, got.mismatch(want), "block " + e.getKey() + " does not hold write " + e.getValue());
        }
    }
}
