package io.nvmf4j.initiator.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The queue lock: mutual exclusion, reentrancy, and no allocation when two threads contend for it. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SpinLockTest {

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private long counter;

    @Test
    void twoContendingThreadsNeverLoseAnUpdateAndAllocateNothing() throws Exception {
        THREADS.setThreadAllocatedMemoryEnabled(true);
        SpinLock lock = new SpinLock();
        int rounds = 500_000;
        long[] allocated = new long[2];
        Runnable work = () -> {
            for (int i = 0; i < rounds; i++) { // warm-up, same loop
                lock.lock();
                try {
                    counter++;
                } finally {
                    lock.unlock();
                }
            }
        };
        Thread a = Thread.ofPlatform().unstarted(() -> {
            long before = THREADS.getThreadAllocatedBytes(Thread.currentThread().threadId());
            work.run();
            allocated[0] = THREADS.getThreadAllocatedBytes(Thread.currentThread().threadId()) - before;
        });
        Thread b = Thread.ofPlatform().unstarted(() -> {
            long before = THREADS.getThreadAllocatedBytes(Thread.currentThread().threadId());
            work.run();
            allocated[1] = THREADS.getThreadAllocatedBytes(Thread.currentThread().threadId()) - before;
        });
        a.start();
        b.start();
        a.join();
        b.join();
        assertEquals(2L * rounds, counter);
        assertTrue(allocated[0] + allocated[1] < 4096, "allocated " + allocated[0] + " + " + allocated[1] + " bytes");
    }

    @Test
    void theOwnerMayReenterAndOnlyTheOwnerMayUnlock() throws Exception {
        SpinLock lock = new SpinLock();
        lock.lock();
        lock.lock();
        lock.unlock();
        Thread other = Thread.ofPlatform().start(() ->
                assertThrows(IllegalMonitorStateException.class, lock::unlock));
        other.join();
        boolean[] got = new boolean[1];
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            got[0] = true;
            lock.unlock();
        });
        waiter.join(200);
        assertTrue(waiter.isAlive(), "still held once: the other thread waits");
        lock.unlock();
        waiter.join(10_000);
        assertTrue(got[0]);
        assertThrows(IllegalMonitorStateException.class, lock::unlock);
    }
}
