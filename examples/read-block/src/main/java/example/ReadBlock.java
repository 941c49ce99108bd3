package example;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.protocol.Nqn;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.HexFormat;

/**
 * Reads one logical block from the first namespace of an NVMe-oF RDMA subsystem and prints it as hex.
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -jar target/read-block-1.0.jar 127.0.0.1:4420 nqn.2026-12.io.nvmf4j:ram [LBA]
 * </pre>
 *
 * The default provider is softiwarp (iWARP over TCP), so any target reachable by TCP that speaks iWARP will do:
 * {@code nvmf4j serve}, or Linux {@code nvmet-rdma} on a {@code siw} device.
 */
public final class ReadBlock {

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: read-block HOST:PORT SUBSYSTEM_NQN [LBA]");
            System.exit(2);
        }
        int colon = args[0].lastIndexOf(':');
        InetSocketAddress target = new InetSocketAddress(args[0].substring(0, colon),
                Integer.parseInt(args[0].substring(colon + 1)));
        long lba = args.length > 2 ? Long.parseLong(args[2]) : 0;

        ConnectOptions options = ConnectOptions.builder(target, Nqn.parse(args[1]))
                .ioQueues(1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        try (NvmeController controller = NvmeController.connect(options)) {
            Namespace ns = controller.firstNamespace();
            System.out.printf("connected to %s, namespace %d: %d blocks of %d bytes%n",
                    args[1], ns.nsid(), ns.blockCount(), ns.blockSize());
            // memory registered with the controller: the target writes the block straight into it (no bounce copy);
            // it is freed with the controller. Plain memory works too, if the completion thread may touch it
            // (Arena.ofShared or ofAuto, not ofConfined).
            IoBuffer buffer = controller.allocateBuffer(ns.blockSize());
            ns.read(lba, 1, buffer, 0);
            byte[] bytes = buffer.segment().asSlice(0, ns.blockSize()).toArray(ValueLayout.JAVA_BYTE);
            HexFormat hex = HexFormat.of();
            for (int off = 0; off < bytes.length; off += 32) {
                System.out.printf("%08x  %s%n", lba * ns.blockSize() + off,
                        hex.formatHex(bytes, off, Math.min(off + 32, bytes.length)));
            }
        }
    }
}
