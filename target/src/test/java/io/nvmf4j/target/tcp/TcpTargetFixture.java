package io.nvmf4j.target.tcp;

import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.target.NvmeTarget;
import io.nvmf4j.target.Port;
import io.nvmf4j.target.Subsystem;
import io.nvmf4j.target.SubsystemNamespace;
import io.nvmf4j.target.backend.FileBackend;
import io.nvmf4j.target.backend.RamBackend;
import io.nvmf4j.target.rdma.TransportObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A target with the TCP transport on 127.0.0.1 (ephemeral port): one subsystem allowing {@link #HOST}, namespace 1
 * a 1 MiB RAM disk with 512-byte blocks, namespace 2 a 1 MiB file with 4096-byte blocks (served through the poll
 * group's backend I/O, so its commands complete later on the poll thread); one poll group.
 */
final class TcpTargetFixture implements AutoCloseable {

    static final String SUBNQN = "nqn.2026-12.io.nvmf4j:test:tcp";
    static final String HOST = "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555";
    static final long NS_BYTES = 1 << 20;
    static final int BLOCK = 512;
    static final int FILE_BLOCK = 4096;

    final NvmeTarget target = new NvmeTarget();
    final Port port;
    final Subsystem subsystem;
    final RamBackend ram;
    final FileBackend file;
    final Path image;
    final TcpTransport transport;
    final InetSocketAddress address;

    TcpTargetFixture() throws IOException {
        this(options().build(), TransportObserver.NONE);
    }

    /** Test options: one poll group, a short spin, 4 MiB of buffers. */
    static TcpTransportOptions.Builder options() {
        return TcpTransportOptions.builder().pollGroups(1).spinBudget(Duration.ofNanos(20_000))
                .bufferPoolBytes(4L << 20);
    }

    TcpTargetFixture(TcpTransportOptions options, TransportObserver observer) throws IOException {
        port = Port.tcp(1, "127.0.0.1", "0").build();
        subsystem = Subsystem.builder(Nqn.parse(SUBNQN)).serial("NVMF4JTCP0001").model("nvmf4j tcp test")
                .allowHost(HOST).build();
        ram = RamBackend.allocate(NS_BYTES, BLOCK);
        subsystem.addNamespace(SubsystemNamespace.of(1, ram));
        image = Files.createTempFile(Files.isWritable(Path.of("/dev/shm")) ? Path.of("/dev/shm") : null,
                "nvmf4j-tcp-fixture-", ".img");
        Files.write(image, new byte[(int) NS_BYTES]);
        file = FileBackend.open(image, FILE_BLOCK);
        subsystem.addNamespace(SubsystemNamespace.of(2, file));
        target.addSubsystem(subsystem);
        target.addPort(port);
        port.addSubsystem(subsystem);
        transport = TcpTransport.open(target, options, observer);
        InetSocketAddress bound = transport.listen(port);
        address = new InetSocketAddress("127.0.0.1", bound.getPort());
    }

    /** A host with ICReq done and the admin queue connected and enabled; returns it. */
    RawTcpHost adminHost(boolean headerDigest, boolean dataDigest) throws IOException {
        RawTcpHost h = RawTcpHost.initialized(address, headerDigest, dataDigest);
        RawTcpHost.Response r = h.connect(0, 31, 0xFFFF, SUBNQN, HOST);
        if (r.status() != 0) {
            throw new IllegalStateException("admin Connect failed: " + r.cqe());
        }
        if (h.propertySet(0x14, 0x00460001L).status() != 0) {
            throw new IllegalStateException("Property Set CC failed");
        }
        return h;
    }

    /** An I/O queue host of the controller {@code admin} connected. */
    RawTcpHost ioHost(boolean headerDigest, boolean dataDigest) throws IOException {
        return ioHost(headerDigest, dataDigest, 0, 1);
    }

    /** An I/O queue host of queue {@code qid} whose Connect has {@code cattr} (0x04: SQ flow control off). */
    RawTcpHost ioHost(boolean headerDigest, boolean dataDigest, int cattr, int qid) throws IOException {
        int cntlid = subsystem.controllers().iterator().next().id();
        RawTcpHost h = RawTcpHost.initialized(address, headerDigest, dataDigest);
        h.connectCattr = cattr;
        RawTcpHost.Response r = h.connect(qid, 31, cntlid, SUBNQN, HOST);
        if (r.status() != 0) {
            throw new IllegalStateException("I/O Connect failed: " + r.cqe());
        }
        return h;
    }

    @Override
    public void close() {
        try {
            transport.close();
            target.close();
        } finally {
            deleteImage();
        }
    }

    private void deleteImage() {
        try {
            Files.deleteIfExists(image);
        } catch (IOException e) {
            System.err.println("cannot remove " + image + ": " + e);
        }
    }
}
