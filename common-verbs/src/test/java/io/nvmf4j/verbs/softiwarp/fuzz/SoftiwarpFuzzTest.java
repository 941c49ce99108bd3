package io.nvmf4j.verbs.softiwarp.fuzz;

import io.nvmf4j.testsupport.FuzzSupport;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.nvmf4j.verbs.AcceptParams;
import io.nvmf4j.verbs.AccessFlag;
import io.nvmf4j.verbs.CompletionQueue;
import io.nvmf4j.verbs.ConnectRequest;
import io.nvmf4j.verbs.MemoryRegion;
import io.nvmf4j.verbs.ProtectionDomain;
import io.nvmf4j.verbs.QueuePairAttributes;
import io.nvmf4j.verbs.RdmaConnection;
import io.nvmf4j.verbs.RdmaDevice;
import io.nvmf4j.verbs.RdmaListener;
import io.nvmf4j.verbs.RdmaProviders;
import io.nvmf4j.verbs.ReceiveWorkRequest;
import io.nvmf4j.verbs.SendOpcode;
import io.nvmf4j.verbs.SendWorkRequest;
import io.nvmf4j.verbs.VerbsException;
import io.nvmf4j.verbs.WorkCompletion;
import io.nvmf4j.verbs.softiwarp.mpa.MpaException;
import io.nvmf4j.verbs.softiwarp.mpa.MpaFrame;
import io.nvmf4j.verbs.softiwarp.mpa.MpaFrameReader;
import io.nvmf4j.verbs.softiwarp.mpa.MpaNegotiation;
import io.nvmf4j.verbs.softiwarp.mpa.MpaV2IrdOrd;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Generative fuzzing of softiwarp's parsers of peer bytes: the MPA request/reply frames and their negotiation
 * (RFC 5044 section 7.1, RFC 6581), and the receive state machine that parses DDP/RDMAP headers (RFC 5041, RFC 5040)
 * and places payload, driven through a real loopback socket by a raw peer, as an attacker would drive it.
 */
class SoftiwarpFuzzTest {

    // ---- MPA request/reply frames --------------------------------------------------------------------------

