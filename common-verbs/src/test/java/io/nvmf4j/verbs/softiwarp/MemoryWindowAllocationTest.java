package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.management.ManagementFactory;
import java.util.EnumSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An initiator binds a window once per I/O: bind and invalidate allocate nothing (the STag entry, its index and its
 * key generator are made once, at allocateWindow), measured with ThreadMXBean#getThreadAllocatedBytes as
 * SteadyStateAllocationTest does.
 */
@Timeout(60)
class MemoryWindowAllocationTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void bindAndInvalidateAllocateNothingPerIo() throws Exception {
        THREADS.setThreadAllocatedMemoryEnabled(true);
        try (Arena arena = Arena.ofConfined();
             RdmaDevice device = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties())) {
            ProtectionDomain pd = device.allocatePd();
            MemoryRegion pool = pd.register(arena.allocate(1 << 20, 4096),
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND));
            MemoryWindow window = pd.allocateWindow();
            Set<AccessFlag> write = EnumSet.of(AccessFlag.REMOTE_WRITE);
            Set<AccessFlag> read = EnumSet.of(AccessFlag.REMOTE_READ);
            long sum = 0;
            for (int i = 0; i < 20_000; i++) { // warm up: compiled code allocates what it will allocate
                sum += window.bind(pool, (i & 255) * 4096L, 4096, (i & 1) == 0 ? write : read);
                window.invalidate();
            }
            long tid = Thread.currentThread().threadId();
            long before = THREADS.getThreadAllocatedBytes(tid);
            for (int i = 0; i < 100_000; i++) {
                sum += window.bind(pool, (i & 255) * 4096L, 4096, (i & 1) == 0 ? write : read);
                window.invalidate();
            }
            long allocated = THREADS.getThreadAllocatedBytes(tid) - before;
            assertTrue(allocated < 1024, allocated + " bytes allocated by 100000 bind+invalidate (sum " + sum + ")");
        }
    }
}
