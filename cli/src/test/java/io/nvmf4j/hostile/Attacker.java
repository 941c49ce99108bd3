package io.nvmf4j.hostile;

import io.nvmf4j.hostile.NvmeCapsules.Completion;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The suite's attacks as a process, for {@code bench/under-attack.sh}: holds hostile connections open for the whole
 * run (idle TCP before MPA, RDMA connections that never Connect, Connects whose 1 MiB Read is never answered, a peer
 * that never reads its socket) and meanwhile loops over the one-shot attacks of the suite at a fixed pace.
 *
 * <pre>Attacker HOST PORT SUBNQN SECONDS [HELD=30] [INTERVAL_MS=50]</pre>
 *
 * Prints "attacker: holding N connections" once they are open and a count per attack and outcome at the end.
 */
public final class Attacker {

    private final InetSocketAddress target;
    private final String subnqn;
    private final Map<String, Integer> outcomes = new java.util.concurrent.ConcurrentSkipListMap<>();
    private volatile int rounds;
    private int sweep;

    private Attacker(InetSocketAddress target, String subnqn) {
        this.target = target;
        this.subnqn = subnqn;
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 4) {
            System.err.println("usage: Attacker HOST PORT SUBNQN SECONDS [HELD=30] [INTERVAL_MS=50]");
            System.exit(2);
        }
        RawHost.readTimeout = Duration.ofSeconds(2);
        Attacker a = new Attacker(new InetSocketAddress(args[0], Integer.parseInt(args[1])), args[2]);
        long seconds = Long.parseLong(args[3]);
        int held = args.length > 4 ? Integer.parseInt(args[4]) : 30;
        long interval = args.length > 5 ? Long.parseLong(args[5]) : 50;
        List<AutoCloseable> holds = a.hold(held);
        System.out.println("attacker: holding " + holds.size() + " connections");
        System.out.flush();
        // the script stops us with SIGTERM when its perf run ends: the summary is printed either way
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
                System.out.println("attacker: " + a.rounds + " attacks, outcomes: " + a.outcomes)));
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            a.oneAttack(a.rounds);
            a.rounds++;
            Thread.sleep(interval);
        }
        for (AutoCloseable c : holds) {
            c.close();
        }
    }

    /** The held connections: a quarter of each kind. */
    private List<AutoCloseable> hold(int n) {
        List<AutoCloseable> held = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            try {
                switch (i % 4) {
                    case 0 -> held.add(MpaPeer.open(target, Duration.ofSeconds(1))); // F12: no MPA ever
                    case 1 -> held.add(RawHost.open(target, 1, 128, 127)); // F4: never a Connect
                    case 2 -> { // F3: a Connect whose 1 MiB Read Request is never answered
                        RawHost raw = RawHost.admin(target);
                        raw.answerReads = false;
                        raw.send(NvmeCapsules.connect(raw.nextCid(), 0, 31, 120_000,
                                NvmeCapsules.keyedSgl(0, 1 << 20, RawHost.CONNECT_DATA_STAG, false)));
                        held.add(raw);
                    }
                    default -> held.add(slowReader()); // never reads its socket
                }
                count("hold-" + (i % 4), "open");
            } catch (IOException | RuntimeException e) {
                count("hold-" + (i % 4), "refused");
            }
        }
        return held;
    }

    private RawHost slowReader() throws IOException {
        RawHost admin = RawHost.admin(target);
        Completion c = admin.connectAndEnable(subnqn);
        if (!c.success()) {
            return admin;
        }
        RawHost io = RawHost.ioQueue(target, subnqn, c.dw0() & 0xffff, admin.hostId, 32);
        for (int i = 0; i < 31; i++) {
            io.send(NvmeCapsules.readWrite(NvmeCapsules.NVM_READ, io.nextCid(), 1, 0, 256,
                    NvmeCapsules.keyedSgl(0, 128 * 1024, RawHost.DATA_STAG, false)));
        }
        admin.close();
        return io;
    }

    private void count(String attack, String outcome) {
        outcomes.merge(attack + ":" + outcome, 1, Integer::sum);
    }

    /** One attack of the suite, round robin; its outcome counted, never fatal to the loop. */
    private void oneAttack(int round) {
        String name = switch (round % 8) {
            case 0 -> "mpa-malformed";
            case 1 -> "send-with-invalidate";
            case 2 -> "cm-qid-mismatch";
            case 3 -> "log-page-2^63";
            case 4 -> "io-boundaries";
            case 5 -> "guessed-read-request";
            case 6 -> "duplicate-connect";
            default -> "connect-1MiB-sgl";
        };
        try {
            count(name, switch (round % 8) {
                case 0 -> malformedMpa(round);
                case 1 -> sendWithInvalidate();
                case 2 -> cmQidMismatch();
                case 3 -> logPageOffset();
                case 4 -> ioBoundaries();
                case 5 -> guessedReadRequest();
                case 6 -> duplicateConnect();
                default -> connectWithHugeSgl();
            });
        } catch (RawHost.Terminated t) {
            count(name, "terminated");
        } catch (IOException | RuntimeException e) {
            count(name, "closed");
        }
    }

    private String malformedMpa(int round) throws IOException {
        byte[] pd = MpaPeer.withIrdOrd(16, 16, NvmeCapsules.cmRequest(0, 32, 31));
        byte[] frame = switch ((round / 8) % 4) {
            case 0 -> MpaPeer.requestFrame("MPA ID Bad Frame".getBytes(StandardCharsets.US_ASCII), 0x10, 2,
                    pd.length, pd);
            case 1 -> MpaPeer.requestFrame(MpaPeer.KEY_REQUEST, 0x10, 3, pd.length, pd);
            case 2 -> MpaPeer.requestFrame(MpaPeer.KEY_REQUEST, 0x10, 2, 513, pd);
            default -> MpaPeer.requestFrame(MpaPeer.KEY_REQUEST, 0x10 | MpaPeer.FLAG_MARKERS, 2, pd.length, pd);
        };
        try (MpaPeer p = MpaPeer.open(target, Duration.ofSeconds(2))) {
            p.sendRaw(frame);
            return p.closedByTargetWithin(Duration.ofSeconds(2)) ? "closed" : "left-open";
        }
    }

    /** F1: index 1..8, keys 0x5a + n * 0x3b, one guess per attack. */
    private String sendWithInvalidate() throws IOException {
        int index = 1 + (sweep % 8);
        int n = (sweep / 8) % 256;
        sweep++;
        try (RawHost raw = RawHost.admin(target)) {
            raw.sendWithInvalidate(NvmeCapsules.propertyGet(raw.nextCid(), NvmeCapsules.PROP_CAP, true),
                    index << 8 | ((0x5a + n * 0x3b) & 0xff));
            raw.awaitCompletion(1);
            return "ACCEPTED";
        }
    }

    /** F2: CM QID 1, admin Connect, Get Features with a 1 MiB SGL. */
    private String cmQidMismatch() throws IOException {
        try (RawHost raw = RawHost.open(target, 1, 32, 31)) {
            raw.register(RawHost.DATA_STAG, new byte[1 << 20]);
            if (!raw.adminConnect(subnqn).success()) {
                return "connect-refused";
            }
            raw.command(NvmeCapsules.propertySet(raw.nextCid(), NvmeCapsules.PROP_CC, false, NvmeCapsules.CC_ENABLE));
            Completion c = raw.command(NvmeCapsules.getFeatures(raw.nextCid(), NvmeCapsules.FID_KEEP_ALIVE_TIMER,
                    NvmeCapsules.keyedSgl(0, 1 << 20, RawHost.DATA_STAG, false)));
            return raw.written.size() > 64 ? "LEAKED-" + raw.written.size() + "-bytes" : c.success() ? "ok" : "refused";
        }
    }

    /** F5. */
    private String logPageOffset() throws IOException {
        try (RawHost raw = RawHost.admin(target)) {
            raw.connectAndEnable(NvmeCapsules.DISCOVERY_NQN);
            raw.register(RawHost.DATA_STAG, new byte[4096]);
            Completion c = raw.command(NvmeCapsules.getLogPage(raw.nextCid(), 0, NvmeCapsules.LID_DISCOVERY, 1023,
                    1L << 63, NvmeCapsules.keyedSgl(0, 4096, RawHost.DATA_STAG, false)));
            return String.format("sc-0x%02x", c.sc());
        }
    }

    /** Lengths at the boundaries on an I/O queue, reads into the attacker's own buffer. */
    private String ioBoundaries() throws IOException {
        try (RawHost admin = RawHost.admin(target)) {
            Completion c = admin.connectAndEnable(subnqn);
            if (!c.success()) {
                return "connect-refused";
            }
            try (RawHost io = RawHost.ioQueue(target, subnqn, c.dw0() & 0xffff, admin.hostId, 32)) {
                io.register(RawHost.DATA_STAG, new byte[1 << 24]);
                int errors = 0;
                for (int[] k : new int[][] {{0, 1}, {513, 1}, {(1 << 20) + 512, 2049}, {(1 << 24) - 1, 32768}}) {
                    if (!io.command(NvmeCapsules.readWrite(NvmeCapsules.NVM_READ, io.nextCid(), 1, 0, k[1],
                            NvmeCapsules.keyedSgl(0, k[0], RawHost.DATA_STAG, false))).success()) {
                        errors++;
                    }
                }
                return errors + "-of-4-refused";
            }
        }
    }

    private String guessedReadRequest() throws IOException {
        try (RawHost raw = RawHost.admin(target)) {
            int n = ThreadLocalRandom.current().nextInt(64);
            raw.readRequest(RawHost.DATA_STAG, 0, 4096, 1 << 8 | ((0x5a + n * 0x3b) & 0xff), 0);
            raw.drain(Duration.ofSeconds(1));
            return raw.readResponses.isEmpty() ? "silent" : "READ-TARGET-MEMORY";
        }
    }

    private String duplicateConnect() throws IOException {
        try (RawHost raw = RawHost.admin(target)) {
            raw.adminConnect(subnqn);
            return raw.adminConnect(subnqn).success() ? "ACCEPTED-TWICE" : "refused";
        }
    }

    private String connectWithHugeSgl() throws IOException {
        try (RawHost raw = RawHost.admin(target)) {
            raw.answerReads = false;
            raw.send(NvmeCapsules.connect(raw.nextCid(), 0, 31, 120_000,
                    NvmeCapsules.keyedSgl(0, 1 << 20, RawHost.CONNECT_DATA_STAG, false)));
            raw.drain(Duration.ofMillis(200));
            return raw.readRequests.stream().anyMatch(r -> r.readSize() > ConnectData.SIZE) ? "READ-1MiB" : "refused";
        }
    }
}
