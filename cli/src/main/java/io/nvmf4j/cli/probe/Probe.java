package io.nvmf4j.cli.probe;

import io.nvmf4j.initiator.ConnectOptions;
import io.nvmf4j.initiator.Discovery;
import io.nvmf4j.initiator.DiscoveryLog;
import io.nvmf4j.initiator.DiscoveryRecord;
import io.nvmf4j.initiator.HostIdentity;
import io.nvmf4j.initiator.IoBuffer;
import io.nvmf4j.initiator.Namespace;
import io.nvmf4j.initiator.NvmeController;
import io.nvmf4j.initiator.NvmfException;
import io.nvmf4j.protocol.Nqn;
import io.nvmf4j.protocol.admin.IdentifyController;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Random;

/**
 * A small probe of a remote NVMe-oF/RDMA target, for the interop lab (e.g. the guest kernel's nvmet-rdma reached
 * at 127.0.0.1:14420): discover, connect to a subsystem, identify, and with {@code --verify} write random data
 * (4 KiB at random LBAs and one 128 KiB transfer) and read it back. Exit status 0 when everything worked.
 *
 * <pre>
 * java -cp ... io.nvmf4j.cli.probe.Probe [--provider softiwarp] [--nqn SUBNQN] [--verify] [host:port]
 * </pre>
 * Without {@code --nqn} the first NVM subsystem of the discovery log is used. {@code --verify} overwrites data on
 * the namespace: use it on scratch namespaces only.
 */
public final class Probe {

    private Probe() {
    }

    public static void main(String[] args) {
        String address = "127.0.0.1:14420";
        String nqn = null;
        String provider = null;
        boolean verify = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--nqn", "-n" -> nqn = args[++i];
                case "--provider" -> provider = args[++i];
                case "--verify" -> verify = true;
                default -> address = args[i];
            }
        }
        try {
            System.exit(run(address, nqn, provider, verify));
        } catch (NvmfException | RuntimeException e) {
            System.err.println("probe: " + e.getMessage());
            System.exit(1);
        }
    }

    static int run(String address, String nqn, String provider, boolean verify) throws NvmfException {
        int colon = address.lastIndexOf(':');
        InetSocketAddress target = new InetSocketAddress(address.substring(0, colon),
                Integer.parseInt(address.substring(colon + 1)));
        HostIdentity host = HostIdentity.fromSystem();
        System.out.println("host " + host.hostNqn() + " hostid " + host.hostId());

        DiscoveryLog log = Discovery.discover(ConnectOptions.discovery(target).host(host).provider(provider).build());
        System.out.println("discovery log genctr " + log.generation() + ", " + log.records().size() + " records");
        for (DiscoveryRecord r : log.records()) {
            System.out.printf("  %-9s %s %s:%s %s (portid %d, cntlid %d)%n", r.subtypeName(), r.trtypeName(),
                    r.traddr(), r.trsvcid(), r.subnqn(), r.portId(), r.cntlid());
        }
        if (nqn == null) {
            nqn = log.subsystems().stream().filter(r -> r.subtype() == 2).map(DiscoveryRecord::subnqn).findFirst()
                    .orElseThrow(() -> new IllegalStateException("the discovery log lists no NVM subsystem"));
        }
        ConnectOptions options = ConnectOptions.builder(target, Nqn.parse(nqn)).host(host).provider(provider)
                .ioQueues(2).queueSize(32).commandTimeout(Duration.ofSeconds(30)).build();
        try (NvmeController controller = NvmeController.connect(options)) {
            IdentifyController id = controller.identify();
            System.out.printf("controller %s: cntlid %d, NVMe %s, sn '%s', mn '%s', fr '%s'%n", nqn,
                    controller.controllerId().value(), controller.version(), id.serialNumber(), id.modelNumber(),
                    id.firmwareRevision());
            System.out.printf("  MDTS %d bytes, in-capsule %d bytes, %d I/O queues of %d, SGLS %08xh, KAS %d%n",
                    controller.maxTransferBytes(), controller.inCapsuleDataBytes(), controller.ioQueueCount(),
                    controller.ioQueueSize(), id.sgls(), id.kas());
            for (Namespace ns : controller.namespaces()) {
                System.out.printf("  namespace %d: %d blocks of %d bytes (%d MiB)%n", ns.nsid(), ns.blockCount(),
                        ns.blockSize(), ns.capacityBytes() >> 20);
            }
            if (!verify) {
                return 0;
            }
            Namespace ns = controller.firstNamespace();
            Random random = new Random();
            int failures = 0;
            try (IoBuffer out = controller.allocateBuffer(128 * 1024); IoBuffer in = controller.allocateBuffer(128 * 1024)) {
                for (int round = 0; round < 17; round++) {
                    int bytes = round == 16 ? 128 * 1024 : 4096;
                    long blocks = bytes / ns.blockSize();
                    long slba = Math.floorMod(random.nextLong(), ns.blockCount() - blocks);
                    byte[] pattern = new byte[bytes];
                    random.nextBytes(pattern);
                    MemorySegment.copy(MemorySegment.ofArray(pattern), 0, out.segment(), 0, bytes);
                    ns.write(slba, blocks, out, 0);
                    in.segment().fill((byte) 0);
                    ns.read(slba, blocks, in, 0);
                    long mismatch = in.segment().asSlice(0, bytes).mismatch(MemorySegment.ofArray(pattern));
                    if (mismatch >= 0) {
                        failures++;
                        System.out.printf("  MISMATCH at slba %d byte %d%n", slba, mismatch);
                    }
                }
                byte[] heap = new byte[8192];
                random.nextBytes(heap);
                ns.write(0, 8192 / ns.blockSize(), MemorySegment.ofArray(heap));
                byte[] back = new byte[8192];
                ns.read(0, 8192 / ns.blockSize(), MemorySegment.ofArray(back));
                if (!java.util.Arrays.equals(heap, back)) {
                    failures++;
                    System.out.println("  MISMATCH on the copy path at slba 0");
                }
                ns.flush();
            }
            System.out.println(failures == 0 ? "verify: OK (16 x 4 KiB, 1 x 128 KiB zero-copy, 8 KiB copy path)"
                    : "verify: " + failures + " FAILED");
            return failures == 0 ? 0 : 2;
        }
    }
}
