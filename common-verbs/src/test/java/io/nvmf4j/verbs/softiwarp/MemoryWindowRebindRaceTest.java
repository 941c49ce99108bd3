package io.nvmf4j.verbs.softiwarp;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.ProtectionDomain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The progress engine checks a peer's access to a window while its owner rebinds it on another thread. A check
 * must never mix two bindings - the key and rights of one with the bounds of the other - or a peer holding the
 * key of one command's buffer could reach the next command's. The owner flips the window between a read-only
 * slice A and a write-only slice B; whatever key the checker sees, a read of B or a write of A would pass only
 * on a torn binding.
 */
@Timeout(60)
class MemoryWindowRebindRaceTest {

    @Test
    void aCheckRacingARebindNeverMixesTwoBindings() throws Exception {
        try (Arena arena = Arena.ofShared();
             SoftiwarpDevice device = new SoftiwarpDevice(SoftiwarpConfig.fromSystemProperties())) {
            ProtectionDomain pd = device.allocatePd();
            SoftiwarpMemoryRegion region = (SoftiwarpMemoryRegion) pd.register(arena.allocate(16384, 4096),
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND));
            SoftiwarpMemoryWindow window = (SoftiwarpMemoryWindow) pd.allocateWindow();
            SoftiwarpProtectionDomain domain = (SoftiwarpProtectionDomain) pd;
            Set<AccessFlag> read = EnumSet.of(AccessFlag.REMOTE_READ);
            Set<AccessFlag> write = EnumSet.of(AccessFlag.REMOTE_WRITE);
            long a = region.address();
            long b = region.address() + 8192;
            window.bind(region, 0, 4096, read);

            AtomicBoolean stop = new AtomicBoolean();
            AtomicLong binds = new AtomicLong();
            Thread owner = Thread.ofPlatform().start(() -> {
                try {
                    while (!stop.get()) {
                        window.bind(region, 8192, 4096, write);
                        window.bind(region, 0, 4096, read);
                        binds.addAndGet(2);
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long checks = 0;
            long passed = 0;
            long torn = 0;
            long end = System.nanoTime() + 1_000_000_000L;
            while (System.nanoTime() < end) {
                int stag = window.rkey();
                SoftiwarpMemoryRegion target = window.target();
                if (window.checkRemote(stag, domain, true, false, b, 64, target) == MemoryCheck.OK
                        || window.checkRemote(stag, domain, false, true, a, 64, target) == MemoryCheck.OK) {
                    torn++;
                }
                if (window.checkRemote(stag, domain, true, false, a, 64, target) == MemoryCheck.OK
                        || window.checkRemote(stag, domain, false, true, b, 64, target) == MemoryCheck.OK) {
                    passed++;
                }
                checks++;
            }
            stop.set(true);
            owner.join();
            assertEquals(0, torn, "checks that mixed two bindings, of " + checks);
            assertTrue(passed > 0 && binds.get() > 1000, "the race did not run: " + passed + " valid checks, "
                    + binds.get() + " binds");
        }
    }
}