    /**
     * Byte 0: read chunk size (1-8 bytes per read, as TCP may split) and what to judge; the rest: the stream the
     * peer sent. {@link MpaFrameReader} may only return a frame, ask for more, or fail with {@link MpaException}
     * / {@link EOFException}; a frame re-encodes to itself; the negotiation judges it or refuses with its
     * documented exceptions.
     */
    @FuzzTest(maxDuration = "10m")
    void mpaFrames(byte[] input) {
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT, () -> {
            if (input.length == 0) {
                return;
            }
            int control = input[0] & 0xff;
            ByteBuffer stream = ByteBuffer.wrap(input, 1, input.length - 1);
            int chunk = 1 + (control & 7);
            ReadableByteChannel channel = new ReadableByteChannel() {
                @Override
                public int read(ByteBuffer dst) {
                    if (!stream.hasRemaining()) {
                        return -1;
                    }
                    int n = Math.min(Math.min(chunk, dst.remaining()), stream.remaining());
                    dst.put(dst.position(), stream, stream.position(), n);
                    dst.position(dst.position() + n);
                    stream.position(stream.position() + n);
                    return n;
                }

                @Override
                public boolean isOpen() {
                    return true;
                }

                @Override
                public void close() {
                }
            };
            MpaFrameReader reader = new MpaFrameReader();
            MpaFrame frame = null;
            for (int reads = 0; frame == null; reads++) {
                if (reads > input.length + 2) {
                    throw new AssertionError("MpaFrameReader neither finished nor failed after " + reads + " reads");
                }
                frame = reader.read(channel);
            }
            FuzzSupport.assertStable(frame, MpaFrame.decode(frame.encode()), input);
            if (!frame.reply()) {
                MpaNegotiation.Request request = MpaNegotiation.judgeRequest(frame, (control & 8) != 0);
                int[] irdOrd = MpaNegotiation.acceptedIrdOrd(request, 16, 16, 128, 128);
                MpaNegotiation.reply(request, irdOrd[0], irdOrd[1], new byte[0]).encode();
                MpaNegotiation.rejectFor(frame).encode();
            } else {
                MpaFrame ours = MpaNegotiation.request(16, 16, (control & 8) != 0, (control & 16) != 0, new byte[0]);
                MpaNegotiation.judgeReply(frame, ours, 16);
            }
            if (frame.enhanced()) {
                MpaV2IrdOrd.decode(frame.privateData());
            }
            MpaNegotiation.applicationData(frame);
        }, MpaException.class, EOFException.class, MpaNegotiation.Rejected.class, MpaNegotiation.ReplyRefused.class);
    }

    /**
     * The listener's side of the MPA exchange over a real socket: a raw peer connects to the responder's listener,
     * sends the input as its MPA request (and whatever follows), and ends its stream. A request the listener
     * accepts as valid is rejected by the application. Property: the listener ends the connection (reply, reject
     * or close) within 10 s, and keeps listening (the next input connects to it again).
     */
    @FuzzTest(maxDuration = "10m")
    void mpaListener(byte[] input) throws Exception {
        Responder r = responder();
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT + 64L * input.length, () -> {
            try (SocketChannel peer = SocketChannel.open()) {
                peer.connect(r.listener.localAddress());
                peer.write(ByteBuffer.wrap(input));
                peer.shutdownOutput();
                peer.configureBlocking(false);
                ByteBuffer sink = ByteBuffer.allocate(1024);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (true) {
                    sink.clear();
                    int n;
                    try {
                        n = peer.read(sink);
                    } catch (IOException e) {
                        n = -1; // reset by the listener
                    }
                    if (n < 0) {
                        break;
                    }
                    ConnectRequest request = r.listener.accept(Duration.ofMillis(n == 0 ? 1 : 0));
                    if (request != null) {
                        request.reject(new byte[0]);
                    }
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("the listener kept a connection open 10 s after the peer's "
                                + input.length + " bytes and end of stream");
                    }
                }
            }
        });
    }

    // ---- the receive state machine over a real socket -----------------------------------------------------

    /** One softiwarp device listening on 127.0.0.1 for the whole run; a fresh connection per input. */
    private static final class Responder {
        static final int REGION = 64 << 10;
        static final int GUARD = 4096;
        final Arena arena = Arena.ofShared();
        final RdmaDevice device;
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final RdmaListener listener;
        /** The region registered per input, between two guard areas nobody may write. */
        final MemorySegment memory;

        Responder() throws Exception {
            device = RdmaProviders.byName("softiwarp").openDevice(null);
            pd = device.allocatePd();
            cq = device.createCompletionQueue(1024);
            listener = device.connectionManager().listen(new InetSocketAddress("127.0.0.1", 0), 16);
            memory = arena.allocate(REGION + 2L * GUARD, 4096);
        }
    }

    private static Responder responder;

    private static synchronized Responder responder() throws Exception {
        if (responder == null) {
            responder = new Responder();
        }
        return responder;
    }

    /**
     * Byte 0 (flags): bit 0 frames the records (the harness writes MPA length, pad and a zero CRC field; else the
     * bytes go out raw), bit 1 puts the real STag into tagged headers, bit 2 has the responder post an RDMA Read
     * first (so Read Responses have something to match), bit 3 reads the responder's bytes only after sending
     * everything (a peer that is slow to read). Then records: 2 bytes length, then the DDP/RDMAP header and
     * payload. The responder has 4 receives of 1 KiB posted and a 64 KiB region with local and remote read/write
     * access. Property: the connection ends (Terminate or close) within 10 s of the peer's end of stream, nothing
     * outside the region changes, the device keeps accepting connections.
     */
    @FuzzTest(maxDuration = "10m")
    void receiver(byte[] input) throws Exception {
        Responder r = responder();
        FuzzSupport.check(input, FuzzSupport.ALLOCATION_LIMIT + 64L * input.length, () -> exchange(r, input));
    }

    private static void exchange(Responder r, byte[] input) throws Exception {
        int flags = input.length == 0 ? 0 : input[0] & 0xff;
        r.memory.fill((byte) 0x5A);
        MemorySegment regionMemory = r.memory.asSlice(Responder.GUARD, Responder.REGION);
        MemoryRegion mr = r.pd.register(regionMemory,
                EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
        RdmaConnection server = null;
        try (SocketChannel peer = SocketChannel.open()) {
            peer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            peer.connect(r.listener.localAddress());
            // MPA v2 request: enhanced, no CRC, no markers, IRD 4 / ORD 4 (RFC 6581 section 5)
            peer.write(ByteBuffer.wrap(HexFormat.of().parseHex(
                    "4d504120494420526571204672616d65" + "10020004" + "00040004")));
            ConnectRequest request = r.listener.accept(Duration.ofSeconds(5));
            if (request == null) {
                throw new AssertionError("the listener saw no connection request within 5 s");
            }
            server = request.accept(new AcceptParams(r.pd, r.cq, r.cq, QueuePairAttributes.defaults(), new byte[0],
                    qp -> {
                        for (int i = 0; i < 4; i++) {
                            qp.postReceive(new ReceiveWorkRequest().wrId(i).local(mr, i * 1024L, 1024));
                        }
                    }));
            ByteBuffer reply = ByteBuffer.allocate(24);
            while (reply.hasRemaining()) {
                if (peer.read(reply) < 0) {
                    throw new AssertionError("no MPA reply");
                }
            }
            if ((flags & 4) != 0) {
                server.queuePair().postSend(new SendWorkRequest().wrId(100).opcode(SendOpcode.RDMA_READ)
                        .local(mr, 32768, 1024).remote(0x1000, 0x1234).signaled(true));
            }
            byte[] stream = (flags & 1) != 0 ? framed(input, (flags & 2) != 0 ? mr.rkey() : -1) : rest(input);
            peer.configureBlocking(false);
            ByteBuffer out = ByteBuffer.wrap(stream);
            ByteBuffer sink = ByteBuffer.allocate(4096);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            boolean readEarly = (flags & 8) == 0;
            boolean closed = false;
            boolean shutDown = false;
            while (!closed) {
                if (out.hasRemaining()) {
                    try {
                        peer.write(out);
                    } catch (IOException e) {
                        out.position(out.limit()); // the responder closed the connection: fine
                    }
                }
                if (!out.hasRemaining() && !shutDown) {
                    shutDown = true;
                    try {
                        peer.shutdownOutput(); // end of stream: the responder must end the connection now
                    } catch (IOException e) {
                        // already closed by the responder
                    }
                }
                if (readEarly || !out.hasRemaining()) {
                    sink.clear();
                    try {
                        closed = peer.read(sink) < 0;
                    } catch (IOException e) {
                        closed = true; // reset by the responder
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the responder neither closed nor finished the connection within 10 s"
                            + " of " + stream.length + " bytes; QP state " + server.queuePair().state());
                }
                if (!closed && sink.position() == 0) {
                    java.util.concurrent.locks.LockSupport.parkNanos(10_000); // leave the core to the responder
                }
            }
        } finally {
            if (server != null) {
                server.close();
            }
            mr.close();
            WorkCompletion[] wc = new WorkCompletion[16];
            for (int i = 0; i < wc.length; i++) {
                wc[i] = new WorkCompletion();
            }
            while (r.cq.poll(wc) > 0) {
                // flushed receives and Reads: drained so the shared CQ never overruns
            }
        }
        checkGuards(r);
    }

    private static void checkGuards(Responder r) {
        long end = r.memory.byteSize() - Responder.GUARD;
        for (long i = 0; i < r.memory.byteSize(); i++) {
            if (i == Responder.GUARD) {
                i = end;
            }
            if (r.memory.get(ValueLayout.JAVA_BYTE, i) != 0x5A) {
                throw new AssertionError("byte " + (i - Responder.GUARD) + " relative to the region was written");
            }
        }
    }

    private static byte[] rest(byte[] input) {
        return input.length == 0 ? input : Arrays.copyOfRange(input, 1, input.length);
    }

    /** Records to FPDUs: MPA length (RFC 5044 section 6), the ULPDU, pad to 4, a zero CRC field. */
    private static byte[] framed(byte[] input, int stag) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int at = 1;
        while (at + 2 <= input.length) {
            int length = ((input[at] & 0xff) << 8 | (input[at + 1] & 0xff)) & 0x3FFF;
            at += 2;
            int take = Math.min(length, input.length - at);
            byte[] ulpdu = Arrays.copyOfRange(input, at, at + take);
            at += take;
            // tagged (DDP control bit 7), or a Send with Invalidate (RDMAP opcode 4 or 6, the STag to invalidate in
            // the same place, RFC 5040 section 4.3): the real STag when asked
            int rdmapOpcode = ulpdu.length >= 2 ? ulpdu[1] & 0xF : -1;
            if (stag != -1 && ulpdu.length >= 6
                    && ((ulpdu[0] & 0x80) != 0 || rdmapOpcode == 4 || rdmapOpcode == 6)) {
                ulpdu[2] = (byte) (stag >>> 24);
                ulpdu[3] = (byte) (stag >>> 16);
                ulpdu[4] = (byte) (stag >>> 8);
                ulpdu[5] = (byte) stag;
            }
            out.write(ulpdu.length >>> 8);
            out.write(ulpdu.length);
            out.writeBytes(ulpdu);
            int pad = (4 - (2 + ulpdu.length) % 4) % 4;
            out.writeBytes(new byte[pad + 4]);
        }
        return out.toByteArray();
    }

    // ---- short generative run in mvn verify ---------------------------------------------------------------

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void fewThousandMutationsOfTheCorpus() {
        FuzzSupport.shortRun(getClass(), "mpaFrames", 1024, FuzzSupport.shortRunInputs(3000), 2, this::mpaFrames);
        FuzzSupport.shortRun(getClass(), "mpaListener", 1024, FuzzSupport.shortRunInputs(3000) / 10, 2, input -> {
            try {
                mpaListener(input);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        FuzzSupport.shortRun(getClass(), "receiver", 4096, FuzzSupport.shortRunInputs(3000) / 3, 4, input -> {
            try {
                receiver(input);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
    }
}
