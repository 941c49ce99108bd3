package io.nvmf4j.cli.mount;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.nvmf4j.cli.demo.EmbeddedTarget;
import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.NvmeController;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Byte ranges onto logical blocks, against a real target (RAM namespace, 512-byte blocks, softiwarp on
 * loopback) and a shadow copy of what the namespace must hold: unaligned writes read-modify-write their edge
 * blocks and leave the neighbouring bytes alone, concurrent unaligned writes into one block both land, zeroing
 * zeroes exactly the range.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NamespaceFileTest {

    static final long BYTES = 1L << 20;
    static EmbeddedTarget target;
    static NvmeController controller;
    static NamespaceFile file;
    static byte[] shadow = new byte[(int) BYTES];

    @BeforeAll
    static void connect() throws Exception {
        target = EmbeddedTarget.start(BYTES, 512, "softiwarp", 0, 1);
        controller = NvmeController.connect(ConnectOptions.builder(target.address(), EmbeddedTarget.SUBSYSTEM)
                .provider("softiwarp").ioQueues(2).build());
        file = new NamespaceFile("nvme0n1", 2, controller.firstNamespace(), new ScratchPool(8));
        new Random(1).nextBytes(shadow);
        write(0, shadow.clone());
    }

    @AfterAll
    static void close() {
        if (controller != null) {
            controller.close();
        }
        if (target != null) {
            target.close();
        }
    }

    private static MemorySegment segment(byte[] data) {
        return MemorySegment.ofArray(data);
    }

    private static void write(long offset, byte[] data) throws Exception {
        file.write(offset, segment(data)).get(30, TimeUnit.SECONDS);
        System.arraycopy(data, 0, shadow, (int) offset, data.length);
    }

    private static void assertNamespaceEqualsShadow() throws Exception {
        try (NamespaceFile.Data all = file.read(0, BYTES).get(30, TimeUnit.SECONDS)) {
            assertArrayEquals(shadow, all.bytes().toArray(ValueLayout.JAVA_BYTE));
        }
    }

    @Test
    void unalignedWritesInsideOneBlockAcrossTwoAndAcrossManyKeepTheirNeighbours() throws Exception {
        Random r = new Random(2);
        long[][] ranges = {{1000, 5}, {1020, 10}, {4000, 1000}, {8191, 2}, {10_000, 70_000}, {512 * 40, 700}};
        for (long[] range : ranges) {
            byte[] data = new byte[(int) range[1]];
            r.nextBytes(data);
            write(range[0], data);
        }
        assertNamespaceEqualsShadow();
    }

    @Test
    void unalignedReadsReturnExactlyTheirBytes() throws Exception {
        for (long[] range : new long[][] {{1, 1}, {511, 2}, {513, 1500}, {100_000, 4096}}) {
            try (NamespaceFile.Data got = file.read(range[0], range[1]).get(30, TimeUnit.SECONDS)) {
                byte[] expected = java.util.Arrays.copyOfRange(shadow, (int) range[0], (int) (range[0] + range[1]));
                assertArrayEquals(expected, got.bytes().toArray(ValueLayout.JAVA_BYTE), "range " + range[0]);
            }
        }
    }

    @Test
    void concurrentUnalignedWritesIntoTheSameBlockBothLand() throws Exception {
        List<CompletableFuture<Void>> all = new ArrayList<>();
        long block = 300 * 512L;
        for (int i = 0; i < 16; i++) {
            byte[] data = new byte[20];
            java.util.Arrays.fill(data, (byte) (i + 1));
            long at = block + i * 25L;
            all.add(file.write(at, segment(data)));
            System.arraycopy(data, 0, shadow, (int) at, data.length);
        }
        CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        assertNamespaceEqualsShadow();
    }

    @Test
    void zeroingAnUnalignedRangeZeroesExactlyIt() throws Exception {
        file.zero(600_000 + 3, 5000, true).get(30, TimeUnit.SECONDS);
        java.util.Arrays.fill(shadow, 600_003, 605_003, (byte) 0);
        file.zero(700_000 + 100, 300, false).get(30, TimeUnit.SECONDS);
        java.util.Arrays.fill(shadow, 700_100, 700_400, (byte) 0);
        file.zero(800_768, 1024, false).get(30, TimeUnit.SECONDS);
        java.util.Arrays.fill(shadow, 800_768, 801_792, (byte) 0);
        assertNamespaceEqualsShadow();
        assertEquals(BYTES, file.size());
    }
}
