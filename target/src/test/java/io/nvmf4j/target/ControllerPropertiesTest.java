package io.nvmf4j.target;

import static io.nvmf4j.target.TargetFixture.SUBNQN;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.SubmissionQueueEntry;
import io.nvmf4j.protocol.Wire;
import io.nvmf4j.protocol.admin.IdentifyCommand;
import io.nvmf4j.target.backend.BackendException;
import io.nvmf4j.target.backend.NamespaceBackend;
import io.nvmf4j.target.backend.RamBackend;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Property Get/Set and the CC/CSTS state machine (NVMe Base 2.0, 3.1.4 and 3.6; nvmet_update_cc()). */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ControllerPropertiesTest {

    private final TargetFixture fx = new TargetFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void capAdvertisesQueueSizeContiguousQueuesTimeoutAndNvmCommandSet() {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        long cap = host.getProperty(0x00, true);
        // MQES 127 (0's based, port queue size 128) | CQR | TO 15 (7.5 s) | DSTRD 0 | CSS bit 37 (NVM)
        assertEquals(127L | 1L << 16 | 15L << 24 | 1L << 37, cap);
        assertEquals(0x0001_0300L, host.getProperty(0x08, false), "VS 1.3.0");
        assertEquals(0, host.getProperty(0x14, false), "CC after Connect");
        assertEquals(0, host.getProperty(0x1C, false), "CSTS after Connect");
    }

    @Test
    void enablingSetsReadyAndDisablingClearsIt() {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        host.setProperty(0x14, LoopHost.CC_ENABLE_NVM);
        assertEquals(LoopHost.CC_ENABLE_NVM, host.getProperty(0x14, false));
        assertEquals(1, host.getProperty(0x1C, false), "CSTS.RDY");
        host.setProperty(0x14, LoopHost.CC_ENABLE_NVM & ~1);
        assertEquals(0, host.getProperty(0x1C, false), "reset: RDY clear");
        assertEquals(0, host.getProperty(0x14, false), "nvmet clears CC on reset");
    }

    @Test
    void enablingWithUnsupportedQueueEntrySizesIsAControllerFatalStatus() {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        host.setProperty(0x14, 0x0045_0001); // IOSQES 5 (32 bytes): not 64
        assertEquals(2, host.getProperty(0x1C, false), "CSTS.CFS, not RDY");
    }

    @Test
    void normalShutdownReportsProcessingWhileFlushingThenComplete() throws Exception {
        CountDownLatch flushStarted = new CountDownLatch(1);
        CountDownLatch releaseFlush = new CountDownLatch(1);
        NamespaceBackend slowFlush = new SlowFlushBackend(RamBackend.allocate(1 << 16, 512), flushStarted,
                releaseFlush);
        fx.subsystem.addNamespace(SubsystemNamespace.of(2, slowFlush));
        LoopHost host = fx.host().connectAndEnable(SUBNQN);

        host.setProperty(0x14, LoopHost.CC_ENABLE_NVM | 1 << 14); // SHN = 01b normal
        assertTrue(flushStarted.await(5, TimeUnit.SECONDS));
        long csts = host.getProperty(0x1C, false);
        assertEquals(0x1 << 2, csts, "SHST 01b processing, RDY cleared");
        releaseFlush.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while ((host.getProperty(0x1C, false) & 0xC) != 0x8 && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(0x2 << 2, host.getProperty(0x1C, false), "SHST 10b complete");
    }

    @Test
    void unknownOrReadOnlyPropertiesAreInvalidFieldsWithTheirLocation() {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        Request get = host.submit(host.admin, LoopHost.propertyGet(0x24, false));
        assertEquals(0x6002, get.cqe().statusField(), "INVALID_FIELD | DNR | More");
        Request setCap = host.submit(host.admin, LoopHost.propertySet(0x00, 1));
        assertEquals(0x6002, setCap.cqe().statusField());
        Request eightByteCc = host.submit(host.admin, LoopHost.propertyGet(0x14, true));
        assertEquals(0x6002, eightByteCc.cqe().statusField(), "CC is a 4-byte property");
        assertEquals(3, host.controller().errorLog().errorCount());
        // the error log records the offset of the offending field (OFST, byte 44)
        MemorySegment log = host.buffer(64);
        SubmissionQueueEntry sqe = SubmissionQueueEntry.allocate();
        io.nvmf4j.protocol.admin.GetLogPageCommand.create(sqe, 0x01, 0xFFFF_FFFFL, 64);
        host.setProperty(0x14, LoopHost.CC_ENABLE_NVM);
        host.submit(host.admin, sqe, log);
        assertEquals(44, Wire.u16(log, 14), "parameter error location of the newest entry");
    }

    @Test
    void adminCommandsBeforeEnableAreCommandSequenceErrors() {
        LoopHost host = fx.host();
        host.connectAdmin(SUBNQN, 0);
        SubmissionQueueEntry identify = SubmissionQueueEntry.allocate();
        IdentifyCommand.create(identify, IdentifyCommand.CNS_CONTROLLER, 0);
        Request r = host.submit(host.admin, identify, host.buffer(4096));
        assertEquals(0x400C, r.cqe().statusField(), "CMD_SEQ_ERROR | DNR (no error location, no More)");
    }

    @Test
    void ioCommandsWhileTheControllerIsDisabledAreCommandSequenceErrors() {
        LoopHost host = fx.host().connectAndEnable(SUBNQN);
        host.connectIo(SUBNQN, 1, 31);
        host.setProperty(0x14, 0);
        SubmissionQueueEntry read = SubmissionQueueEntry.allocate();
        io.nvmf4j.protocol.io.ReadCommand.create(read, 1, 0, 1);
        Request r = host.submit(host.ioQueues.get(1), read, host.buffer(512));
        assertEquals(0x400C, r.cqe().statusField());
    }

    @Test
    void discoveryControllerCapIsTheSameShape() {
        LoopHost host = fx.host();
        assertEquals(0, host.connectAdmin(Nqn.DISCOVERY_VALUE, 0).cqe().statusField());
        assertEquals(127L | 1L << 16 | 15L << 24 | 1L << 37, host.getProperty(0, true));
        assertEquals(120, host.controller().keepAliveTimeoutSeconds(), "discovery KATO 0 becomes 120 s");
    }

    /** Delegates to a RAM backend but blocks in flush until released, to observe SHST 01b. */
    private record SlowFlushBackend(RamBackend ram, CountDownLatch started, CountDownLatch release)
            implements NamespaceBackend {
        @Override
        public int blockSize() { return ram.blockSize(); }
        @Override
        public long sizeInBytes() { return ram.sizeInBytes(); }
        @Override
        public void read(long lba, MemorySegment d) throws BackendException { ram.read(lba, d); }
        @Override
        public void write(long lba, MemorySegment s, boolean fua) throws BackendException { ram.write(lba, s, fua); }
        @Override
        public void writeZeroes(long lba, long n) throws BackendException { ram.writeZeroes(lba, n); }
        @Override
        public void deallocate(long lba, long n) throws BackendException { ram.deallocate(lba, n); }
        @Override
        public boolean volatileWriteCache() { return true; }
        @Override
        public String description() { return "slow-flush " + ram.description(); }
        @Override
        public void close() { ram.close(); }

        @Override
        public void flush() {
            started.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
