package io.nvmf4j.target.rdma;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.backend.BackendSettings;
import io.nvmf4j.target.backend.FileBackend;
import io.nvmf4j.target.backend.NamespaceBackend;
import io.nvmf4j.target.backend.RamBackend;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A target over softiwarp on 127.0.0.1 (ephemeral port): one subsystem allowing {@link #HOST}, namespace 1 a 1 MiB
 * RAM disk with 512-byte blocks, namespace 2 a 1 MiB file with 4096-byte blocks; one poll group, 4 MiB of buffers.
 *
 * <p>The file lives in tmpfs ({@code /dev/shm}) where there is one, else in the test's directory. These tests are
 * about the transport, and a file on the machine's shared disk made them wait on whatever else writes to it:
 * during a CI run's cli tests (fio through a FUSE mount beside them) DataPathAllocationTest's 4 KiB O_DIRECT write
 * stayed 10.5 s in the kernel (submitted to the ring, its completion 10.5 s later), past the scripted host's 10 s
 * wait. tmpfs takes O_DIRECT since Linux 6.6; before that the backend says so and goes buffered, through the same
 * ring.
 */
final class RdmaTargetFixture implements AutoCloseable {

    static final String SUBNQN = "nqn.2026-12.io.nvmf4j:test:rdma";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555";
    static final String OTHER_HOST = "nqn.2014-08.org.nvmexpress:uuid:99999999-2222-3333-4444-555555555555";
    static final long NS_BYTES = 1 << 20;

    final NvmeTarget target = new NvmeTarget();
    final Port port;
    final Subsystem subsystem;
    final RamBackend ram;
    final FileBackend file;
    final RdmaTransport transport;
    final InetSocketAddress address;
    /** The file namespace's file. */
    final Path image;
    /** The tmpfs directory of the file namespace, removed on close (null: the file is in the test's directory). */
    private final Path memoryDir;

    RdmaTargetFixture(Path dir) throws Exception {
        this(dir, 8);
    }

    RdmaTargetFixture(Path dir, int mdts) throws Exception {
        this(dir, mdts, TransportObserver.NONE);
    }

    RdmaTargetFixture(Path dir, int mdts, TransportObserver observer) throws Exception {
        this(dir, mdts, observer, RdmaTransportOptions.builder().provider("softiwarp").pollGroups(1)
                .spinBudget(Duration.ofNanos(20_000)).bufferPoolBytes(4L << 20).completionQueueEntries(4096)
                .trace(true).build());
    }

    RdmaTargetFixture(Path dir, int mdts, TransportObserver observer, RdmaTransportOptions options)
            throws Exception {
        this(dir, mdts, observer, options, BackendSettings.DEFAULT, null);
    }

    /**
     * With the backend I/O settings given and, when {@code extra} is not null, that backend as namespace 3.
     */
    RdmaTargetFixture(Path dir, int mdts, TransportObserver observer, RdmaTransportOptions options,
                      BackendSettings backend, NamespaceBackend extra) throws Exception {
        port = Port.rdma(1, "127.0.0.1", "0").mdts(mdts).build();
        subsystem = Subsystem.builder(Nqn.parse(SUBNQN)).serial("NVMF4JRDMA0001").model("nvmf4j rdma test")
                .allowHost(HOST).build();
        ram = RamBackend.allocate(NS_BYTES, 512);
        subsystem.addNamespace(SubsystemNamespace.of(1, ram));
        memoryDir = memoryBackedDirectory();
        image = (memoryDir != null ? memoryDir : dir).resolve("ns2.img");
        try {
            Files.write(image, new byte[(int) NS_BYTES]);
            file = FileBackend.open(image, 4096);
            subsystem.addNamespace(SubsystemNamespace.of(2, file));
            if (extra != null) {
                subsystem.addNamespace(SubsystemNamespace.of(3, extra));
            }
            target.backendSettings(backend);
            target.addSubsystem(subsystem);
            target.addPort(port);
            port.addSubsystem(subsystem);
            transport = RdmaTransport.open(target, options, observer);
            InetSocketAddress bound = transport.listen(port);
            address = new InetSocketAddress("127.0.0.1", bound.getPort());
        } catch (Exception | Error e) {
            try {
                deleteMemoryDir();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** A new directory in tmpfs, or null where there is none to write to. */
    private static Path memoryBackedDirectory() {
        Path shm = Path.of("/dev/shm");
        if (!Files.isDirectory(shm) || !Files.isWritable(shm)) {
            return null;
        }
        try {
            return Files.createTempDirectory(shm, "nvmf4j-rdma-fixture-");
        } catch (IOException e) {
            return null;
        }
    }

    private void deleteMemoryDir() {
        if (memoryDir == null) {
            return;
        }
        try {
            Files.deleteIfExists(image);
            Files.deleteIfExists(memoryDir);
        } catch (IOException e) {
            throw new IllegalStateException("cannot remove " + memoryDir, e);
        }
    }

    @Override
    public void close() {
        try {
            transport.close();
            target.close();
        } finally {
            deleteMemoryDir();
        }
    }
}
