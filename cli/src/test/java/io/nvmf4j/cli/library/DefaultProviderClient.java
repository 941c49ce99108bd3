package io.nvmf4j.cli.library;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.protocol.Nqn;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;

/**
 * A library user as the README shows one, started in its own JVM by {@link LibraryWithoutNativeAccessTest}: connects
 * with the default provider (none named), reads a block, prints what it used.
 */
public final class DefaultProviderClient {

    private DefaultProviderClient() {
    }

    public static void main(String[] args) throws Exception {
        ConnectOptions options = ConnectOptions.builder(new InetSocketAddress(args[0], Integer.parseInt(args[1])),
                Nqn.parse(args[2])).host(HostIdentity.generate()).ioQueues(1).build();
        try (NvmeController c = NvmeController.connect(options)) {
            Namespace ns = c.firstNamespace();
            MemorySegment block = MemorySegment.ofArray(new byte[(int) ns.blockSize()]);
            ns.read(0, 1, block);
            System.out.println("read 1 block of " + ns.blockSize() + " bytes");
        }
    }
}
