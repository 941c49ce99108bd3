package io.nvmf4j.hostile;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.protocol.Nqn;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Random;

/**
 * A well-behaved nvmf4j host (the project's initiator) on the attacked target: it writes a pattern and reads it back,
 * in transfers large enough to go through the target's buffer pool (RDMA Read of the write, RDMA Write of the read).
 * Short timeouts, so a starved target fails the test in seconds rather than hanging it.
 */
final class LegitimateHost implements AutoCloseable {

    static final int TRANSFER = 128 * 1024;
    /** Where the legitimate host keeps its data: the second half of the namespace (attacks never write there). */
    static final long FIRST_LBA = TargetUnderAttack.NAMESPACE_BYTES / 2 / 512;

    final NvmeController controller;
    private final Namespace namespace;
    private final IoBuffer out;
    private final IoBuffer in;

    private LegitimateHost(NvmeController controller) throws NvmfException {
        this.controller = controller;
        this.namespace = controller.firstNamespace();
        this.out = controller.allocateBuffer(TRANSFER);
        this.in = controller.allocateBuffer(TRANSFER);
    }

    static LegitimateHost connect(InetSocketAddress target) throws NvmfException {
        return new LegitimateHost(NvmeController.connect(ConnectOptions.builder(target, Nqn.parse(
                TargetUnderAttack.SUBNQN)).host(HostIdentity.generate()).provider("softiwarp").ioQueues(1)
                .queueSize(32).connectTimeout(Duration.ofSeconds(5)).commandTimeout(Duration.ofSeconds(5))
                .reconnectDelay(Duration.ofSeconds(1)).ctrlLossTimeout(Duration.ofSeconds(1)).build()));
    }

    /** Writes {@code rounds} transfers of a seeded pattern, reads each back and compares every byte. */
    void verifiedIo(long seed, int rounds) throws NvmfException {
        Random random = new Random(seed);
        long blocks = TRANSFER / namespace.blockSize();
        for (int i = 0; i < rounds; i++) {
            byte[] pattern = new byte[TRANSFER];
            random.nextBytes(pattern);
            long lba = FIRST_LBA + (long) i * blocks;
            MemorySegment.copy(MemorySegment.ofArray(pattern), 0, out.segment(), 0, TRANSFER);
            namespace.write(lba, blocks, out, 0);
            in.segment().fill((byte) 0);
            namespace.read(lba, blocks, in, 0);
            long mismatch = in.segment().mismatch(out.segment());
            if (mismatch >= 0) {
                throw new AssertionError("read back differs from what was written at byte " + mismatch + " of LBA "
                        + lba);
            }
        }
    }

    /** Writes one seeded transfer at the start of the host's area (checked later by {@link #patternIntact}). */
    void writePattern(long seed) throws NvmfException {
        byte[] pattern = new byte[TRANSFER];
        new Random(seed).nextBytes(pattern);
        MemorySegment.copy(MemorySegment.ofArray(pattern), 0, out.segment(), 0, TRANSFER);
        namespace.write(FIRST_LBA, TRANSFER / namespace.blockSize(), out, 0);
    }

    /** Reads the transfer of {@link #writePattern} back: null if intact, else where it differs. */
    String patternIntact(long seed) throws NvmfException {
        byte[] pattern = new byte[TRANSFER];
        new Random(seed).nextBytes(pattern);
        in.segment().fill((byte) 0);
        namespace.read(FIRST_LBA, TRANSFER / namespace.blockSize(), in, 0);
        long m = in.segment().mismatch(MemorySegment.ofArray(pattern));
        return m < 0 ? null : "the host's data changed at byte " + m;
    }

    /** Fills {@code bytes} of the namespace with a marker the attacks then look for in what the target sends them. */
    void writeSecret(byte[] marker, long bytes) throws NvmfException {
        for (int i = 0; i < TRANSFER; i += marker.length) {
            MemorySegment.copy(MemorySegment.ofArray(marker), 0, out.segment(), i, Math.min(marker.length,
                    TRANSFER - i));
        }
        long blocks = TRANSFER / namespace.blockSize();
        for (long off = 0; off < bytes; off += TRANSFER) {
            namespace.write(FIRST_LBA + off / namespace.blockSize(), blocks, out, 0);
            namespace.read(FIRST_LBA + off / namespace.blockSize(), blocks, in, 0);
        }
    }

    @Override
    public void close() {
        in.close();
        out.close();
        controller.close();
    }
}
