package io.nvmf4j.target.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaProviders;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The poll group's buddy allocator: sizes, exhaustion, no overlap, and merging back to whole blocks. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BufferPoolTest {

    @Test
    void ordersRoundUpToPowersOfTwoPages() {
        assertEquals(0, BufferPool.orderFor(1));
        assertEquals(0, BufferPool.orderFor(4096));
        assertEquals(1, BufferPool.orderFor(4097));
        assertEquals(5, BufferPool.orderFor(128 * 1024));
        assertEquals(8, BufferPool.orderFor(1 << 20));
    }

    @Test
    void allocationsNeverOverlapAndEverythingMergesBack() throws Exception {
        try (RdmaDevice device = RdmaProviders.byName("softiwarp").openDevice(null);
             ProtectionDomain pd = device.allocatePd();
             BufferPool pool = new BufferPool(pd, 2L << 20, 1L << 20)) {
            long capacity = pool.capacity();
            assertEquals(2L << 20, capacity);
            Random random = new Random(5);
            List<long[]> taken = new ArrayList<>();
            for (int round = 0; round < 2000; round++) {
                if (!taken.isEmpty() && (random.nextBoolean() || taken.size() > 40)) {
                    long[] t = taken.remove(random.nextInt(taken.size()));
                    pool.free(t[0], t[1]);
                    continue;
                }
                int length = 1 + random.nextInt(300_000);
                long offset = pool.allocate(length);
                if (offset < 0) {
                    continue;
                }
                long size = (long) BufferPool.MIN_BLOCK << BufferPool.orderFor(length);
                assertEquals(0, offset % size, "aligned to its size");
                for (long[] t : taken) {
                    long tSize = (long) BufferPool.MIN_BLOCK << BufferPool.orderFor(t[1]);
                    assertTrue(offset + size <= t[0] || t[0] + tSize <= offset, "overlap");
                }
                taken.add(new long[] {offset, length});
            }
            for (long[] t : taken) {
                pool.free(t[0], t[1]);
            }
            assertEquals(capacity, pool.bytesFree());
            // whole largest blocks are available again
            long a = pool.allocate(1 << 20);
            long b = pool.allocate(1 << 20);
            assertTrue(a >= 0 && b >= 0);
            assertNotEquals(a, b);
            assertEquals(-1, pool.allocate(4096), "exhausted");
            assertEquals(-1, pool.allocate(2 << 20), "larger than the largest block");
        }
    }

    @Test
    void manySmallBuffersFillThePool() throws Exception {
        try (RdmaDevice device = RdmaProviders.byName("softiwarp").openDevice(null);
             ProtectionDomain pd = device.allocatePd();
             BufferPool pool = new BufferPool(pd, 1L << 20, 128 * 1024)) {
            Set<Long> offsets = new HashSet<>();
            long o;
            while ((o = pool.allocate(4096)) >= 0) {
                assertTrue(offsets.add(o));
            }
            assertEquals(pool.capacity() / 4096, offsets.size());
        }
    }
}
