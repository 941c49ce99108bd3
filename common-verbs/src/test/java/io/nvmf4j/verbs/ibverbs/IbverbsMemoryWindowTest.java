package io.nvmf4j.verbs.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.MemoryWindow;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.VerbsErrorCode;
import io.nvmf4j.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The ibverbs window is a registration of exactly the bound slice (siw has no memory windows): what it registers
 * with is checked here without a device (the bind itself needs one; the conformance suite runs it in the lab).
 */
class IbverbsMemoryWindowTest {
    private static final Set<AccessFlag> READ_WRITE = EnumSet.of(AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE);

    /** A registered region as far as the checks look at it. */
    private record FakeRegion(ProtectionDomain protectionDomain, MemorySegment segment, Set<AccessFlag> accessFlags,
                              boolean isValid) implements MemoryRegion {
        @Override
        public int lkey() {
            return 1;
        }

        @Override
        public int rkey() {
            return 1;
        }

        @Override
        public long address() {
            return segment.address();
        }

        @Override
        public long length() {
            return segment.byteSize();
        }

        @Override
        public int refreshKey() {
            return 1;
        }

        @Override
        public void close() {
        }
    }

    private static final class FakePd implements ProtectionDomain {
        @Override
        public RdmaDevice device() {
            return null;
        }

        @Override
        public MemoryRegion register(MemorySegment nativeSegment, Set<AccessFlag> access) {
            throw new UnsupportedOperationException();
        }

        @Override
        public MemoryWindow allocateWindow() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
    }

    @Test
    void theSliceIsRegisteredWithTheRemoteRightsAndLocalWriteForRemoteWrite() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            FakePd pd = new FakePd();
            MemoryRegion region = new FakeRegion(pd, arena.allocate(4096),
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND), true);
            assertEquals(EnumSet.of(AccessFlag.REMOTE_READ),
                    IbverbsMemoryWindow.checkedAccess(region, pd, 0, 4096, EnumSet.of(AccessFlag.REMOTE_READ)));
            assertEquals(EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE),
                    IbverbsMemoryWindow.checkedAccess(region, pd, 4095, 1, EnumSet.of(AccessFlag.REMOTE_WRITE)));
            assertEquals(EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE),
                    IbverbsMemoryWindow.checkedAccess(region, pd, 1024, 512, READ_WRITE));
        }
    }

    @Test
    void aBindOutsideTheRulesIsRefusedBeforeAnyRegistration() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            FakePd pd = new FakePd();
            MemorySegment memory = arena.allocate(4096);
            MemoryRegion bindable = new FakeRegion(pd, memory, EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND),
                    true);
            assertRefused(VerbsErrorCode.INVALID_KEY, new FakeRegion(new FakePd(), memory,
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND), true), pd, 0, 64, READ_WRITE);
            assertRefused(VerbsErrorCode.INVALID_KEY, new FakeRegion(pd, memory,
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.MW_BIND), false), pd, 0, 64, READ_WRITE);
            assertRefused(VerbsErrorCode.INVALID_ARGUMENT, new FakeRegion(pd, memory,
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE), true), pd, 0, 64, READ_WRITE);
            assertRefused(VerbsErrorCode.INVALID_ARGUMENT, bindable, pd, 0, 0, READ_WRITE);
            assertRefused(VerbsErrorCode.INVALID_ARGUMENT, bindable, pd, -1, 64, READ_WRITE);
            assertRefused(VerbsErrorCode.INVALID_ARGUMENT, bindable, pd, 4033, 64, READ_WRITE);
            assertRefused(VerbsErrorCode.INVALID_ARGUMENT, bindable, pd, 0, Long.MAX_VALUE, READ_WRITE);
            assertRefused(VerbsErrorCode.INVALID_ARGUMENT, bindable, pd, 0, 64, EnumSet.noneOf(AccessFlag.class));
            assertRefused(VerbsErrorCode.INVALID_ARGUMENT, bindable, pd, 0, 64, EnumSet.of(AccessFlag.LOCAL_WRITE));
            assertRefused(VerbsErrorCode.INVALID_ARGUMENT, new FakeRegion(pd, memory, EnumSet.of(AccessFlag.MW_BIND),
                    true), pd, 0, 64, EnumSet.of(AccessFlag.REMOTE_WRITE));
        }
    }

    private static void assertRefused(VerbsErrorCode code, MemoryRegion region, ProtectionDomain pd, long offset,
                                      long length, Set<AccessFlag> access) {
        VerbsException e = assertThrows(VerbsException.class,
                () -> IbverbsMemoryWindow.checkedAccess(region, pd, offset, length, access));
        assertEquals(code, e.code(), e::getMessage);
    }
}
